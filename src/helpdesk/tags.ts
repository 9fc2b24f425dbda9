// The desk's tags: what its tickets carry (a ticket's tags are set in triage), listed with how many
// tickets carry each, renamed or deleted across every ticket at once. Each ticket changed gets a
// `tags` event in its history, as a triage would write, in the statement of the change.
import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/client.js';
import { AppError } from '../http/errors.js';
import type { Actor } from './history.js';
import { helpdeskHistory, helpdeskTickets as t } from './tables.js';
import { normalizeTags } from './tickets.js';

export interface TagCount {
  tag: string;
  tickets: number;
}

/** The site's tags, by name, with the number of tickets carrying each. */
export function listTags(db: Executor, siteId: string): Promise<TagCount[]> {
  return queryRows<TagCount>(
    db,
    sql`select u.tag, count(*)::int as tickets from ${t}, unnest(${t.tags}) u(tag)
      where ${t.siteId} = ${siteId} group by u.tag order by u.tag`,
  );
}

/** One tag as stored (trimmed, lower case), or a refusal naming the field. */
function oneTag(value: string): string {
  const [tag, ...more] = normalizeTags([value]);
  if (!tag || more.length > 0) throw new AppError('invalid_ticket', 'A tag is a word or a few, at most 50 characters.');
  return tag;
}

/**
 * Sets `next` (an expression over the ticket's tags, `old`) on every ticket of the site carrying
 * `tag`, and writes each change to the history; answers how many tickets changed.
 */
async function retag(db: Executor, siteId: string, tag: string, next: SQL, actor: Actor): Promise<number> {
  const [row] = await queryRows<{ changed: number }>(
    db,
    sql`with old as (
        select id, tags from ${t} where ${t.siteId} = ${siteId} and ${t.tags} @> array[${tag}]::text[] for update
      ), changed as (
        update ${t} set tags = ${next}, updated_at = now() from old where ${t.id} = old.id
        returning ${t.id} as id, old.tags as before, ${t.tags} as after
      ), logged as (
        insert into ${helpdeskHistory} (site_id, ticket_id, actor_kind, actor_id, event, from_value, to_value)
        select ${siteId}, id, ${actor.kind}, ${actor.id}, 'tags', to_jsonb(before), to_jsonb(after) from changed
      )
      select count(*)::int as changed from changed`,
  );
  return row?.changed ?? 0;
}

/** Renames a tag on every ticket; a ticket that carries both keeps one, where the old one was. */
export async function renameTag(db: Executor, siteId: string, from: string, to: string, actor: Actor): Promise<number> {
  const old = oneTag(from);
  const renamed = oneTag(to);
  if (old === renamed) return 0;
  return retag(
    db,
    siteId,
    old,
    sql`array(select u.tag from unnest(array_replace(old.tags, ${old}, ${renamed})) with ordinality u(tag, n)
      group by u.tag order by min(u.n))`,
    actor,
  );
}

/** Takes a tag off every ticket. */
export function deleteTag(db: Executor, siteId: string, tag: string, actor: Actor): Promise<number> {
  const old = oneTag(tag);
  return retag(db, siteId, old, sql`array_remove(old.tags, ${old})`, actor);
}
