// The bare-SQL anchors the benches share: the rows an endpoint reads, as plain statements through
// `pg`, one per read, in the order the endpoint reads them (the endpoint may fold several into one
// statement, or answer from what the node kept). bench:forum, bench:cms, bench:helpdesk and
// bench:mixed time them beside Blume in the same run.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { NOTIFICATION_WINDOW } from '../../src/forum/notifications.js';

/** The newest notifications lists and counts read (src/forum/notifications.ts, NOTIFICATION_WINDOW). */
export const NOTIFICATION_WINDOW_SQL = `select * from forum_notifications where site_id = $1 and member_id = $2 order by created_at desc, id desc limit ${NOTIFICATION_WINDOW}`;
/** Per notification of the window, its topic's title when the member may see it (a lateral lookup). */
export const VISIBLE_TOPIC_SQL = `select t.title from forum_posts p join forum_topics t on t.id = n.topic_id join forums f on f.id = t.forum_id
  where p.id = n.post_id and p.deleted_at is null and f.visibility in ('public', 'members') and t.hidden = false limit 1`;
/**
 * The bare SQL anchor of each member target: the rows its endpoint reads, one plain statement per read,
 * in the order it reads them (the endpoint may fold several into one statement, e.g. a page's unread marks).
 */
export function memberAnchors(
  site: string,
  memberId: string,
  bigTopic: string,
): Record<string, (client: pg.PoolClient) => Promise<void>> {
  const order = 'order by t.pinned desc, t.last_post_at desc, t.id desc';
  const visibleForums = `select id from forums where site_id = '${site}' and visibility in ('public', 'members')`;
  const token = async (client: pg.PoolClient) => {
    // The credential and its member, as the request path reads them (one query).
    await client.query(`select m.id, m.role, m.banned from forum_members m where m.id = $1`, [memberId]);
  };
  const latestPage = async (client: pg.PoolClient) => {
    await client.query(`select * from forums where site_id = $1 and visibility in ('public', 'members')`, [site]);
    return client.query<{ id: string }>(
      `select t.*, m.username from forum_topics t left join forum_members m on m.id = t.author_id
       where t.id = any(array(select t.id from forum_topics t where t.site_id = $1 and t.forum_id in (${visibleForums}) and t.hidden = false ${order} limit 10)) ${order}`,
      [site],
    );
  };
  const notUpToDate = `t.last_post_at > (select read_before from forum_members where id = $1) and not exists (select 1 from forum_topic_reads r where r.member_id = $1 and r.topic_id = t.id and r.last_read_at >= t.last_post_at)`;
  return {
    latest: async (client) => {
      await token(client);
      await latestPage(client);
    },
    latestPage: async (client) => {
      const page = await latestPage(client);
      await client.query(`select t.id from forum_topics t where t.id = any($2) and ${notUpToDate}`, [
        memberId,
        page.rows.map((row) => row.id),
      ]);
    },
    unread: async (client) => {
      await token(client);
      await client.query(`select * from forums where site_id = $1 and visibility in ('public', 'members')`, [site]);
      const visible = `t.site_id = $2 and t.forum_id in (${visibleForums}) and t.hidden = false`;
      await Promise.all([
        client.query(
          `select t.*, m.username from forum_topics t left join forum_members m on m.id = t.author_id where ${visible} and ${notUpToDate} order by t.last_post_at desc, t.id desc limit 10`,
          [memberId, site],
        ),
        // The total, counted up to 1,001 (src/db/count.ts; past it the server asks the planner, once a minute).
        client.query(
          `select count(*) from (select 1 from forum_topics t where ${visible} and ${notUpToDate} limit 1001) capped`,
          [memberId, site],
        ),
      ]);
    },
    topicPage: async (client) => {
      await token(client);
      await client.query(
        `select t.*, f.visibility from forum_topics t join forums f on f.id = t.forum_id where t.id = $1`,
        [bigTopic],
      );
      await client.query(`select count(*) from forum_posts where topic_id = $1`, [bigTopic]);
      await client.query(
        `select p.*, m.username from forum_posts p left join forum_members m on m.id = p.author_id where p.topic_id = $1 order by p.created_at, p.id limit 100`,
        [bigTopic],
      );
    },
    // A member's web UI page of the topic, 20 posts: the topic, the page, then what the page shows
    // of its reader (likes, read mark, draft, the authors of the posts replies answer).
    topicPageUi: async (client) => {
      await client.query(`select t.*, f.* from forum_topics t join forums f on f.id = t.forum_id where t.id = $1`, [
        bigTopic,
      ]);
      await client.query(`select count(*) from forum_posts where topic_id = $1`, [bigTopic]);
      const page = await client.query<{ id: string; parent_id: string | null }>(
        `select p.*, m.username, m.avatar_upload_id from forum_posts p left join forum_members m on m.id = p.author_id where p.topic_id = $1 order by p.created_at, p.id limit 20`,
        [bigTopic],
      );
      await client.query(`select post_id from forum_post_likes where member_id = $1 and post_id = any($2)`, [
        memberId,
        page.rows.map((row) => row.id),
      ]);
      await client.query(`select * from forum_topic_reads where member_id = $1 and topic_id = $2`, [
        memberId,
        bigTopic,
      ]);
      await client.query(`select * from forum_drafts where member_id = $1 and key = $2`, [
        memberId,
        `topic-${bigTopic}`,
      ]);
      const parents = page.rows.flatMap((row) => (row.parent_id ? [row.parent_id] : []));
      await client.query(
        `select p.id, p.deleted_at, m.id, m.username, m.avatar_upload_id from forum_posts p left join forum_members m on m.id = p.author_id where p.id = any($1)`,
        [parents],
      );
    },
    notifications: async (client) => {
      await token(client);
      const from = `from (${NOTIFICATION_WINDOW_SQL}) n cross join lateral (${VISIBLE_TOPIC_SQL}) visible`;
      await client.query(
        `select n.*, a.username, visible.title ${from} left join forum_members a on a.id = n.actor_id order by n.created_at desc, n.id desc limit 10`,
        [site, memberId],
      );
      await client.query(`select count(*) ${from}`, [site, memberId]);
    },
  };
}

const HELPDESK_LIST_COLUMNS = [
  'id',
  'site_id',
  'number',
  'subject',
  'status',
  'priority',
  'category_id',
  'assignee_id',
  'requester_id',
  'channel',
  'tags',
  'follow_up_of',
  'created_at',
  'updated_at',
  'first_response_at',
  'solved_at',
  'closed_at',
  'first_response_minutes',
  'resolution_minutes',
  'first_response_due_at',
  'resolution_due_at',
  'sla_paused_at',
];
const HELPDESK_LIST_SQL = `select ${HELPDESK_LIST_COLUMNS.map((c) => `t.${c}`).join(', ')}, c.id, c.email, c.name,
    (select count(*)::int from (select 1 from helpdesk_tickets where site_id = $1 and status = ($2::text[])[1] limit $3) capped)
  from helpdesk_tickets t join helpdesk_contacts c on c.id = t.requester_id
  where t.site_id = $1 and t.status = ($2::text[])[1] order by t.updated_at desc, t.id desc limit $4 offset $5`;

/**
 * The help desk list's statement as Blume sends it (src/helpdesk/ticket-list.ts, src/db/count.ts,
 * decision 0058): page 2 of tickets in `status` with their requester and the total counted up to
 * 1,001 rows, in one statement, prepared by name as Blume prepares it; the planner's estimate past
 * 1,000 is taken once a minute per node, so not here.
 */
export function helpdeskListAnchor(site: string, status: string, pageSize: number) {
  return async (client: pg.PoolClient): Promise<void> => {
    await client.query({
      name: 'bench_ticket_list',
      text: HELPDESK_LIST_SQL,
      values: [site, [status], 1001, pageSize, pageSize],
    });
  };
}

/**
 * The Content API list page as bare SQL (bench:cms): page 2 of 10 of `typeId`'s live entries whose
 * `category` is `category`, by price descending, and their exact count. A descending sort on a field
 * reads the entries with a price and those without as two parts, each in its index's order
 * (src/cms/entries.ts, splitPage).
 */
export function cmsListAnchor(typeId: string, category: string) {
  const live = `type_id = '${typeId}' and status = 'published' and published_at <= now()`;
  const price = `((data ->> 'price')::numeric)`;
  const listPart = (condition: string, order: string) =>
    `(select * from cms_entries where ${live} and (data ->> 'category') = $1 and ${price} ${condition} order by ${order} limit 20)`;
  const listSql = `select * from (${listPart('is not null', `${price} desc, id desc`)} union all ${listPart('is null', 'id desc')}) cms_entries order by ${price} desc nulls last, id desc limit 10 offset 10`;
  const countSql = `select count(*) from cms_entries where ${live} and (data ->> 'category') = $1`;
  return async (client: pg.PoolClient): Promise<void> => {
    await Promise.all([
      client.query({ name: `cms_list_${typeId}`, text: listSql, values: [category] }),
      client.query({ name: `cms_count_${typeId}`, text: countSql, values: [category] }),
    ]);
  };
}

/**
 * The first statement a plan snapshot records (test/sql-plans/<name>.sql): the text Blume sends for
 * that request, kept current by test/sql-plans.test.ts, so a bench's bare SQL is Blume's statement.
 */
export function snapshotStatement(name: string): string {
  const lines = readFileSync(path.join('test', 'sql-plans', `${name}.sql`), 'utf8').split('\n');
  const first = lines.findIndex((line) => line.startsWith('-- 1.'));
  const text = lines[first + 1];
  if (first < 0 || !text || text.startsWith('--')) throw new Error(`test/sql-plans/${name}.sql records no statement`);
  return text.replace(/;$/, '');
}

/**
 * The help desk's ticket search as Blume sends it (test/sql-plans/helpdesk-tickets-search.sql): the
 * first page of 25 of the tickets whose subject or a message matches `q`, newest first, with the
 * total counted up to 1,001, the tickets it matched and its query's words, prepared by name.
 */
export function helpdeskSearchAnchor(site: string, q: () => string) {
  const text = snapshotStatement('helpdesk-tickets-search');
  return async (client: pg.PoolClient): Promise<void> => {
    const words = q();
    await client.query({
      name: 'bench_ticket_search',
      text,
      values: [site, words, site, words, 1001, 25, 0, words],
    });
  };
}

/**
 * The help desk's filtered list as Blume sends it (test/sql-plans/helpdesk-tickets-filtered.sql): new
 * and open tickets of high and urgent priority in `category()`, SLA due first, page 1 of 25, with
 * the total counted up to 1,001, prepared by name.
 */
export function helpdeskFilteredAnchor(site: string, category: () => string) {
  const text = snapshotStatement('helpdesk-tickets-filtered');
  const statuses = ['new', 'open'];
  const priorities = ['high', 'urgent'];
  return async (client: pg.PoolClient): Promise<void> => {
    // The filters' values for the count, then for each way of reading the page (walked, sorted).
    const filters = [site, statuses, priorities, category()];
    await client.query({
      name: 'bench_ticket_filtered',
      text,
      values: [...filters, 1001, ...filters, 25, 0, ...filters, 25, 0],
    });
  };
}
