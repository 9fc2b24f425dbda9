// Read marks: how far each member has read each topic, and the member's unread topics (topics it may
// see whose last post is newer than its mark, or that it never opened), latest activity first.
import { and, asc, count, desc, eq, gt, gte, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { AppError } from '../http/errors.js';
import type { Page } from '../http/pagination.js';
import { requireMember, visibleForumsWhere, visibleTopicCount, visibleTopicsOfForumWhere, type MemberViewer, type Viewer } from './policy.js';
import { findVisibleForum } from './structure.js';
import { forumMembers, forumPosts, forums, forumTopicReads, forumTopics, type ForumTopicReadRow, type ForumTopicRow } from './tables.js';
import { findVisibleTopic, topicColumns, type TopicView } from './topics.js';
import { authorOf } from './avatars.js';

/**
 * Moves the viewer's mark in a topic up to `postId` (a mark never moves back); answers the mark. The
 * post may be a tombstone: a deleted or hidden last post must not leave the topic unread for good.
 */
export async function markTopicRead(db: Executor, siteId: string, viewer: Viewer, topicId: string, postId: string): Promise<ForumTopicReadRow> {
  requireMember(viewer);
  const { topic } = await findVisibleTopic(db, siteId, viewer, topicId);
  const [post] = await db
    .select({ id: forumPosts.id, createdAt: forumPosts.createdAt })
    .from(forumPosts)
    .where(and(eq(forumPosts.topicId, topic.id), eq(forumPosts.id, postId)));
  if (!post) throw new AppError('post_not_found', `Post "${postId}" is not in topic "${topicId}".`);
  const mark = { memberId: viewer.member.id, topicId, siteId, lastReadPostId: post.id, lastReadAt: post.createdAt };
  await db
    .insert(forumTopicReads)
    .values(mark)
    .onConflictDoUpdate({
      target: [forumTopicReads.memberId, forumTopicReads.topicId],
      set: { lastReadPostId: sql`excluded.last_read_post_id`, lastReadAt: sql`excluded.last_read_at` },
      setWhere: sql`${forumTopicReads.lastReadAt} < excluded.last_read_at`,
    });
  return (await readMark(db, viewer, topicId))!;
}

/** The viewer's mark in a topic, if it ever read it. */
export async function readMark(db: Executor, viewer: MemberViewer, topicId: string): Promise<ForumTopicReadRow | undefined> {
  const [row] = await db.select().from(forumTopicReads).where(and(eq(forumTopicReads.memberId, viewer.member.id), eq(forumTopicReads.topicId, topicId)));
  return row;
}

/** The viewer's mark of the topic in the outer query, when it has read up to the topic's last post. */
function readUpToDate(db: Executor, viewer: MemberViewer) {
  return db
    .select({ one: sql`1` })
    .from(forumTopicReads)
    .where(and(eq(forumTopicReads.memberId, viewer.member.id), eq(forumTopicReads.topicId, forumTopics.id), gte(forumTopicReads.lastReadAt, forumTopics.lastPostAt)));
}

/** Which of `topicIds` (topics the caller showed the viewer) have posts the viewer has not read. */
export async function unreadTopicIds(db: Executor, viewer: Viewer, topicIds: string[]): Promise<Set<string>> {
  if (viewer.kind !== 'member' || topicIds.length === 0) return new Set();
  const rows = await db
    .select({ id: forumTopics.id })
    .from(forumTopics)
    .where(and(inArray(forumTopics.id, topicIds), sql`not exists ${readUpToDate(db, viewer)}`));
  return new Set(rows.map((row) => row.id));
}

/**
 * The first post of a topic the viewer has not read (in the classic order), or the opening post of a
 * topic it never opened; undefined when it has read everything.
 */
export async function firstUnreadPost(db: Executor, viewer: MemberViewer, topic: ForumTopicRow): Promise<{ id: string; createdAt: Date } | undefined> {
  const mark = await readMark(db, viewer, topic.id);
  const [post] = await db
    .select({ id: forumPosts.id, createdAt: forumPosts.createdAt })
    .from(forumPosts)
    .where(and(eq(forumPosts.topicId, topic.id), mark ? gt(forumPosts.createdAt, mark.lastReadAt) : undefined))
    .orderBy(asc(forumPosts.createdAt), asc(forumPosts.id))
    .limit(1);
  return post;
}

/**
 * Topics the viewer may see (in one forum, or all) with posts it has not read, latest activity first.
 * The page walks forum_topics_activity_idx and stops after it; the total is the visible topics (the
 * forums' counters) less those the member has read to the end, a count over its marks rather than
 * over every topic (bench/README.md, "Forum member reads").
 */
export async function listUnreadTopics(db: Executor, siteId: string, viewer: Viewer, forumId: string | undefined, page: Page): Promise<{ rows: TopicView[]; total: number }> {
  requireMember(viewer);
  const forum = forumId !== undefined ? await findVisibleForum(db, siteId, viewer, forumId) : undefined;
  const shownForums = forum ? [forum] : await db.select().from(forums).where(and(eq(forums.siteId, siteId), visibleForumsWhere(viewer)));
  const inShownForums = inArray(
    forumTopics.forumId,
    shownForums.map((row) => row.id),
  );
  const shown = and(eq(forumTopics.siteId, siteId), inShownForums, visibleTopicsOfForumWhere(viewer));
  if (shownForums.length === 0) return { rows: [], total: 0 };
  const [rows, [readToEnd]] = await Promise.all([
    db
      .select(topicColumns)
      .from(forumTopics)
      .leftJoin(forumMembers, eq(forumMembers.id, forumTopics.authorId))
      .where(and(shown, sql`not exists ${readUpToDate(db, viewer)}`))
      .orderBy(desc(forumTopics.lastPostAt), desc(forumTopics.id))
      .limit(page.pageSize)
      .offset(page.offset),
    db
      .select({ n: count() })
      .from(forumTopicReads)
      .innerJoin(forumTopics, eq(forumTopics.id, forumTopicReads.topicId))
      .where(and(eq(forumTopicReads.memberId, viewer.member.id), gte(forumTopicReads.lastReadAt, forumTopics.lastPostAt), shown)),
  ]);
  const visible = shownForums.reduce((sum, row) => sum + visibleTopicCount(viewer, row), 0);
  return { rows: rows.map((row) => ({ topic: row.topic, author: authorOf(row.authorId, row.authorName, row.authorAvatar) })), total: Math.max(0, visible - (readToEnd?.n ?? 0)) };
}
