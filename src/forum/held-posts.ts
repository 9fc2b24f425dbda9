// The moderation hold for first posts (FORUM_HOLD_FIRST_POSTS; docs/decisions/0097-forum-first-post-hold.md).
// A member without a post yet writes into `forum_held_posts`, not `forum_posts`: no topic list, post
// list, search, feed, count or notification can show it, and only its author and moderators read it
// here. Approving writes it as the topic or reply it would have been, as its author; rejecting
// deletes it. Both are rows of the moderation log.
import { and, count, eq, type SQL } from 'drizzle-orm';
import { parseBoolean } from '../config/index.js';
import type { InstanceSettings } from '../core/settings/allowlist.js';
import type { SiteRow } from '../core/sites/tables.js';
import type { Executor } from '../db/client.js';
import { AppError } from '../http/errors.js';
import type { Page } from '../http/pagination.js';
import { newId } from '../lib/ids.js';
import type { ReplyMailOptions } from './mail/service.js';
import { findMember, viewerFor } from './members.js';
import { logModAction } from './moderation.js';
import {
  authorizeModeration,
  authorizeNewTopic,
  authorizeReply,
  isStaff,
  requireMember,
  type Viewer,
} from './policy.js';
import { findVisibleForum } from './structure.js';
import { forumHeldPosts, forumMembers, forumPosts, type ForumHeldPostRow } from './tables.js';
import {
  createPost,
  createTopic,
  findVisibleTopic,
  requireBody,
  requireTitle,
  type NewPost,
  type NewTopic,
} from './topics.js';
import { type Author } from './avatars.js';

export interface HeldPostView {
  held: ForumHeldPostRow;
  author: Author;
}

/** Whether the viewer's next topic or reply waits for a moderator: the setting is on and it has no post yet. */
export async function mustHold(db: Executor, settings: InstanceSettings, viewer: Viewer): Promise<boolean> {
  if (viewer.kind !== 'member' || isStaff(viewer)) return false;
  if (!(parseBoolean(settings.values.FORUM_HOLD_FIRST_POSTS ?? '') ?? false)) return false;
  const [post] = await db
    .select({ id: forumPosts.id })
    .from(forumPosts)
    .where(eq(forumPosts.authorId, viewer.member.id))
    .limit(1);
  return !post;
}

/** Holds a new topic after the checks creating it would make. */
export async function holdTopic(db: Executor, siteId: string, viewer: Viewer, input: NewTopic): Promise<HeldPostView> {
  const forum = await findVisibleForum(db, siteId, viewer, input.forumId);
  authorizeNewTopic(viewer, forum);
  const title = requireTitle(input.title);
  const body = requireBody(input.body, viewer);
  const [held] = await db
    .insert(forumHeldPosts)
    .values({ id: newId(), siteId, authorId: viewer.member.id, forumId: forum.id, title, bodySource: body.source })
    .returning();
  return {
    held: held!,
    author: { id: viewer.member.id, username: viewer.member.username, avatar: viewer.member.avatarUploadId },
  };
}

/** Holds a reply after the checks creating it would make. */
export async function holdReply(
  db: Executor,
  siteId: string,
  viewer: Viewer,
  topicId: string,
  input: NewPost,
): Promise<HeldPostView> {
  const { topic, forum } = await findVisibleTopic(db, siteId, viewer, topicId);
  authorizeReply(viewer, forum, topic);
  const body = requireBody(input.body, viewer);
  if (input.parentId !== undefined) {
    const [parent] = await db
      .select({ topicId: forumPosts.topicId })
      .from(forumPosts)
      .where(and(eq(forumPosts.siteId, siteId), eq(forumPosts.id, input.parentId)));
    if (!parent || parent.topicId !== topic.id)
      throw new AppError('parent_not_in_topic', `Post "${input.parentId}" is not in topic "${topic.id}".`);
  }
  const [held] = await db
    .insert(forumHeldPosts)
    .values({
      id: newId(),
      siteId,
      authorId: viewer.member.id,
      topicId: topic.id,
      parentId: input.parentId ?? null,
      bodySource: body.source,
    })
    .returning();
  return {
    held: held!,
    author: { id: viewer.member.id, username: viewer.member.username, avatar: viewer.member.avatarUploadId },
  };
}

/** What the viewer may read of the hold: moderators everything, a member its own posts. */
function visibleTo(siteId: string, viewer: Viewer): SQL {
  requireMember(viewer);
  return and(
    eq(forumHeldPosts.siteId, siteId),
    isStaff(viewer) ? undefined : eq(forumHeldPosts.authorId, viewer.member.id),
  )!;
}

/** Held posts, oldest first (the queue's order). */
export async function listHeldPosts(
  db: Executor,
  siteId: string,
  viewer: Viewer,
  page: Page,
): Promise<{ rows: HeldPostView[]; total: number }> {
  const where = visibleTo(siteId, viewer);
  const [rows, [total]] = await Promise.all([
    db
      .select({ held: forumHeldPosts, authorName: forumMembers.username, authorAvatar: forumMembers.avatarUploadId })
      .from(forumHeldPosts)
      .innerJoin(forumMembers, eq(forumMembers.id, forumHeldPosts.authorId))
      .where(where)
      .orderBy(forumHeldPosts.createdAt, forumHeldPosts.id)
      .limit(page.pageSize)
      .offset(page.offset),
    db.select({ n: count() }).from(forumHeldPosts).where(where),
  ]);
  return {
    rows: rows.map(({ held, authorName, authorAvatar }) => ({
      held,
      author: { id: held.authorId, username: authorName, avatar: authorAvatar },
    })),
    total: total?.n ?? 0,
  };
}

interface HeldDecision {
  action: 'approve' | 'reject';
  reason?: string | undefined;
}

/**
 * A moderator approves a held post (it is written now, as its author, with the checks and
 * notifications of any new post; answers its id) or rejects it (it is deleted).
 */
export async function decideHeldPost(
  db: Executor,
  site: SiteRow,
  viewer: Viewer,
  id: string,
  decision: HeldDecision,
  mail?: ReplyMailOptions,
): Promise<{ postId: string | null; topicId: string | null }> {
  authorizeModeration(viewer);
  return db.transaction(async (tx) => {
    const [held] = await tx
      .delete(forumHeldPosts)
      .where(and(eq(forumHeldPosts.siteId, site.id), eq(forumHeldPosts.id, id)))
      .returning();
    if (!held)
      throw new AppError('held_post_not_found', `No held post "${id}"; another moderator may have decided on it.`);
    const author = await findMember(tx, site.id, held.authorId);
    const target = author ? { id: author.id, username: author.username } : undefined;
    if (decision.action === 'reject' || !author) {
      await logModAction(tx, site.id, viewer, { action: 'reject', target, reason: decision.reason ?? null });
      return { postId: null, topicId: held.topicId };
    }
    const as = viewerFor(site, author);
    let created: { postId: string; topicId: string };
    if (held.forumId && held.title !== null) {
      const { topic, post } = await createTopic(
        tx,
        site,
        as,
        { forumId: held.forumId, title: held.title, body: held.bodySource },
        mail,
      );
      created = { postId: post.post.id, topicId: topic.topic.id };
    } else {
      const post = await createPost(
        tx,
        site,
        as,
        held.topicId!,
        { body: held.bodySource, parentId: held.parentId ?? undefined },
        mail,
      );
      created = { postId: post.post.id, topicId: post.post.topicId };
    }
    await logModAction(tx, site.id, viewer, {
      action: 'approve',
      target,
      postId: created.postId,
      reason: decision.reason ?? null,
    });
    return created;
  });
}
