// Read marks: how far each member has read each topic, and the member's unread topics (topics it may
// see whose last post is newer than its mark, or that it never opened), latest activity first.
import { and, count, desc, eq, gte, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { AppError } from '../http/errors.js';
import type { Page } from '../http/pagination.js';
import { requireMember, visibleForumsWhere, visibleTopicsOfForumWhere, type Viewer } from './policy.js';
import { findVisibleForum } from './structure.js';
import { forumMembers, forums, forumTopicReads, forumTopics, type ForumTopicReadRow } from './tables.js';
import { authorOf, findVisiblePost, topicColumns, type TopicView } from './topics.js';

/** Moves the viewer's mark in a topic up to `postId` (a mark never moves back); answers the mark. */
export async function markTopicRead(db: Executor, siteId: string, viewer: Viewer, topicId: string, postId: string): Promise<ForumTopicReadRow> {
  requireMember(viewer);
  const { post } = await findVisiblePost(db, siteId, viewer, postId);
  if (post.topicId !== topicId) throw new AppError('post_not_found', `Post "${postId}" is not in topic "${topicId}".`);
  const mark = { memberId: viewer.member.id, topicId, siteId, lastReadPostId: post.id, lastReadAt: post.createdAt };
  await db
    .insert(forumTopicReads)
    .values(mark)
    .onConflictDoUpdate({
      target: [forumTopicReads.memberId, forumTopicReads.topicId],
      set: { lastReadPostId: sql`excluded.last_read_post_id`, lastReadAt: sql`excluded.last_read_at` },
      setWhere: sql`${forumTopicReads.lastReadAt} < excluded.last_read_at`,
    });
  const [row] = await db.select().from(forumTopicReads).where(and(eq(forumTopicReads.memberId, mark.memberId), eq(forumTopicReads.topicId, topicId)));
  return row!;
}

/** Topics the viewer may see (in one forum, or all) with posts it has not read, latest activity first. */
export async function listUnreadTopics(db: Executor, siteId: string, viewer: Viewer, forumId: string | undefined, page: Page): Promise<{ rows: TopicView[]; total: number }> {
  requireMember(viewer);
  const forum = forumId !== undefined ? await findVisibleForum(db, siteId, viewer, forumId) : undefined;
  const readUpToDate = db
    .select({ one: sql`1` })
    .from(forumTopicReads)
    .where(and(eq(forumTopicReads.memberId, viewer.member.id), eq(forumTopicReads.topicId, forumTopics.id), gte(forumTopicReads.lastReadAt, forumTopics.lastPostAt)));
  const where = and(
    eq(forumTopics.siteId, siteId),
    forum ? eq(forumTopics.forumId, forum.id) : inArray(forumTopics.forumId, db.select({ id: forums.id }).from(forums).where(and(eq(forums.siteId, siteId), visibleForumsWhere(viewer)))),
    visibleTopicsOfForumWhere(viewer),
    sql`not exists ${readUpToDate}`,
  );
  const [rows, [total]] = await Promise.all([
    db
      .select(topicColumns)
      .from(forumTopics)
      .leftJoin(forumMembers, eq(forumMembers.id, forumTopics.authorId))
      .where(where)
      .orderBy(desc(forumTopics.lastPostAt), desc(forumTopics.id))
      .limit(page.pageSize)
      .offset(page.offset),
    db.select({ n: count() }).from(forumTopics).where(where),
  ]);
  return { rows: rows.map((row) => ({ topic: row.topic, author: authorOf(row.authorId, row.authorName) })), total: total?.n ?? 0 };
}
