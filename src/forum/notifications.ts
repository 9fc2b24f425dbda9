// In-forum notifications: replies to a member's topic or post, mentions (`@name`) and likes. They are
// written in the transaction of the post or like that causes them, only for members who may see the
// topic then; reads withhold again what the member may no longer see (policy.ts), and deleted posts.
import { and, desc, eq, gt, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { SiteRow } from '../core/sites/tables.js';
import { queryRows, type Database, type Executor } from '../db/client.js';
import { cappedCount } from '../db/count.js';
import { preparedStatement, type Param } from '../db/prepared.js';
import type { Page } from '../http/pagination.js';
import { newId } from '../lib/ids.js';
import { cachedCountColumns, visibilityVersion, type CachedCounts } from './cached-counts.js';
import type { CachedPages, ListPage } from './cached-pages.js';
import { MENTION, mentionName } from './markdown.js';
import { viewerFor, type CommunityVersions } from './members.js';
import {
  canSeeTopic,
  requireMember,
  visibilityClass,
  visibleTopicsWhere,
  type MemberViewer,
  type Viewer,
} from './policy.js';
import {
  forumMembers,
  forumNotifications,
  forumPosts,
  forums,
  forumTopics,
  type ForumMemberRow,
  type ForumNotificationRow,
  type NotificationKind,
  type ForumPostRow,
  type ForumRow,
  type ForumTopicRow,
} from './tables.js';
import type { Author } from './avatars.js';

/** A post notifies at most this many mentioned members; further names are not notified. */
export const MAX_MENTIONS = 10;

/** The distinct names a text mentions, in order, at most MAX_MENTIONS (lower-cased). */
export function mentionedNames(text: string): string[] {
  const names = new Set<string>();
  for (const match of text.matchAll(MENTION)) {
    names.add(mentionName(match[1]!).toLowerCase());
    if (names.size === MAX_MENTIONS) break;
  }
  return [...names];
}

interface PostEvent {
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
  for (const authorId of [
    event.parent && !event.parent.deletedAt ? event.parent.authorId : null,
    event.topic.authorId,
  ]) {
    if (authorId && !wanted.has(authorId)) wanted.set(authorId, 'reply');
  }
  if (event.post.authorId) wanted.delete(event.post.authorId);
  return notify(tx, event, wanted);
}

/**
 * Tells a post's author of a like, once per liker and post; answers the event and who was told, for the mail that
 * follows.
 */
export async function notifyLike(
  tx: Executor,
  site: SiteRow,
  postId: string,
  likerId: string,
): Promise<{ event: PostEvent; notified: Notified[] } | undefined> {
  const [row] = await tx
    .select({ post: forumPosts, topic: forumTopics, forum: forums })
    .from(forumPosts)
    .innerJoin(forumTopics, eq(forumTopics.id, forumPosts.topicId))
    .innerJoin(forums, eq(forums.id, forumTopics.forumId))
    .where(eq(forumPosts.id, postId));
  if (!row?.post.authorId || row.post.authorId === likerId) return undefined;
  const event = { site, forum: row.forum, topic: row.topic, post: row.post, parent: undefined };
  return { event, notified: await notify(tx, event, new Map([[row.post.authorId, 'like']]), likerId) };
}

async function notify(
  tx: Executor,
  event: PostEvent,
  wanted: Map<string, ForumNotificationRow['kind']>,
  actorId = event.post.authorId,
): Promise<Notified[]> {
  if (wanted.size === 0) return [];
  const recipients = await tx
    .select()
    .from(forumMembers)
    .where(
      and(
        eq(forumMembers.siteId, event.site.id),
        inArray(forumMembers.id, [...wanted.keys()]),
        eq(forumMembers.banned, false),
      ),
    );
  const notified = recipients
    .filter((member) => canSeeTopic(viewerFor(event.site, member), event.forum, event.topic))
    .map((member) => ({ member, kind: wanted.get(member.id)! }));
  const rows = notified.map(({ member, kind }) => ({
    id: newId(),
    siteId: event.site.id,
    memberId: member.id,
    kind,
    topicId: event.topic.id,
    postId: event.post.id,
    actorId,
  }));
  if (rows.length === 0) return [];
  // A like given again finds its notification there already: nobody is told twice.
  const written = new Set(
    (
      await tx
        .insert(forumNotifications)
        .values(rows)
        .onConflictDoNothing()
        .returning({ memberId: forumNotifications.memberId })
    ).map((row) => row.memberId),
  );
  return notified.filter(({ member }) => written.has(member.id));
}

export interface NotificationView {
  notification: ForumNotificationRow;
  /** Who replied, mentioned or liked; null once that member is gone. */
  actor: Author | null;
  /** The topic's title as it is now, for pages (the API sends the id). */
  topicTitle: string;
}

/**
 * Lists, counts and digests read a member's newest NOTIFICATION_WINDOW notifications (unread ones,
 * for unread lists and counts), older ones drop out: the count behind every page's unread badge and
 * the list's total then join at most that many rows to posts and topics for the visibility checks,
 * however many a member collected (bench/README.md, "Forum member reads").
 */
export const NOTIFICATION_WINDOW = 1000;

/**
 * The newest NOTIFICATION_WINDOW notifications of `memberId` (unread ones only when asked): the
 * relation every list and count reads from, so a count stops as soon as it has enough rows.
 */
function notificationWindow(db: Executor, siteId: Param<string>, memberId: Param<string>, unreadOnly: boolean) {
  return (
    db
      .select()
      .from(forumNotifications)
      .where(
        and(
          eq(forumNotifications.siteId, siteId),
          eq(forumNotifications.memberId, memberId),
          unreadOnly ? isNull(forumNotifications.readAt) : undefined,
        ),
      )
      // The lists' order: a page then reads the window's first rows, not all of them.
      .orderBy(desc(forumNotifications.createdAt), desc(forumNotifications.id))
      .limit(NOTIFICATION_WINDOW)
      .as('notification_window')
  );
}

type NotificationWindow = ReturnType<typeof notificationWindow>;

/** A window's columns as a notification row (a subquery is selected column by column). */
function rowOf(window: NotificationWindow) {
  const { id, siteId, memberId, kind, topicId, postId, actorId, readAt, createdAt } = window;
  return { id, siteId, memberId, kind, topicId, postId, actorId, readAt, createdAt };
}

/** A window and what narrows it to the notifications visible to a viewer. */
interface VisibleNotifications {
  window: NotificationWindow;
  viewer: Viewer;
  narrower?: SQL | undefined;
}

/**
 * What `viewer` (that member, or its class of visibility when the member is a placeholder) may see
 * of the window of `memberId`: notifications of posts still there in topics it may still see,
 * narrowed by `narrower` (a condition on the window's rows).
 */
function visibleTo(
  db: Executor,
  siteId: Param<string>,
  memberId: Param<string>,
  viewer: Viewer,
  unreadOnly: boolean,
  narrower?: (window: NotificationWindow) => SQL | undefined,
): VisibleNotifications {
  const window = notificationWindow(db, siteId, memberId, unreadOnly);
  return { window, viewer, narrower: narrower?.(window) };
}

/**
 * Per row of the window, the title of its topic when the notification is visible to the viewer: its post
 * is still there and the viewer may still see the topic. A lateral lookup, so each row costs an index
 * probe or two whatever the planner estimates, and a count stops at its cap.
 */
function visibleTopic(db: Executor, { window, viewer }: VisibleNotifications) {
  return db
    .select({ title: forumTopics.title })
    .from(forumPosts)
    .innerJoin(forumTopics, eq(forumTopics.id, window.topicId))
    .innerJoin(forums, eq(forums.id, forumTopics.forumId))
    .where(and(eq(forumPosts.id, window.postId), isNull(forumPosts.deletedAt), visibleTopicsWhere(viewer)))
    .limit(1)
    .as('visible_topic');
}

/** A page of `visible`: its rows with their actors and topic titles, newest first, and `also` on each. */
function pageQuery<Also extends Record<string, SQL>>(
  db: Executor,
  visible: VisibleNotifications,
  limit: Param<number>,
  offset: Param<number>,
  also: Also = {} as Also,
) {
  const { window, narrower } = visible;
  const topic = visibleTopic(db, visible);
  return db
    .select({
      notification: rowOf(window),
      actorId: forumMembers.id,
      actorName: forumMembers.username,
      actorAvatar: forumMembers.avatarUploadId,
      topicTitle: topic.title,
      ...also,
    })
    .from(window)
    .innerJoinLateral(topic, sql`true`)
    .leftJoin(forumMembers, eq(forumMembers.id, window.actorId))
    .where(narrower)
    .orderBy(desc(window.createdAt), desc(window.id))
    .limit(limit)
    .offset(offset);
}

type PageRow = Awaited<ReturnType<typeof pageQuery>>[number];

function viewsOf(rows: PageRow[]): NotificationView[] {
  return rows.map(({ notification, actorId, actorName, actorAvatar, topicTitle }) => ({
    notification,
    actor: actorId && actorName ? { id: actorId, username: actorName, avatar: actorAvatar } : null,
    topicTitle,
  }));
}

/** What a member's list statements depend on besides their placeholders. */
interface ListVariant {
  viewer: Viewer;
  unreadOnly: boolean;
}

const listVariant = ({ viewer, unreadOnly }: ListVariant) =>
  `${visibilityClass(viewer)}_${unreadOnly ? 'unread' : 'all'}`;

const listVisible = (db: Executor, { viewer, unreadOnly }: ListVariant) =>
  visibleTo(db, sql.placeholder('siteId'), sql.placeholder('memberId'), viewer, unreadOnly);

/**
 * The versions a member's notification counts are cached at (cached-counts.ts): `version` is its
 * `notification_version`.
 */
function notificationVersions(siteId: Param<string>, version: SQL = sql`${forumMembers.notificationVersion}`): SQL[] {
  return [version, visibilityVersion(siteId)];
}

/**
 * The total of `visible` as `cachedCountColumns` select it, given the `cachedVersions`; `version` as in
 * `notificationVersions`.
 */
function cachedTotal(db: Executor, visible: VisibleNotifications, version?: SQL) {
  return cachedCountColumns(
    notificationVersions(sql.placeholder('siteId'), version),
    visibleCount(db, visible),
    sql.placeholder('cachedVersions'),
  );
}

/**
 * A page of a member's list, as a prepared statement per visibility class and filter. Each row
 * carries the list's cached total: the member's version is read by a subquery, as the page's own
 * `forum_members` are its actors.
 */
const listPage = preparedStatement(
  'forum_notifications_page',
  (db, variant: ListVariant) => {
    const visible = listVisible(db, variant);
    const me = alias(forumMembers, 'me');
    const version = sql`(${db
      .select({ version: me.notificationVersion })
      .from(me)
      .where(eq(me.id, sql.placeholder('memberId')))})`;
    return pageQuery(
      db,
      visible,
      sql.placeholder('limit'),
      sql.placeholder('offset'),
      cachedTotal(db, visible, version),
    );
  },
  listVariant,
);

/**
 * A member's list total, counted only when the versions the node cached it at moved: for a page with
 * no rows to carry it.
 */
const listTotal = preparedStatement(
  'forum_notifications_total',
  (db, variant: ListVariant) =>
    db
      .select(cachedTotal(db, listVisible(db, variant)))
      .from(forumMembers)
      .where(eq(forumMembers.id, sql.placeholder('memberId'))),
  listVariant,
);

/**
 * The viewer's notifications, newest first, of topics it may still see and posts still there; the
 * total as `counts` keeps it, carried by the page's rows (or, past the end, read alone).
 */
export async function listNotifications(
  db: Database,
  siteId: string,
  viewer: Viewer,
  unreadOnly: boolean,
  page: Page,
  counts: CachedCounts,
): Promise<{ rows: NotificationView[]; total: number }> {
  requireMember(viewer);
  const values = { siteId, memberId: viewer.member.id };
  const variant = { viewer, unreadOnly };
  const cached = counts.lookup(siteId, viewer, unreadOnly ? 'notifications-unread' : 'notifications');
  const rows = await listPage(db, variant).execute({
    ...values,
    cachedVersions: cached.versions,
    limit: page.pageSize,
    offset: page.offset,
  });
  const counted = rows[0] ?? (await listTotal(db, variant).execute({ ...values, cachedVersions: cached.versions }))[0];
  return { rows: viewsOf(rows), total: counted ? cached.resolve(counted) : 0 };
}

/** A page of a member's notifications as a node keeps it for the API (decision 0109). */
export type NotificationPage = ListPage<NotificationView>;

/**
 * `listNotifications` for a member whose token was read with the community's versions: cached while
 * the visibility and author versions, the member's `notification_version` (all read in the token's
 * statement, so one snapshot names them) and its visibility class stay put; read each time without
 * them. A page of the API: topic titles, which those versions do not follow, are not part of its answer.
 */
export function listCachedNotifications(
  db: Database,
  pages: CachedPages<NotificationPage>,
  counts: CachedCounts,
  siteId: string,
  viewer: MemberViewer,
  versions: CommunityVersions | undefined,
  unreadOnly: boolean,
  page: Page,
): Promise<NotificationPage> {
  const load = () => listNotifications(db, siteId, viewer, unreadOnly, page, counts);
  if (!versions) return load();
  return pages.keep(
    [
      siteId,
      viewer.member.id,
      viewer.member.notificationVersion,
      versions.visibilityAndAuthor,
      visibilityClass(viewer),
      unreadOnly,
      page.pageSize,
      page.offset,
    ].join('\n'),
    load,
  );
}

/**
 * The viewer's unread notifications of `kinds` written after `since` (what a digest lists), newest
 * first, at most `limit`, withheld as the list withholds them; with how many there are in all.
 */
export async function unreadNotificationsSince(
  db: Executor,
  siteId: string,
  viewer: Viewer,
  kinds: readonly NotificationKind[],
  since: Date,
  limit: number,
): Promise<{ rows: NotificationView[]; total: number }> {
  requireMember(viewer);
  if (kinds.length === 0) return { rows: [], total: 0 };
  const narrower = (window: NotificationWindow) => and(inArray(window.kind, [...kinds]), gt(window.createdAt, since));
  const visible = visibleTo(db, siteId, viewer.member.id, viewer, true, narrower);
  const [rows, total] = await Promise.all([pageQuery(db, visible, limit, 0), countVisible(db, visible)]);
  return { rows: viewsOf(rows), total };
}

/** How many notifications `visible` holds, as an expression: all of them, or up to `cap + 1`. */
function visibleCount(db: Executor, visible: VisibleNotifications, cap?: number): SQL<number> {
  const rows = db
    .select({ one: sql`1` })
    .from(visible.window)
    .innerJoinLateral(visibleTopic(db, visible), sql`true`)
    .where(visible.narrower)
    .getSQL();
  return cap === undefined ? sql<number>`(select count(*)::int from (${rows}) visible)` : cappedCount(rows, cap);
}

async function countVisible(db: Executor, visible: VisibleNotifications): Promise<number> {
  const [row] = await queryRows<{ n: number }>(db, sql`select ${visibleCount(db, visible)} as n`);
  return row?.n ?? 0;
}

/** Past this many unread notifications the web UI's badge says "99+", and stops counting. */
export const BADGE_LIMIT = 99;

/**
 * The web UI header's unread badge, as columns the header's one prepared statement selects
 * (`cachedCountColumns`, given the `cachedVersions`): the unread notifications of `memberId`, a member
 * of `viewer`'s class of visibility, counted up to BADGE_LIMIT + 1, so the badge joins at most that
 * many rows for the visibility checks when it is counted.
 */
export function unreadBadge(
  db: Executor,
  siteId: Param<string>,
  memberId: Param<string>,
  viewer: Viewer,
  cachedVersions: Param<string>,
) {
  requireMember(viewer);
  return cachedCountColumns(
    notificationVersions(siteId),
    visibleCount(db, visibleTo(db, siteId, memberId, viewer, true), BADGE_LIMIT),
    cachedVersions,
  );
}

/** How many of the viewer's notifications it has not read (what the API's `unread=true` total says). */
async function countUnreadNotifications(db: Executor, siteId: string, viewer: Viewer): Promise<number> {
  requireMember(viewer);
  return countVisible(db, visibleTo(db, siteId, viewer.member.id, viewer, true));
}

/** Marks the viewer's notifications read (those of `ids`, or all); answers how many stay unread. */
export async function markNotificationsRead(
  db: Executor,
  siteId: string,
  viewer: Viewer,
  ids: string[] | undefined,
): Promise<number> {
  requireMember(viewer);
  const mine = and(
    eq(forumNotifications.siteId, siteId),
    eq(forumNotifications.memberId, viewer.member.id),
    isNull(forumNotifications.readAt),
  );
  await db
    .update(forumNotifications)
    .set({ readAt: new Date() })
    .where(ids ? and(mine, inArray(forumNotifications.id, ids.length > 0 ? ids : [''])) : mine);
  return countUnreadNotifications(db, siteId, viewer);
}
