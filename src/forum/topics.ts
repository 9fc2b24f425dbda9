// Topics and posts. Bodies are rendered and sanitized once, on write. A post keeps the top-level
// post it descends from (`root_id`), so the threaded view loads a page of threads in one query.
// List totals come from counters: a topic's posts and threads, kept by the writes here in their
// transactions (docs/decisions/0018-forum-counters.md), and a forum's topics and posts (all, hidden)
// with its topic_list_version, which deep pages of its list rely on (topic-list.ts, 0022): those a
// trigger on forum_topics keeps for every write to a topic row, whoever makes it (0040).
import { and, asc, count, eq, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { SiteRow } from '../core/sites/tables.js';
import type { Executor } from '../db/client.js';
import { preparedStatement, textArray, type Param } from '../db/prepared.js';
import { AppError } from '../http/errors.js';
import type { Page } from '../http/pagination.js';
import { newId } from '../lib/ids.js';
import { enqueuePostMails, type ReplyMailOptions } from './mail/service.js';
import { plainTitle, renderBody, slugify } from './markdown.js';
import { notifyPost } from './notifications.js';
import {
  authorizeNewTopic,
  authorizePostChange,
  authorizeReply,
  canSeeTopic,
  type MemberViewer,
  type Viewer,
} from './policy.js';
import { linksAllowed } from './trust.js';
import { findVisibleForum } from './structure.js';
import {
  forumDraftKey,
  forumDrafts,
  forumMembers,
  forumPosts,
  forums,
  forumTopics,
  topicDraftKey,
  type ForumPostRow,
  type ForumRow,
  type ForumTopicRow,
} from './tables.js';
import { authorOf, type Author } from './avatars.js';
import { pageVersions, topicPage, type CachedPages, type TopicPage, type VersionedTopic } from './cached-pages.js';

/** Replies nest at most this deep, so threads stay readable and responses stay bounded. */
const MAX_DEPTH = 32;

export interface TopicView {
  topic: ForumTopicRow;
  author: Author | null;
  /** In lists a member reads: whether the topic has posts the member has not read. */
  unread?: boolean;
}

/** The columns of a post that reads load: not its search text or thread bookkeeping. */
const visiblePostColumns = {
  id: forumPosts.id,
  topicId: forumPosts.topicId,
  parentId: forumPosts.parentId,
  authorId: forumPosts.authorId,
  bodySource: forumPosts.bodySource,
  bodyHtml: forumPosts.bodyHtml,
  createdAt: forumPosts.createdAt,
  editedAt: forumPosts.editedAt,
  deletedAt: forumPosts.deletedAt,
  likeCount: forumPosts.likeCount,
};
export type VisiblePost = Pick<ForumPostRow, keyof typeof visiblePostColumns>;

export interface PostView {
  post: VisiblePost;
  author: Author | null;
}

export interface PostNode extends PostView {
  replies: PostNode[];
}

/** A topic row with its author's id and name, as every topic read selects it. */
export const topicColumns = {
  topic: forumTopics,
  authorId: forumMembers.id,
  authorName: forumMembers.username,
  authorAvatar: forumMembers.avatarUploadId,
};
export const postColumns = {
  post: visiblePostColumns,
  authorId: forumMembers.id,
  authorName: forumMembers.username,
  authorAvatar: forumMembers.avatarUploadId,
};

export function requireTitle(title: string): string {
  const text = plainTitle(title);
  if (!text) throw new AppError('invalid_title', 'The title has no visible characters.');
  return text;
}

/** A body as the viewer writes it: a new member's links and images are held (trust.ts). */
export function requireBody(body: string, viewer: MemberViewer): ReturnType<typeof renderBody> & { source: string } {
  const source = body.replace(/\r\n?/g, '\n');
  const rendered = renderBody(source, { links: linksAllowed(viewer) });
  if (!source.trim() || !rendered.text) throw new AppError('invalid_body', 'The body has no content.');
  return { ...rendered, source };
}

/** Posting ends the draft it came from (drafts.ts), in the post's transaction. */
async function discardDraft(tx: Executor, memberId: string, key: string): Promise<void> {
  await tx.delete(forumDrafts).where(and(eq(forumDrafts.memberId, memberId), eq(forumDrafts.key, key)));
}

// Topics -------------------------------------------------------------------------------------------

export interface VisibleTopic extends TopicView {
  forum: ForumRow;
  /** What the topic's pages are cached under (cached-pages.ts). */
  pageVersions: string;
}

/** Every topic page and reply reads its topic: prepared (src/db/prepared.ts), in a transaction too. */
const topicRead = preparedStatement('forum_topic_read', (db) =>
  db
    .select({ ...topicColumns, forum: forums, pageVersions: pageVersions(forumTopics.id, forumTopics.siteId) })
    .from(forumTopics)
    .innerJoin(forums, eq(forums.id, forumTopics.forumId))
    .leftJoin(forumMembers, eq(forumMembers.id, forumTopics.authorId))
    .where(and(eq(forumTopics.siteId, sql.placeholder('siteId')), eq(forumTopics.id, sql.placeholder('id')))),
);

/** The topic if the viewer may see it; 404 `topic_not_found` otherwise, exactly as for a missing one. */
export async function findVisibleTopic(
  db: Executor,
  siteId: string,
  viewer: Viewer,
  id: string,
): Promise<VisibleTopic> {
  const [row] = await topicRead(db, undefined).execute({ siteId, id });
  if (!row || !canSeeTopic(viewer, row.forum, row.topic)) throw new AppError('topic_not_found', `No topic "${id}".`);
  return {
    topic: row.topic,
    forum: row.forum,
    author: authorOf(row.authorId, row.authorName, row.authorAvatar),
    pageVersions: row.pageVersions,
  };
}

export interface NewTopic {
  forumId: string;
  title: string;
  body: string;
}

/** Starts a topic with its opening post; members it mentions are notified (and mailed, given `mail`). */
export async function createTopic(
  db: Executor,
  site: SiteRow,
  viewer: Viewer,
  input: NewTopic,
  mail?: ReplyMailOptions,
): Promise<{ topic: TopicView; post: PostView }> {
  const forum = await findVisibleForum(db, site.id, viewer, input.forumId);
  authorizeNewTopic(viewer, forum);
  const title = requireTitle(input.title);
  const body = requireBody(input.body, viewer);
  const member = viewer.member;
  const now = new Date();
  return db.transaction(async (tx) => {
    const [topic] = await tx
      .insert(forumTopics)
      .values({
        id: newId(),
        siteId: site.id,
        forumId: forum.id,
        authorId: member.id,
        title,
        slug: slugify(title),
        postCount: 1,
        threadCount: 1,
        lastPostAt: now,
        createdAt: now,
      })
      .returning();
    const postId = newId();
    const [post] = await tx
      .insert(forumPosts)
      .values({
        id: postId,
        siteId: site.id,
        topicId: topic!.id,
        authorId: member.id,
        parentId: null,
        rootId: postId,
        depth: 0,
        bodySource: body.source,
        bodyHtml: body.html,
        bodyText: body.text,
        createdAt: now,
      })
      .returning();
    const notified = await notifyPost(tx, { site, forum, topic: topic!, post: post!, parent: undefined });
    if (mail)
      await enqueuePostMails(
        tx,
        { site, topic: topic!, post: post!, parent: undefined, author: member, notified },
        mail,
      );
    await discardDraft(tx, member.id, forumDraftKey(forum.id));
    const me = { id: member.id, username: member.username, avatar: member.avatarUploadId };
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
export async function updateTopic(
  db: Executor,
  siteId: string,
  viewer: Viewer,
  id: string,
  change: TopicChange,
): Promise<TopicView> {
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
  // The trigger on forum_topics moves the forum's counters and list version from the row as this
  // UPDATE locked it, so of two concurrent hides only one counts, and a concurrent reply is counted
  // with the topic's state after this change.
  const [topic] = await db.update(forumTopics).set(set).where(eq(forumTopics.id, current.topic.id)).returning();
  if (!topic) throw new AppError('topic_not_found', `No topic "${id}".`);
  return { topic, author: current.author };
}

// Posts --------------------------------------------------------------------------------------------

/** A classic page of posts, with the topic's count of rows (tombstones are listed and counted too). */
const classicPage = preparedStatement('forum_posts_classic', (db) => {
  const counted = alias(forumPosts, 'counted');
  const total = db
    .select({ n: sql<number>`count(*)::int` })
    .from(counted)
    .where(eq(counted.topicId, sql.placeholder('topicId')));
  return db
    .select({ ...postColumns, total: sql<number>`(${total})` })
    .from(forumPosts)
    .leftJoin(forumMembers, eq(forumMembers.id, forumPosts.authorId))
    .where(eq(forumPosts.topicId, sql.placeholder('topicId')))
    .orderBy(asc(forumPosts.createdAt), asc(forumPosts.id))
    .limit(sql.placeholder('limit'))
    .offset(sql.placeholder('offset'));
});

/**
 * Every post of a topic in order, deleted ones as tombstones (the presenter blanks them); the node
 * keeps the page while the topic's posts stay as they are (cached-pages.ts).
 */
export function listPostsClassic(
  db: Executor,
  pages: CachedPages<TopicPage>,
  visible: VersionedTopic,
  page: Page,
): Promise<{ rows: PostView[]; total: number }> {
  return topicPage(pages, visible, `classic\n${page.pageSize}\n${page.offset}`, async () => {
    const topicId = visible.topic.id;
    const rows = await classicPage(db, undefined).execute({ topicId, limit: page.pageSize, offset: page.offset });
    // A page past the end has no row to carry the total.
    return {
      rows: rows.map((row) => ({ post: row.post, author: authorOf(row.authorId, row.authorName, row.authorAvatar) })),
      total: rows[0]?.total ?? (page.offset === 0 ? 0 : await countPosts(db, topicId)),
    };
  });
}

async function countPosts(db: Executor, topicId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(forumPosts).where(eq(forumPosts.topicId, topicId));
  return row?.n ?? 0;
}

/** How many posts of its topic come before `post` in the classic order (to find its page). */
export async function postsBefore(
  db: Executor,
  post: Pick<VisiblePost, 'id' | 'topicId' | 'createdAt'>,
): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(forumPosts)
    .where(
      and(
        eq(forumPosts.topicId, post.topicId),
        sql`(${forumPosts.createdAt}, ${forumPosts.id}) < (${post.createdAt.toISOString()}::timestamptz, ${post.id})`,
      ),
    );
  return row?.n ?? 0;
}

/**
 * A page of top-level posts, each with all its descendants nested in `replies`, oldest first; cached as classic pages
 * are.
 */
export function listPostsThreaded(
  db: Executor,
  pages: CachedPages<TopicPage>,
  visible: VersionedTopic & { topic: ForumTopicRow },
  page: Page,
): Promise<{ rows: PostNode[]; total: number }> {
  return topicPage(pages, visible, `threaded\n${page.pageSize}\n${page.offset}`, () =>
    readThreads(db, visible.topic, page),
  );
}

async function readThreads(
  db: Executor,
  topic: ForumTopicRow,
  page: Page,
): Promise<{ rows: PostNode[]; total: number }> {
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
    const node: PostNode = {
      post: row.post,
      author: authorOf(row.authorId, row.authorName, row.authorAvatar),
      replies: [],
    };
    nodes.set(row.post.id, node);
    if (row.post.parentId === null) out.push(node);
    else nodes.get(row.post.parentId)?.replies.push(node);
  }
  return { rows: out, total: topic.threadCount };
}

/**
 * SQL: who wrote each of `postIds` (the posts replies answer), as `[post id, author id, username, avatar]` rows;
 * deleted posts are left out.
 */
export function authorsAmong(db: Executor, postIds: Param<string[]>): SQL<AuthorRow[]> {
  const rows = db
    .select({
      rows: sql`json_agg(json_build_array(${forumPosts.id}, ${forumMembers.id}, ${forumMembers.username}, \
${forumMembers.avatarUploadId}))`,
    })
    .from(forumPosts)
    .leftJoin(forumMembers, eq(forumMembers.id, forumPosts.authorId))
    .where(and(sql`${forumPosts.id} = any(${textArray(postIds)})`, isNull(forumPosts.deletedAt)));
  return sql<AuthorRow[]>`coalesce((${rows}), '[]')`;
}

type AuthorRow = [postId: string, id: string | null, username: string | null, avatar: string | null];

/** The authors of `authorsAmong`, by post: null for a former member. */
export function authorsByPost(rows: AuthorRow[]): Map<string, Author | null> {
  return new Map(rows.map(([postId, id, username, avatar]) => [postId, authorOf(id, username, avatar)]));
}

/** One post of the topic with all its descendants nested (a thread continued on its own page); cached as pages are. */
export async function listThreadFrom(
  db: Executor,
  pages: CachedPages<TopicPage>,
  visible: VersionedTopic,
  postId: string,
): Promise<PostNode | undefined> {
  const { rows } = await topicPage(pages, visible, `from\n${postId}`, async () => {
    const node = await readThreadFrom(db, visible.topic.id, postId);
    return { rows: node ? [node] : [] };
  });
  return rows[0];
}

async function readThreadFrom(db: Executor, topicId: string, postId: string): Promise<PostNode | undefined> {
  const [start] = await db
    .select({ rootId: forumPosts.rootId, depth: forumPosts.depth })
    .from(forumPosts)
    .where(and(eq(forumPosts.topicId, topicId), eq(forumPosts.id, postId)));
  if (!start) return undefined;
  const rows = await db
    .select(postColumns)
    .from(forumPosts)
    .leftJoin(forumMembers, eq(forumMembers.id, forumPosts.authorId))
    .where(
      and(
        eq(forumPosts.topicId, topicId),
        eq(forumPosts.rootId, start.rootId),
        sql`${forumPosts.depth} >= ${start.depth}`,
      ),
    )
    .orderBy(asc(forumPosts.depth), asc(forumPosts.createdAt), asc(forumPosts.id));
  const nodes = new Map<string, PostNode>();
  for (const row of rows) {
    const node: PostNode = {
      post: row.post,
      author: authorOf(row.authorId, row.authorName, row.authorAvatar),
      replies: [],
    };
    nodes.set(row.post.id, node);
    if (row.post.parentId !== null) nodes.get(row.post.parentId)?.replies.push(node);
  }
  return nodes.get(postId);
}

export interface NewPost {
  body: string;
  parentId?: string | undefined;
}

/**
 * Replies to a topic, optionally to one of its posts. With `mail`, reply notifications are queued in
 * the same transaction (so they exist exactly when the post does); the caller nudges the outbox.
 */
export async function createPost(
  db: Executor,
  site: SiteRow,
  viewer: Viewer,
  topicId: string,
  input: NewPost,
  mail?: ReplyMailOptions,
): Promise<PostView> {
  const { topic, forum } = await findVisibleTopic(db, site.id, viewer, topicId);
  authorizeReply(viewer, forum, topic);
  const body = requireBody(input.body, viewer);
  const member = viewer.member;
  return db.transaction(async (tx) => {
    let parent: ForumPostRow | undefined;
    if (input.parentId !== undefined) {
      [parent] = await tx
        .select()
        .from(forumPosts)
        .where(and(eq(forumPosts.siteId, site.id), eq(forumPosts.id, input.parentId)));
      if (!parent || parent.topicId !== topic.id)
        throw new AppError('parent_not_in_topic', `Post "${input.parentId}" is not in topic "${topic.id}".`);
      if (parent.depth + 1 > MAX_DEPTH)
        throw new AppError('thread_too_deep', `Replies nest at most ${MAX_DEPTH} deep; reply to an earlier post.`);
    }
    const now = new Date();
    // The topic row first: it is the lock a forum delete also takes before the forum row, and a topic
    // deleted since it was read above is then a 404 rather than a failed insert.
    const [counted] = await tx
      .update(forumTopics)
      .set({
        postCount: sql`${forumTopics.postCount} + 1`,
        threadCount: sql`${forumTopics.threadCount} + ${parent ? 0 : 1}`,
        lastPostAt: now,
      })
      .where(eq(forumTopics.id, topic.id))
      .returning({ id: forumTopics.id });
    if (!counted) throw new AppError('topic_not_found', `No topic "${topic.id}".`);
    const id = newId();
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
    const notified = await notifyPost(tx, { site, forum, topic, post: post!, parent });
    if (mail) await enqueuePostMails(tx, { site, topic, post: post!, parent, author: member, notified }, mail);
    await discardDraft(tx, member.id, topicDraftKey(topic.id));
    return { post: post!, author: { id: member.id, username: member.username, avatar: member.avatarUploadId } };
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
  if (!row || row.post.deletedAt || !canSeeTopic(viewer, row.forum, row.topic))
    throw new AppError('post_not_found', `No post "${id}".`);
  return { post: row.post, author: authorOf(row.authorId, row.authorName, row.authorAvatar) };
}

export async function editPost(
  db: Executor,
  siteId: string,
  viewer: Viewer,
  id: string,
  newBody: string,
): Promise<PostView> {
  const current = await findVisiblePost(db, siteId, viewer, id);
  authorizePostChange(viewer, current.post.authorId);
  const body = requireBody(newBody, viewer);
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
  await db.transaction((tx) => tombstonePost(tx, current.post));
}

/** Turns a live post into a tombstone and counts it out of its topic; a tombstone stays as it is. */
export async function tombstonePost(tx: Executor, post: Pick<VisiblePost, 'id' | 'topicId'>): Promise<void> {
  const deleted = await tx
    .update(forumPosts)
    .set({ deletedAt: new Date() })
    .where(and(eq(forumPosts.id, post.id), isNull(forumPosts.deletedAt)))
    .returning({ id: forumPosts.id });
  if (deleted.length === 0) return;
  await tx
    .update(forumTopics)
    .set({ postCount: sql`greatest(${forumTopics.postCount} - 1, 0)` })
    .where(eq(forumTopics.id, post.topicId));
}
