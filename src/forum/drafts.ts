// Drafts: what a member is writing and has not posted yet, kept on the server so it survives a closed
// tab or another device (docs/decisions/0094-forum-composer.md). One draft per member and key: a
// reply to a topic (`topic-{id}`) or a new topic in a forum (`forum-{id}`). A draft is saved only
// for a topic or forum the member may see, and posting deletes it.
import { and, count, eq, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import type { Param } from '../db/prepared.js';
import { AppError } from '../http/errors.js';
import { requireMember, type MemberViewer, type Viewer } from './policy.js';
import type { DraftOut } from './schemas.js';
import { findVisibleForum } from './structure.js';
import { forumDraftKey, forumDrafts, topicDraftKey, type ForumDraftRow } from './tables.js';
import { findVisibleTopic } from './topics.js';

/** Drafts one member may keep; more would be storage anyone could fill. */
export const MAX_DRAFTS_PER_MEMBER = 200;

function parseKey(key: string): { kind: 'topic' | 'forum'; id: string } {
  const match = /^(topic|forum)-([A-Za-z0-9_-]{1,100})$/.exec(key);
  if (!match)
    throw new AppError('draft_key_invalid', `"${key}" is not a draft key: use topic-{topic id} or forum-{forum id}.`);
  return { kind: match[1] as 'topic' | 'forum', id: match[2]! };
}

export function presentDraft(row: ForumDraftRow): DraftOut {
  return { key: row.key, title: row.title, body: row.body, updated_at: row.updatedAt.toISOString() };
}

/** The viewer's draft under `key`, if it has one. */
export async function findDraft(db: Executor, viewer: MemberViewer, key: string): Promise<ForumDraftRow | undefined> {
  const [row] = await db
    .select()
    .from(forumDrafts)
    .where(and(eq(forumDrafts.memberId, viewer.member.id), eq(forumDrafts.key, key)));
  return row;
}

/** SQL: the body of the member's draft under `key`, or null. */
export function draftBodyOf(memberId: Param<string>, key: Param<string>): SQL<string | null> {
  return sql<
    string | null
  >`(select ${forumDrafts.body} from ${forumDrafts} where ${forumDrafts.memberId} = ${memberId} and ${forumDrafts.key} \
= ${key})`;
}

interface DraftInput {
  title?: string | undefined;
  body: string;
}

/**
 * Saves the viewer's draft under `key`, for a topic or forum it may see (404 as for a missing one
 * otherwise). A topic's draft has no title.
 */
export async function saveDraft(
  db: Executor,
  siteId: string,
  viewer: Viewer,
  key: string,
  input: DraftInput,
): Promise<ForumDraftRow> {
  requireMember(viewer);
  const target = parseKey(key);
  // The stored key names the forum by id, whatever the caller named it by.
  const stored =
    target.kind === 'topic'
      ? topicDraftKey((await findVisibleTopic(db, siteId, viewer, target.id)).topic.id)
      : forumDraftKey((await findVisibleForum(db, siteId, viewer, target.id)).id);
  if (stored !== key) throw new AppError('draft_key_invalid', `Name the forum by its id: ${stored}.`);
  if (!(await findDraft(db, viewer, key))) {
    const [kept] = await db.select({ n: count() }).from(forumDrafts).where(eq(forumDrafts.memberId, viewer.member.id));
    if ((kept?.n ?? 0) >= MAX_DRAFTS_PER_MEMBER)
      throw new AppError(
        'too_many_drafts',
        `You keep ${MAX_DRAFTS_PER_MEMBER} drafts already; post or delete some first.`,
      );
  }
  const title = target.kind === 'forum' ? (input.title ?? '') : null;
  const [row] = await db
    .insert(forumDrafts)
    .values({
      memberId: viewer.member.id,
      key,
      siteId,
      title,
      body: input.body.replace(/\r\n?/g, '\n'),
      updatedAt: new Date(),
    })
    .onConflictDoUpdate({
      target: [forumDrafts.memberId, forumDrafts.key],
      set: { title: sql`excluded.title`, body: sql`excluded.body`, updatedAt: sql`excluded.updated_at` },
    })
    .returning();
  return row!;
}

/** Deletes the viewer's draft under `key`; deleting a draft that is not there is no error. */
export async function deleteDraft(db: Executor, viewer: Viewer, key: string): Promise<void> {
  requireMember(viewer);
  await db.delete(forumDrafts).where(and(eq(forumDrafts.memberId, viewer.member.id), eq(forumDrafts.key, key)));
}
