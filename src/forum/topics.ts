// Topics and posts. Bodies are rendered and sanitized once, on write. A post keeps the top-level
// post it descends from (`root_id`), so the threaded view loads a page of threads in one query.
// List totals come from counters the writes here keep in their transactions: a forum's topics
// (all, hidden) and a topic's threads (docs/decisions/0018-forum-counters.md).
import { and, asc, count, desc, eq, inArray, isNull, or, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { SiteRow } from '../core/sites/tables.js';
import type { Database, Executor } from '../db/client.js';
import { preparedStatement } from '../db/prepared.js';
import { AppError } from '../http/errors.js';
import type { Page } from '../http/pagination.js';
import { newId } from '../lib/ids.js';
import './errors.js';
import { enqueueReplyNotices, type ReplyMailOptions } from './mail/service.js';
import { plainTitle, renderBody, slugify } from './markdown.js';
import {
  authorizeNewTopic,
  authorizePostChange,
  authorizeReply,
  canSeeForum,
  canSeeTopic,
  visibilityClass,
  visibleForumsWhere,
  visibleTopicCount,
  visibleTopicsOfForumWhere,
  type Viewer,
} from './policy.js';
import type { TopicMark, TopicPageMarks } from './page-marks.js';
import { findVisibleForum } from './structure.js';
import { forumMembers, forumPosts, forums, forumTopics, type ForumPostRow, type ForumRow, type ForumTopicRow } from './tables.js';

/** Replies nest at most this deep, so threads stay readable and responses stay bounded. */
export const MAX_DEPTH = 32;

export interface Author {
  id: string;
  username: string;
}

export interface TopicView {
  topic: ForumTopicRow;
  author: Author | null;
}

/** The columns of a post that reads load: not its search text or thread bookkeeping. */
const shownPostColumns = {
  id: forumPosts.id,
  topicId: forumPosts.topicId,
  parentId: forumPosts.parentId,
  authorId: forumPosts.authorId,
  bodySource: forumPosts.bodySource,
  bodyHtml: forumPosts.bodyHtml,
  createdAt: forumPosts.createdAt,
  editedAt: forumPosts.editedAt,
  deletedAt: forumPosts.deletedAt,
};
export type ShownPost = Pick<ForumPostRow, keyof typeof shownPostColumns>;

export interface PostView {
  post: ShownPost;
  author: Author | null;
}

export interface PostNode extends PostView {
  replies: PostNode[];
}

function author(id: string | null, username: string | null): Author | null {
  return id && username ? { id, username } : null;
}

const topicColumns = { topic: forumTopics, authorId: forumMembers.id, authorName: forumMembers.username };
const postColumns = { post: shownPostColumns, authorId: forumMembers.id, authorName: forumMembers.username };

function requireTitle(title: string): string {
  const text = plainTitle(title);
  if (!text) throw new AppError('invalid_title', 'The title is empty once markup is removed.');
  return text;
}

function requireBody(body: string): ReturnType<typeof renderBody> & { source: string } {
  const source = body.replace(/\r\n?/g, '\n');
  const rendered = renderBody(source);
  if (!source.trim() || !rendered.text) throw new AppError('invalid_body', 'The body has no content.');
  return { ...rendered, source };
}

// Topics -------------------------------------------------------------------------------------------

export interface TopicFilter {
  forumId?: string | undefined;
  authorId?: string | undefined;
}

const topicOrder = [desc(forumTopics.pinned), desc(forumTopics.lastPostAt), desc(forumTopics.id)];

/**
 * Topics the viewer may see, pinned first, then by latest activity. With `marks` (the node's, in
 * `app.services.topicMarks`), deep pages of one forum seek in the index instead of walking their offset.
 */
export async function listTopics(db: Database, siteId: string, viewer: Viewer, filter: TopicFilter, page: Page, marks?: TopicPageMarks): Promise<{ rows: TopicView[]; total: number }> {
  if (filter.forumId !== undefined && filter.authorId === undefined) return listForumTopics(db, siteId, viewer, filter.forumId, page, marks);
  const forum = filter.forumId !== undefined ? await findVisibleForum(db, siteId, viewer, filter.forumId) : undefined;
  const byAuthor = filter.authorId !== undefined ? eq(forumTopics.authorId, filter.authorId) : undefined;
  // A forum found in the site holds only that site's topics: without a `site_id` test, a page of one
  // forum is read from forum_topics_forum_idx alone.
  const inForums = forum
    ? eq(forumTopics.forumId, forum.id)
    : and(eq(forumTopics.siteId, siteId), inArray(forumTopics.forumId, db.select({ id: forums.id }).from(forums).where(visibleForumsOf(siteId, viewer))));
  const where = and(inForums, visibleTopicsOfForumWhere(viewer), byAuthor);
  const total = byAuthor ? await countTopics(db, where) : await visibleTopicTotal(db, siteId, viewer, forum);
  // The page's ids first, then their rows: the rows skipped to reach a deep page are never read.
  const pageIds = db.select({ id: forumTopics.id }).from(forumTopics).where(where).orderBy(...topicOrder).limit(page.pageSize).offset(page.offset).as('page_ids');
  const rows = await db
    .select(topicColumns)
    .from(forumTopics)
    .innerJoin(pageIds, eq(pageIds.id, forumTopics.id))
    .leftJoin(forumMembers, eq(forumMembers.id, forumTopics.authorId))
    .orderBy(...topicOrder);
  return { rows: rows.map((row) => ({ topic: row.topic, author: author(row.authorId, row.authorName) })), total };
}

/**
 * A forum by id or slug (the id wins, as in findForum) and a page of its topics the viewer may see,
 * in one prepared query: the forum comes back even when the page is empty. The page's ids are read
 * from forum_topics_forum_idx alone, then their rows by primary key (see 0018). The ids are matched
 * with `= any(array(...))` rather than joined: PostgreSQL plans an array as about ten values, so the
 * statement's generic plan, made once with LIMIT and OFFSET unknown, still looks each row up; a join
 * would expect a tenth of the forum and scan forum_topics (15-22 ms at 100,000 topics, not 0.1-0.8).
 *
 * The ids come from one of two index scans: past a mark (a row's sort key and rank, page-marks.ts)
 * if the forum is the mark's and still at its `topic_list_version`, else from the start of the list
 * (docs/decisions/0022-forum-deep-pages.md). The forum row is read in the same snapshot as the page,
 * so both give exactly the rows of `offset` from the start.
 */
const forumTopicPage = preparedStatement(
  'forum_topic_page',
  (db, viewer: Viewer) => {
    const forum = db
      .select({ id: forums.id, visibility: forums.visibility, topicCount: forums.topicCount, hiddenTopicCount: forums.hiddenTopicCount, topicListVersion: forums.topicListVersion })
      .from(forums)
      .where(and(eq(forums.siteId, sql.placeholder('siteId')), or(eq(forums.id, sql.placeholder('forum')), eq(forums.slug, sql.placeholder('forum')))))
      .orderBy(sql`${forums.id} = ${sql.placeholder('forum')} desc`)
      .limit(1)
      .as('forum');
    const visible = and(eq(forumTopics.forumId, forum.id), visibleTopicsOfForumWhere(viewer));
    const fromStart = db.select({ id: forumTopics.id }).from(forumTopics).where(visible).orderBy(...topicOrder).limit(sql.placeholder('limit')).offset(sql.placeholder('offset'));
    // The list order as one row value, so the index seeks to it (`Index Cond: ROW(...) < ROW(...)`).
    const pastMark = sql`(${forumTopics.pinned}, ${forumTopics.lastPostAt}, ${forumTopics.id}) < (${sql.placeholder('markPinned')}::boolean, ${sql.placeholder('markLastPostAt')}::timestamptz, ${sql.placeholder('markId')}::text)`;
    const fromMark = db
      .select({ id: forumTopics.id })
      .from(forumTopics)
      .where(and(visible, pastMark))
      .orderBy(...topicOrder)
      .limit(sql.placeholder('limit'))
      .offset(sql.placeholder('skip'));
    const markHolds = sql`${forum.id} = ${sql.placeholder('markForum')} and ${forum.topicListVersion} = ${sql.placeholder('markVersion')}::bigint`;
    return db
      .select({
        forum: { id: forum.id, visibility: forum.visibility, topicCount: forum.topicCount, hiddenTopicCount: forum.hiddenTopicCount, topicListVersion: forum.topicListVersion },
        ...topicColumns,
        lastPostAtText: sql<string | null>`${forumTopics.lastPostAt}::text`,
      })
      .from(forum)
      .leftJoin(forumTopics, sql`${forumTopics.id} = any(case when ${markHolds} then array${fromMark} else array${fromStart} end)`)
      .leftJoin(forumMembers, eq(forumMembers.id, forumTopics.authorId))
      .orderBy(...topicOrder);
  },
  visibilityClass,
);

/** What the statement is given when no mark is known: a forum id no forum has. */
const NO_MARK = { markForum: '', markVersion: -1, markPinned: false, markLastPostAt: '-infinity', markId: '', skip: 0 };

async function listForumTopics(db: Database, siteId: string, viewer: Viewer, forumId: string, page: Page, marks: TopicPageMarks | undefined): Promise<{ rows: TopicView[]; total: number }> {
  const list = `${visibilityClass(viewer)}:${forumId}`;
  const start = marks ? marks.start(list, page.offset) : { from: page.offset };
  const seek = start.seek
    ? { markForum: start.seek.forumId, markVersion: start.seek.version, markPinned: start.seek.mark.pinned, markLastPostAt: start.seek.mark.lastPostAt, markId: start.seek.mark.id, skip: start.from - start.seek.rank - 1 }
    : NO_MARK;
  const rows = await forumTopicPage(db, viewer).execute({ siteId, forum: forumId, limit: page.offset + page.pageSize - start.from, offset: start.from, ...seek });
  const forum = rows[0]?.forum;
  if (!forum || !canSeeForum(viewer, forum)) throw new AppError('forum_not_found', `No forum "${forumId}".`);
  const topics: TopicView[] = [];
  const learned: [number, TopicMark][] = [];
  for (const [i, row] of rows.entries()) {
    if (!row.topic) continue;
    const rank = start.from + i;
    if (i === 0 || i === rows.length - 1) learned.push([rank, { pinned: row.topic.pinned, lastPostAt: row.lastPostAtText!, id: row.topic.id }]);
    // The row before the page was read for its mark only.
    if (rank >= page.offset) topics.push({ topic: row.topic, author: author(row.authorId, row.authorName) });
  }
  marks?.learn(list, forum.id, forum.topicListVersion, learned);
  return { rows: topics, total: visibleTopicCount(viewer, forum) };
}

function visibleForumsOf(siteId: string, viewer: Viewer): SQL {
  return and(eq(forums.siteId, siteId), visibleForumsWhere(viewer))!;
}

async function countTopics(db: Executor, where: SQL | undefined): Promise<number> {
  const [row] = await db.select({ n: count() }).from(forumTopics).where(where);
  return row?.n ?? 0;
}

/** Topics the viewer may see in one forum, or in every forum of the site, from the forums' counters. */
async function visibleTopicTotal(db: Executor, siteId: string, viewer: Viewer, forum: ForumRow | undefined): Promise<number> {
  const counted = forum ? [forum] : await db.select().from(forums).where(visibleForumsOf(siteId, viewer));
  return counted.reduce((sum, row) => sum + visibleTopicCount(viewer, row), 0);
}

/**
 * Tells the forum its topic list changed: moves its `topic_list_version` (which retires every node's
 * marks into the list, page-marks.ts) and its topic counters by `delta`. Every write that adds,
 * hides, unhides, pins, unpins or bumps a topic (and any that will remove or move one) calls this in
 * its own transaction, so neither the counters nor the version ever miss a change of the rows.
 */
async function touchTopicList(tx: Executor, forumId: string, delta: { topics?: number; hidden?: number } = {}): Promise<void> {
  await tx
    .update(forums)
    .set({
      topicCount: sql`${forums.topicCount} + ${delta.topics ?? 0}`,
      hiddenTopicCount: sql`${forums.hiddenTopicCount} + ${delta.hidden ?? 0}`,
      topicListVersion: sql`${forums.topicListVersion} + 1`,
    })
    .where(eq(forums.id, forumId));
}

export interface VisibleTopic extends TopicView {
  forum: ForumRow;
}

/** The topic if the viewer may see it; 404 `topic_not_found` otherwise, exactly as for a missing one. */
export async function findVisibleTopic(db: Executor, siteId: string, viewer: Viewer, id: string): Promise<VisibleTopic> {
  const [row] = await db
    .select({ ...topicColumns, forum: forums })
    .from(forumTopics)
    .innerJoin(forums, eq(forums.id, forumTopics.forumId))
    .leftJoin(forumMembers, eq(forumMembers.id, forumTopics.authorId))
    .where(and(eq(forumTopics.siteId, siteId), eq(forumTopics.id, id)));
  if (!row || !canSeeTopic(viewer, row.forum, row.topic)) throw new AppError('topic_not_found', `No topic "${id}".`);
  return { topic: row.topic, forum: row.forum, author: author(row.authorId, row.authorName) };
}

export interface NewTopic {
  forumId: string;
  title: string;
  body: string;
}

/** Starts a topic with its opening post. */
export async function createTopic(db: Executor, site: SiteRow, viewer: Viewer, input: NewTopic): Promise<{ topic: TopicView; post: PostView }> {
  const forum = await findVisibleForum(db, site.id, viewer, input.forumId);
  authorizeNewTopic(viewer, forum);
  const title = requireTitle(input.title);
  const body = requireBody(input.body);
  const member = viewer.member;
  const now = new Date();
  return db.transaction(async (tx) => {
    const [topic] = await tx
      .insert(forumTopics)
      .values({ id: newId(), siteId: site.id, forumId: forum.id, authorId: member.id, title, slug: slugify(title), postCount: 1, threadCount: 1, lastPostAt: now, createdAt: now })
      .returning();
    await touchTopicList(tx, forum.id, { topics: 1 });
    const postId = newId();
    const [post] = await tx
      .insert(forumPosts)
      .values({ id: postId, siteId: site.id, topicId: topic!.id, authorId: member.id, parentId: null, rootId: postId, depth: 0, bodySource: body.source, bodyHtml: body.html, bodyText: body.text, createdAt: now })
      .returning();
    const me = { id: member.id, username: member.username };
    return { topic: { topic: topic!, author: me }, post: { post: post!, author: me } };
  });
}

export interface TopicChange {
  title?: string | undefined;
  pinned?: boolean | undefined;
  locked?: boolean | undefined;
  hidden?: boolean | undefined;
}

/** Moderation of a topic (the caller checks the moderator role). */
export async function updateTopic(db: Executor, siteId: string, viewer: Viewer, id: string, change: TopicChange): Promise<TopicView> {
  const current = await findVisibleTopic(db, siteId, viewer, id);
  const set: Partial<ForumTopicRow> = {};
  if (change.title !== undefined) {
    set.title = requireTitle(change.title);
    set.slug = slugify(set.title);
  }
  if (change.pinned !== undefined) set.pinned = change.pinned;
  if (change.locked !== undefined) set.locked = change.locked;
  if (change.hidden !== undefined) set.hidden = change.hidden;
  if (Object.keys(set).length === 0) return current;
  return db.transaction(async (tx) => {
    // Locked, so of two concurrent hides only one sees the topic visible and counts it.
    const [before] = await tx.select({ hidden: forumTopics.hidden, pinned: forumTopics.pinned }).from(forumTopics).where(eq(forumTopics.id, current.topic.id)).for('update');
    const [topic] = await tx.update(forumTopics).set(set).where(eq(forumTopics.id, current.topic.id)).returning();
    const hiddenMoved = before !== undefined && topic!.hidden !== before.hidden;
    if (hiddenMoved || (before !== undefined && topic!.pinned !== before.pinned)) await touchTopicList(tx, topic!.forumId, { hidden: hiddenMoved ? (topic!.hidden ? 1 : -1) : 0 });
    return { topic: topic!, author: current.author };
  });
}

// Posts --------------------------------------------------------------------------------------------

/** Every post of a topic in order, deleted ones as tombstones (the presenter blanks them). */
export async function listPostsClassic(db: Executor, topic: ForumTopicRow, page: Page): Promise<{ rows: PostView[]; total: number }> {
  const where = eq(forumPosts.topicId, topic.id);
  const [total] = await db.select({ n: count() }).from(forumPosts).where(where);
  const rows = await db
    .select(postColumns)
    .from(forumPosts)
    .leftJoin(forumMembers, eq(forumMembers.id, forumPosts.authorId))
    .where(where)
    .orderBy(asc(forumPosts.createdAt), asc(forumPosts.id))
    .limit(page.pageSize)
    .offset(page.offset);
  return { rows: rows.map((row) => ({ post: row.post, author: author(row.authorId, row.authorName) })), total: total?.n ?? 0 };
}

/** A page of top-level posts, each with all its descendants nested in `replies`, oldest first. */
export async function listPostsThreaded(db: Executor, topic: ForumTopicRow, page: Page): Promise<{ rows: PostNode[]; total: number }> {
  const thread = alias(forumPosts, 'thread');
  const pageRoots = db
    .select({ id: thread.id })
    .from(thread)
    .where(and(eq(thread.topicId, topic.id), isNull(thread.parentId)))
    .orderBy(asc(thread.createdAt), asc(thread.id))
    .limit(page.pageSize)
    .offset(page.offset);
  const rows = await db
    .select(postColumns)
    .from(forumPosts)
    .leftJoin(forumMembers, eq(forumMembers.id, forumPosts.authorId))
    .where(and(eq(forumPosts.topicId, topic.id), inArray(forumPosts.rootId, pageRoots)))
    // Top-level posts (depth 0) come first in page order; a reply is younger and deeper than its
    // parent, so every parent is placed before its replies, and replies arrive oldest first.
    .orderBy(asc(forumPosts.depth), asc(forumPosts.createdAt), asc(forumPosts.id));
  const nodes = new Map<string, PostNode>();
  const out: PostNode[] = [];
  for (const row of rows) {
    const node: PostNode = { post: row.post, author: author(row.authorId, row.authorName), replies: [] };
    nodes.set(row.post.id, node);
    if (row.post.parentId === null) out.push(node);
    else nodes.get(row.post.parentId)?.replies.push(node);
  }
  return { rows: out, total: topic.threadCount };
}

export interface NewPost {
  body: string;
  parentId?: string | undefined;
}

/**
 * Replies to a topic, optionally to one of its posts. With `mail`, reply notifications are queued in
 * the same transaction (so they exist exactly when the post does); the caller nudges the outbox.
 */
export async function createPost(db: Executor, site: SiteRow, viewer: Viewer, topicId: string, input: NewPost, mail?: ReplyMailOptions): Promise<PostView> {
  const { topic, forum } = await findVisibleTopic(db, site.id, viewer, topicId);
  authorizeReply(viewer, forum, topic);
  const body = requireBody(input.body);
  const member = viewer.member;
  return db.transaction(async (tx) => {
    let parent: ForumPostRow | undefined;
    if (input.parentId !== undefined) {
      [parent] = await tx.select().from(forumPosts).where(and(eq(forumPosts.siteId, site.id), eq(forumPosts.id, input.parentId)));
      if (!parent || parent.topicId !== topic.id) throw new AppError('parent_not_in_topic', `Post "${input.parentId}" is not in topic "${topic.id}".`);
      if (parent.depth + 1 > MAX_DEPTH) throw new AppError('thread_too_deep', `Replies nest at most ${MAX_DEPTH} deep; reply to an earlier post.`);
    }
    const id = newId();
    const now = new Date();
    const [post] = await tx
      .insert(forumPosts)
      .values({
        id,
        siteId: site.id,
        topicId: topic.id,
        authorId: member.id,
        parentId: parent?.id ?? null,
        rootId: parent ? parent.rootId : id,
        depth: parent ? parent.depth + 1 : 0,
        bodySource: body.source,
        bodyHtml: body.html,
        bodyText: body.text,
        createdAt: now,
      })
      .returning();
    await tx
      .update(forumTopics)
      .set({ postCount: sql`${forumTopics.postCount} + 1`, threadCount: sql`${forumTopics.threadCount} + ${parent ? 0 : 1}`, lastPostAt: now })
      .where(eq(forumTopics.id, topic.id));
    if (mail) await enqueueReplyNotices(tx, { site, forum, topic, post: post!, parent, replier: member }, mail);
    // The reply moved the topic up its forum's list. Last, so that replies in one forum wait on
    // each other's lock of the forum row for as short as can be.
    await touchTopicList(tx, topic.forumId);
    return { post: post!, author: { id: member.id, username: member.username } };
  });
}

/** A live post the viewer may see; 404 `post_not_found` otherwise. */
export async function findVisiblePost(db: Executor, siteId: string, viewer: Viewer, id: string): Promise<PostView> {
  const [row] = await db
    .select({ ...postColumns, topic: forumTopics, forum: forums })
    .from(forumPosts)
    .innerJoin(forumTopics, eq(forumTopics.id, forumPosts.topicId))
    .innerJoin(forums, eq(forums.id, forumTopics.forumId))
    .leftJoin(forumMembers, eq(forumMembers.id, forumPosts.authorId))
    .where(and(eq(forumPosts.siteId, siteId), eq(forumPosts.id, id)));
  if (!row || row.post.deletedAt || !canSeeTopic(viewer, row.forum, row.topic)) throw new AppError('post_not_found', `No post "${id}".`);
  return { post: row.post, author: author(row.authorId, row.authorName) };
}

export async function editPost(db: Executor, siteId: string, viewer: Viewer, id: string, newBody: string): Promise<PostView> {
  const current = await findVisiblePost(db, siteId, viewer, id);
  authorizePostChange(viewer, current.post.authorId);
  const body = requireBody(newBody);
  const [post] = await db
    .update(forumPosts)
    .set({ bodySource: body.source, bodyHtml: body.html, bodyText: body.text, editedAt: new Date() })
    .where(eq(forumPosts.id, id))
    .returning();
  return { post: post!, author: current.author };
}

/** Soft delete: the post stays as a tombstone so its replies keep their place in the thread. */
export async function deletePost(db: Executor, siteId: string, viewer: Viewer, id: string): Promise<void> {
  const current = await findVisiblePost(db, siteId, viewer, id);
  authorizePostChange(viewer, current.post.authorId);
  await db.transaction(async (tx) => {
    const deleted = await tx
      .update(forumPosts)
      .set({ deletedAt: new Date() })
      .where(and(eq(forumPosts.id, id), isNull(forumPosts.deletedAt)))
      .returning({ id: forumPosts.id });
    if (deleted.length > 0) {
      await tx.update(forumTopics).set({ postCount: sql`greatest(${forumTopics.postCount} - 1, 0)` }).where(eq(forumTopics.id, current.post.topicId));
    }
  });
}
