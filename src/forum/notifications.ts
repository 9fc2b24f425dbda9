// In-forum notifications: replies to a member's topic or post, mentions (`@name`) and likes. They are
// written in the transaction of the post or like that causes them, only for members who may see the
// topic then; reads withhold again what the member may no longer see (policy.ts), and deleted posts.
import { and, count, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { SiteRow } from '../core/sites/tables.js';
import type { Executor } from '../db/client.js';
import type { Page } from '../http/pagination.js';
import { newId } from '../lib/ids.js';
import { viewerFor } from './members.js';
import { canSeeTopic, requireMember, visibleTopicsWhere, type Viewer } from './policy.js';
import { forumMembers, forumNotifications, forumPosts, forums, forumTopics, type ForumMemberRow, type ForumNotificationRow, type ForumPostRow, type ForumRow, type ForumTopicRow } from './tables.js';

/** A post notifies at most this many mentioned members; further names stay plain text. */
export const MAX_MENTIONS = 10;

const MENTION = /(?:^|[^\w@.-])@([A-Za-z0-9_.-]{2,40})/g;

/** The distinct names a text mentions, in order, at most MAX_MENTIONS (lower-cased). */
export function mentionedNames(text: string): string[] {
  const names = new Set<string>();
  for (const match of text.matchAll(MENTION)) {
    names.add(match[1]!.replace(/[.-]+$/, '').toLowerCase());
    if (names.size === MAX_MENTIONS) break;
  }
  return [...names];
}

export interface PostEvent {
  site: SiteRow;
  forum: ForumRow;
  topic: ForumTopicRow;
  post: ForumPostRow;
  parent: ForumPostRow | undefined;
}

/** A member a post or like notified, and why. */
export interface Notified {
  member: ForumMemberRow;
  kind: ForumNotificationRow['kind'];
}

/**
 * Notifies the members a new post mentions, then the authors of the post and topic it answers;
 * answers who was notified (members who may see the topic), for the mails that follow.
 */
export async function notifyPost(tx: Executor, event: PostEvent): Promise<Notified[]> {
  const wanted = new Map<string, ForumNotificationRow['kind']>();
  const names = mentionedNames(event.post.bodyText);
  if (names.length > 0) {
    const mentioned = await tx
      .select({ id: forumMembers.id })
      .from(forumMembers)
      .where(and(eq(forumMembers.siteId, event.site.id), inArray(sql`lower(${forumMembers.username})`, names)));
    for (const { id } of mentioned) wanted.set(id, 'mention');
  }
  for (const authorId of [event.parent && !event.parent.deletedAt ? event.parent.authorId : null, event.topic.authorId]) {
    if (authorId && !wanted.has(authorId)) wanted.set(authorId, 'reply');
  }
  if (event.post.authorId) wanted.delete(event.post.authorId);
  return notify(tx, event, wanted);
}

/** Tells a post's author of a like, once per liker and post. */
export async function notifyLike(tx: Executor, site: SiteRow, postId: string, likerId: string): Promise<void> {
  const [row] = await tx
    .select({ post: forumPosts, topic: forumTopics, forum: forums })
    .from(forumPosts)
    .innerJoin(forumTopics, eq(forumTopics.id, forumPosts.topicId))
    .innerJoin(forums, eq(forums.id, forumTopics.forumId))
    .where(eq(forumPosts.id, postId));
  if (!row?.post.authorId || row.post.authorId === likerId) return;
  await notify(tx, { site, forum: row.forum, topic: row.topic, post: row.post, parent: undefined }, new Map([[row.post.authorId, 'like']]), likerId);
}

async function notify(tx: Executor, event: PostEvent, wanted: Map<string, ForumNotificationRow['kind']>, actorId = event.post.authorId): Promise<Notified[]> {
  if (wanted.size === 0) return [];
  const recipients = await tx
    .select()
    .from(forumMembers)
    .where(and(eq(forumMembers.siteId, event.site.id), inArray(forumMembers.id, [...wanted.keys()]), eq(forumMembers.banned, false)));
  const notified = recipients.filter((member) => canSeeTopic(viewerFor(event.site, member), event.forum, event.topic)).map((member) => ({ member, kind: wanted.get(member.id)! }));
  const rows = notified.map(({ member, kind }) => ({ id: newId(), siteId: event.site.id, memberId: member.id, kind, topicId: event.topic.id, postId: event.post.id, actorId }));
  if (rows.length > 0) await tx.insert(forumNotifications).values(rows).onConflictDoNothing();
  return notified;
}

export interface NotificationView {
  notification: ForumNotificationRow;
  /** Who replied, mentioned or liked; null once that member is gone. */
  actor: { id: string; username: string } | null;
}

function shownTo(siteId: string, viewer: Viewer & { kind: 'member' }, unreadOnly: boolean) {
  return and(
    eq(forumNotifications.siteId, siteId),
    eq(forumNotifications.memberId, viewer.member.id),
    unreadOnly ? isNull(forumNotifications.readAt) : undefined,
    isNull(forumPosts.deletedAt),
    visibleTopicsWhere(viewer),
  );
}

/** The viewer's notifications, newest first, of topics it may still see and posts still there. */
export async function listNotifications(db: Executor, siteId: string, viewer: Viewer, unreadOnly: boolean, page: Page): Promise<{ rows: NotificationView[]; total: number }> {
  requireMember(viewer);
  const where = shownTo(siteId, viewer, unreadOnly);
  const [rows, [total]] = await Promise.all([
    db
      .select({ notification: forumNotifications, actorId: forumMembers.id, actorName: forumMembers.username })
      .from(forumNotifications)
      .innerJoin(forumPosts, eq(forumPosts.id, forumNotifications.postId))
      .innerJoin(forumTopics, eq(forumTopics.id, forumNotifications.topicId))
      .innerJoin(forums, eq(forums.id, forumTopics.forumId))
      .leftJoin(forumMembers, eq(forumMembers.id, forumNotifications.actorId))
      .where(where)
      .orderBy(desc(forumNotifications.createdAt), desc(forumNotifications.id))
      .limit(page.pageSize)
      .offset(page.offset),
    db
      .select({ n: count() })
      .from(forumNotifications)
      .innerJoin(forumPosts, eq(forumPosts.id, forumNotifications.postId))
      .innerJoin(forumTopics, eq(forumTopics.id, forumNotifications.topicId))
      .innerJoin(forums, eq(forums.id, forumTopics.forumId))
      .where(where),
  ]);
  return {
    rows: rows.map(({ notification, actorId, actorName }) => ({ notification, actor: actorId && actorName ? { id: actorId, username: actorName } : null })),
    total: total?.n ?? 0,
  };
}

/** Marks the viewer's notifications read (those of `ids`, or all); answers how many stay unread. */
export async function markNotificationsRead(db: Executor, siteId: string, viewer: Viewer, ids: string[] | undefined): Promise<number> {
  requireMember(viewer);
  const mine = and(eq(forumNotifications.siteId, siteId), eq(forumNotifications.memberId, viewer.member.id), isNull(forumNotifications.readAt));
  await db
    .update(forumNotifications)
    .set({ readAt: new Date() })
    .where(ids ? and(mine, inArray(forumNotifications.id, ids.length > 0 ? ids : [''])) : mine);
  return (await listNotifications(db, siteId, viewer, true, { page: 1, pageSize: 1, offset: 0 })).total;
}
