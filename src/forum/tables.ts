// Forum data of community sites. Every row carries its site id: members, structure and content
// belong to one instance, and every query filters on it.
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { users } from '../core/accounts/tables.js';
import { sites } from '../core/sites/tables.js';

const siteRef = () =>
  text('site_id')
    .notNull()
    .references(() => sites.id, { onDelete: 'cascade' });

export const MAIL_DELIVERIES = ['immediately', 'digest', 'never'] as const;
export type MailDelivery = (typeof MAIL_DELIVERIES)[number];
export const DIGEST_FREQUENCIES = ['daily', 'weekly', 'never'] as const;
export type DigestFrequency = (typeof DIGEST_FREQUENCIES)[number];

/**
 * Members of one community. A member linked to a platform account (`user_id`) has no password of its
 * own: it logs in with the account's, and is an admin while that account owns the site.
 */
export const forumMembers = pgTable(
  'forum_members',
  {
    id: text('id').primaryKey(),
    siteId: siteRef(),
    userId: text('user_id').references(() => users.id, { onDelete: 'cascade' }),
    username: text('username').notNull(),
    email: text('email').notNull(),
    passwordHash: text('password_hash'),
    role: text('role', { enum: ['admin', 'moderator', 'member'] })
      .notNull()
      .default('member'),
    banned: boolean('banned').notNull().default(false),
    /**
     * False only for members who signed up themselves while mail works and have not yet followed the
     * confirmation link. Members added by admins, site owners and members from before confirmation
     * existed count as confirmed (docs/decisions/0016-forum-mail.md).
     */
    emailConfirmed: boolean('email_confirmed').notNull().default(true),
    /**
     * How the member hears of each kind of notification by mail: at once, in the digest, or not at
     * all; and how often the digest comes (docs/decisions/0098-notification-mail.md). A kind waits
     * for the digest only while the digest is on (mail/settings.ts keeps that).
     */
    mailReply: text('mail_reply', { enum: MAIL_DELIVERIES }).notNull().default('immediately'),
    mailMention: text('mail_mention', { enum: MAIL_DELIVERIES }).notNull().default('immediately'),
    mailLike: text('mail_like', { enum: MAIL_DELIVERIES }).notNull().default('digest'),
    digest: text('digest', { enum: DIGEST_FREQUENCIES }).notNull().default('weekly'),
    /** The hour the member's last digest was made (sent or found empty); null before the first. */
    lastDigestAt: timestamp('last_digest_at', { withTimezone: true }),
    /**
     * The trust ladder (docs/decisions/0096-forum-moderation-and-trust.md): 0 for members who signed up
     * themselves until they have read and posted a little (harder limits, links shown as text, no
     * uploads), 1 after. Members added by admins and members from before the ladder start at 1.
     */
    trustLevel: integer('trust_level').notNull().default(1),
    /** Set while a suspension stands (with `suspended_until`, null for indefinite, and its reason). */
    suspendedAt: timestamp('suspended_at', { withTimezone: true }),
    suspendedUntil: timestamp('suspended_until', { withTimezone: true }),
    suspensionReason: text('suspension_reason'),
    /** The member's own image upload shown as its avatar; generated initials without one. */
    avatarUploadId: text('avatar_upload_id'),
    /**
     * Every topic whose last post is at or before this counts as read, marks or not: the member's
     * joining, then its last "mark all read" (docs/decisions/0064-forum-read-before.md).
     */
    readBefore: timestamp('read_before', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    /**
     * Moves with every write to the member's notifications, whoever writes (a trigger on
     * forum_notifications): a node keeps the member's notification totals and badge only while it
     * stays put (docs/decisions/0106-counts-kept-per-node.md).
     */
    notificationVersion: bigint('notification_version', { mode: 'number' }).notNull().default(0),
    /** The same for the member's read marks and `read_before` (triggers on forum_topic_reads and this table). */
    readVersion: bigint('read_version', { mode: 'number' }).notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('forum_members_username_key').on(t.siteId, sql`lower(${t.username})`),
    // Linked members carry their account's address, which may also belong to a member of the community.
    uniqueIndex('forum_members_email_key')
      .on(t.siteId, sql`lower(${t.email})`)
      .where(sql`${t.userId} is null`),
    uniqueIndex('forum_members_user_key').on(t.siteId, t.userId),
  ],
);

export const forumCategories = pgTable(
  'forum_categories',
  {
    id: text('id').primaryKey(),
    siteId: siteRef(),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    description: text('description').notNull().default(''),
    position: integer('position').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('forum_categories_slug_key').on(t.siteId, t.slug)],
);

export const forums = pgTable(
  'forums',
  {
    id: text('id').primaryKey(),
    siteId: siteRef(),
    categoryId: text('category_id').references(() => forumCategories.id, { onDelete: 'set null' }),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    description: text('description').notNull().default(''),
    position: integer('position').notNull().default(0),
    visibility: text('visibility', { enum: ['public', 'members', 'staff'] })
      .notNull()
      .default('public'),
    locked: boolean('locked').notNull().default(false),
    /**
     * Topics of the forum and how many of them are hidden; live posts of the forum and how many of
     * them are in hidden topics. List totals and forum stats come from here instead of counts over
     * the topics. Kept exact by the topic and post writes in topics.ts, in their transactions
     * (docs/decisions/0018-forum-counters.md).
     */
    topicCount: integer('topic_count').notNull().default(0),
    hiddenTopicCount: integer('hidden_topic_count').notNull().default(0),
    postCount: integer('post_count').notNull().default(0),
    hiddenPostCount: integer('hidden_post_count').notNull().default(0),
    /**
     * Moves in the transaction of every write that changes which topics the forum lists or their
     * order (a new topic, a reply, a pin, a hide): a node's marks into the list are only used while
     * it has not moved (page-marks.ts, docs/decisions/0022-forum-deep-pages.md).
     */
    topicListVersion: bigint('topic_list_version', { mode: 'number' }).notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('forums_slug_key').on(t.siteId, t.slug), index('forums_category_idx').on(t.categoryId)],
);

export const forumTopics = pgTable(
  'forum_topics',
  {
    id: text('id').primaryKey(),
    siteId: siteRef(),
    forumId: text('forum_id')
      .notNull()
      .references(() => forums.id, { onDelete: 'cascade' }),
    authorId: text('author_id').references(() => forumMembers.id, { onDelete: 'set null' }),
    title: text('title').notNull(),
    slug: text('slug').notNull(),
    pinned: boolean('pinned').notNull().default(false),
    locked: boolean('locked').notNull().default(false),
    hidden: boolean('hidden').notNull().default(false),
    /** Live (not deleted) posts, the opening post included. */
    postCount: integer('post_count').notNull().default(0),
    /** Top-level posts, deleted ones included (they stay as tombstones): the pages of the threaded view. */
    threadCount: integer('thread_count').notNull().default(0),
    lastPostAt: timestamp('last_post_at', { withTimezone: true }).notNull().defaultNow(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // The list order, then `hidden`: a page (at any offset) is read from the index alone, for staff
    // and, with `hidden = false` checked in the index, for everyone else.
    index('forum_topics_forum_idx').on(t.forumId, t.pinned, t.lastPostAt, t.id, t.hidden),
    // The same order across a site's forums and by author: those lists stop after their page
    // instead of sorting every topic they match.
    index('forum_topics_site_idx').on(t.siteId, t.pinned, t.lastPostAt, t.id),
    index('forum_topics_author_idx').on(t.authorId, t.pinned, t.lastPostAt, t.id),
    // By latest activity alone, pinned or not: a member's unread list stops after its page.
    index('forum_topics_activity_idx').on(t.siteId, t.lastPostAt, t.id),
    index('forum_topics_search_idx').using('gin', sql`to_tsvector('english', ${t.title})`),
  ],
);

export const forumPosts = pgTable(
  'forum_posts',
  {
    id: text('id').primaryKey(),
    siteId: siteRef(),
    topicId: text('topic_id')
      .notNull()
      .references(() => forumTopics.id, { onDelete: 'cascade' }),
    authorId: text('author_id').references(() => forumMembers.id, { onDelete: 'set null' }),
    parentId: text('parent_id'),
    /** The top-level post this one descends from (itself for top-level posts): threads load in one query. */
    rootId: text('root_id').notNull(),
    depth: integer('depth').notNull().default(0),
    bodySource: text('body_source').notNull(),
    /** Sanitized HTML rendered once on write. */
    bodyHtml: text('body_html').notNull(),
    /** Plain text of the rendered body, for search and excerpts. */
    bodyText: text('body_text').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    editedAt: timestamp('edited_at', { withTimezone: true }),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
    /** Members who like the post (forum_post_likes), kept in the like's transaction. */
    likeCount: integer('like_count').notNull().default(0),
  },
  (t) => [
    index('forum_posts_topic_idx').on(t.topicId, t.createdAt),
    index('forum_posts_root_idx').on(t.rootId),
    // A member's posts, newest first: their profile's counts and latest posts (member-activity.ts).
    index('forum_posts_author_idx').on(t.authorId, t.createdAt),
    // Top-level posts in threaded order: a page of threads without reading the replies in between.
    index('forum_posts_threads_idx')
      .on(t.topicId, t.createdAt, t.id)
      .where(sql`${t.parentId} is null`),
    index('forum_posts_search_idx').using('gin', sql`to_tsvector('english', ${t.bodyText})`),
  ],
);

/** One like of a post by a member; a member likes a post at most once. */
export const forumPostLikes = pgTable(
  'forum_post_likes',
  {
    postId: text('post_id')
      .notNull()
      .references(() => forumPosts.id, { onDelete: 'cascade' }),
    memberId: text('member_id')
      .notNull()
      .references(() => forumMembers.id, { onDelete: 'cascade' }),
    siteId: siteRef(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.postId, t.memberId] }),
    index('forum_post_likes_member_idx').on(t.memberId, t.createdAt),
  ],
);

/**
 * How far a member has read a topic: up to the post created at `last_read_at`. A topic is unread
 * for the member while its last post is newer (or it has no mark).
 */
export const forumTopicReads = pgTable(
  'forum_topic_reads',
  {
    memberId: text('member_id')
      .notNull()
      .references(() => forumMembers.id, { onDelete: 'cascade' }),
    topicId: text('topic_id')
      .notNull()
      .references(() => forumTopics.id, { onDelete: 'cascade' }),
    siteId: siteRef(),
    lastReadPostId: text('last_read_post_id').notNull(),
    lastReadAt: timestamp('last_read_at', { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.memberId, t.topicId] }), index('forum_topic_reads_topic_idx').on(t.topicId)],
);

export const NOTIFICATION_KINDS = ['reply', 'mention', 'like'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/**
 * What a member is told about in the forum: a reply to its topic or post, a mention, a like. One
 * like notification per post and liker, however often the like is taken back and given again.
 */
export const forumNotifications = pgTable(
  'forum_notifications',
  {
    id: text('id').primaryKey(),
    siteId: siteRef(),
    memberId: text('member_id')
      .notNull()
      .references(() => forumMembers.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: NOTIFICATION_KINDS }).notNull(),
    topicId: text('topic_id')
      .notNull()
      .references(() => forumTopics.id, { onDelete: 'cascade' }),
    postId: text('post_id')
      .notNull()
      .references(() => forumPosts.id, { onDelete: 'cascade' }),
    actorId: text('actor_id').references(() => forumMembers.id, { onDelete: 'set null' }),
    readAt: timestamp('read_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('forum_notifications_member_idx').on(t.memberId, t.createdAt),
    index('forum_notifications_unread_idx')
      .on(t.memberId, t.createdAt)
      .where(sql`${t.readAt} is null`),
    uniqueIndex('forum_notifications_like_key')
      .on(t.postId, t.actorId)
      .where(sql`${t.kind} = 'like'`),
    // What a deleted topic or post cascades through (docs/decisions/0107-cascades-through-indexes.md).
    index('forum_notifications_topic_idx').on(t.topicId),
    index('forum_notifications_post_idx').on(t.postId),
  ],
);

/**
 * One row per community, moved by triggers whenever what a member may see changes without a write
 * to its notifications or read marks: a post deleted or restored, a topic hidden, shown or moved, a
 * forum's visibility changed or a forum deleted. With the members' versions, what the counts a node
 * keeps are checked against (docs/decisions/0106-counts-kept-per-node.md).
 */
export const forumVisibilityVersions = pgTable('forum_visibility_versions', {
  siteId: text('site_id')
    .primaryKey()
    .references(() => sites.id, { onDelete: 'cascade' }),
  version: bigint('version', { mode: 'number' }).notNull().default(0),
});

/**
 * One row per topic whose posts were ever written, moved by a trigger on every statement that
 * inserts, changes or deletes any of its posts (likes and cascades included). A node keeps pages of
 * a topic's posts while it stays put (docs/decisions/0109-topic-pages-kept-per-node.md). No foreign
 * key: a trigger on topics drops the row of a deleted topic after its posts went, so a post never
 * waits for a lock a topic delete holds here.
 */
export const forumTopicVersions = pgTable('forum_topic_versions', {
  topicId: text('topic_id').primaryKey(),
  version: bigint('version', { mode: 'number' }).notNull().default(0),
});

/**
 * How often a topic's page was read (topic-views.ts, decision 0147). Beside forum_topics, not a
 * column of it: a write to a topic's row moves its forum's list version, and a page view must never
 * end the list pages nodes keep.
 */
export const forumTopicViews = pgTable('forum_topic_views', {
  topicId: text('topic_id')
    .primaryKey()
    .references(() => forumTopics.id, { onDelete: 'cascade' }),
  siteId: siteRef(),
  views: integer('views').notNull().default(0),
});

/**
 * One row per community, moved by a trigger when a member's name or avatar changes: how authors are
 * shown on the pages of posts a node keeps (decision 0109).
 */
export const forumAuthorVersions = pgTable('forum_author_versions', {
  siteId: text('site_id')
    .primaryKey()
    .references(() => sites.id, { onDelete: 'cascade' }),
  version: bigint('version', { mode: 'number' }).notNull().default(0),
});

export const FLAG_REASONS = ['spam', 'inappropriate', 'off_topic', 'other'] as const;
export const FLAG_STATES = ['open', 'hidden', 'dismissed'] as const;

/**
 * A member's report of a post for the moderators' queue. One open flag per member and post; a
 * moderator's decision (hide the post, or dismiss) closes every open flag of that post at once.
 */
export const forumFlags = pgTable(
  'forum_flags',
  {
    id: text('id').primaryKey(),
    siteId: siteRef(),
    postId: text('post_id')
      .notNull()
      .references(() => forumPosts.id, { onDelete: 'cascade' }),
    reporterId: text('reporter_id').references(() => forumMembers.id, { onDelete: 'set null' }),
    reason: text('reason', { enum: FLAG_REASONS }).notNull(),
    note: text('note'),
    state: text('state', { enum: FLAG_STATES }).notNull().default('open'),
    resolvedById: text('resolved_by_id').references(() => forumMembers.id, { onDelete: 'set null' }),
    resolvedAt: timestamp('resolved_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('forum_flags_queue_idx').on(t.siteId, t.state, t.createdAt),
    index('forum_flags_post_idx').on(t.postId),
    uniqueIndex('forum_flags_open_key')
      .on(t.postId, t.reporterId)
      .where(sql`${t.state} = 'open'`),
  ],
);

/**
 * Web UI sessions of community members (cookie `blume_member` on the site host). Like account
 * sessions, the cookie is `<id>.<secret>` and only the secret's SHA-256 is stored.
 */
export const forumSessions = pgTable(
  'forum_sessions',
  {
    id: text('id').primaryKey(),
    siteId: siteRef(),
    memberId: text('member_id')
      .notNull()
      .references(() => forumMembers.id, { onDelete: 'cascade' }),
    secretHash: text('secret_hash').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('forum_sessions_member_idx').on(t.memberId)],
);

/**
 * Single-use links mailed to a member: `confirm` (the e-mail address) and `reset` (the password).
 * The link carries `<id>.<secret>`; only the secret's SHA-256 is stored.
 */
export const forumMemberTokens = pgTable(
  'forum_member_tokens',
  {
    id: text('id').primaryKey(),
    siteId: siteRef(),
    memberId: text('member_id')
      .notNull()
      .references(() => forumMembers.id, { onDelete: 'cascade' }),
    purpose: text('purpose', { enum: ['confirm', 'reset'] }).notNull(),
    secretHash: text('secret_hash').notNull(),
    /** The address the link went to: a link confirms that address only. */
    email: text('email').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (t) => [index('forum_member_tokens_member_idx').on(t.memberId, t.purpose)],
);

/** E-mails collected on named waitlists (`service_key`), once per key and address. */
export const waitlistEntries = pgTable(
  'waitlist_entries',
  {
    id: text('id').primaryKey(),
    siteId: siteRef(),
    serviceKey: text('service_key').notNull(),
    email: text('email').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('waitlist_entries_key').on(t.siteId, t.serviceKey, sql`lower(${t.email})`)],
);

export const MOD_ACTIONS = ['hide', 'dismiss', 'warn', 'suspend', 'unsuspend', 'approve', 'reject'] as const;

/**
 * The moderation audit log: who did what to whom and to which post, when. Rows outlive the members
 * and posts they name (no foreign keys on the targets), so the record stays. A `warn` row is also
 * the warning the member sees until it acknowledges it.
 */
export const forumModActions = pgTable(
  'forum_mod_actions',
  {
    id: text('id').primaryKey(),
    siteId: siteRef(),
    action: text('action', { enum: MOD_ACTIONS }).notNull(),
    actorId: text('actor_id').references(() => forumMembers.id, { onDelete: 'set null' }),
    /** Usernames as they were, so the log reads the same after a deletion. */
    actorName: text('actor_name').notNull(),
    targetMemberId: text('target_member_id'),
    targetName: text('target_name'),
    postId: text('post_id'),
    flagId: text('flag_id'),
    reason: text('reason'),
    /** The end of a suspension (null: indefinite). */
    until: timestamp('until', { withTimezone: true }),
    /** When the warned member acknowledged a warning. */
    acknowledgedAt: timestamp('acknowledged_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('forum_mod_actions_site_idx').on(t.siteId, t.createdAt),
    index('forum_mod_actions_target_idx').on(t.targetMemberId, t.action, t.createdAt),
  ],
);

/**
 * Posts held for a moderator (FORUM_HOLD_FIRST_POSTS): a member's first topic or reply waits here,
 * outside `forum_posts`, so no read of topics and posts can show it; approving writes it as a new
 * topic or reply, rejecting deletes it (the audit log keeps the decision).
 */
export const forumHeldPosts = pgTable(
  'forum_held_posts',
  {
    id: text('id').primaryKey(),
    siteId: siteRef(),
    authorId: text('author_id')
      .notNull()
      .references(() => forumMembers.id, { onDelete: 'cascade' }),
    /** A new topic names its forum and title; a reply its topic (and parent post). */
    forumId: text('forum_id').references(() => forums.id, { onDelete: 'cascade' }),
    title: text('title'),
    topicId: text('topic_id').references(() => forumTopics.id, { onDelete: 'cascade' }),
    parentId: text('parent_id'),
    bodySource: text('body_source').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('forum_held_posts_site_idx').on(t.siteId, t.createdAt),
    index('forum_held_posts_author_idx').on(t.authorId),
    index('forum_held_posts_topic_idx').on(t.topicId),
  ],
);

export type ForumModActionRow = typeof forumModActions.$inferSelect;
export type ForumHeldPostRow = typeof forumHeldPosts.$inferSelect;
export type ForumMemberRow = typeof forumMembers.$inferSelect;
export type ForumCategoryRow = typeof forumCategories.$inferSelect;
export type ForumRow = typeof forums.$inferSelect;
export type ForumTopicRow = typeof forumTopics.$inferSelect;
export type ForumPostRow = typeof forumPosts.$inferSelect;
export type ForumFlagRow = typeof forumFlags.$inferSelect;
export type ForumNotificationRow = typeof forumNotifications.$inferSelect;
export type ForumTopicReadRow = typeof forumTopicReads.$inferSelect;
export type ForumSessionRow = typeof forumSessions.$inferSelect;
export type ForumMemberTokenRow = typeof forumMemberTokens.$inferSelect;
export type WaitlistEntryRow = typeof waitlistEntries.$inferSelect;

/**
 * Files members upload for their posts (docs/decisions/0082-forum-uploads.md): one blob each at
 * `forum-uploads/{id}`, images stored without their metadata.
 */
export const forumUploads = pgTable(
  'forum_uploads',
  {
    id: text('id').primaryKey(),
    siteId: siteRef(),
    /** Who uploaded it; kept (null) when the member is deleted, as the posts showing it are. */
    memberId: text('member_id').references(() => forumMembers.id, { onDelete: 'set null' }),
    filename: text('filename').notNull(),
    contentType: text('content_type').notNull(),
    kind: text('kind', { enum: ['image', 'file'] }).notNull(),
    size: integer('size').notNull(),
    /** Hex SHA-256 of the stored bytes (the served ETag). */
    sha256: text('sha256').notNull(),
    width: integer('width'),
    height: integer('height'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('forum_uploads_member_idx').on(t.siteId, t.memberId, t.createdAt)],
);
export type UploadRow = typeof forumUploads.$inferSelect;

/**
 * What a member is writing and has not posted yet (docs/decisions/0094-forum-composer.md): one draft
 * per member and key, `topic-{id}` for a reply to a topic, `forum-{id}` for a new topic in a forum.
 * Posting deletes it.
 */
export const forumDrafts = pgTable(
  'forum_drafts',
  {
    memberId: text('member_id')
      .notNull()
      .references(() => forumMembers.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    siteId: siteRef(),
    /** A new topic's title; null for replies. */
    title: text('title'),
    body: text('body').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.memberId, t.key] })],
);
export type ForumDraftRow = typeof forumDrafts.$inferSelect;
export const topicDraftKey = (topicId: string): string => `topic-${topicId}`;
export const forumDraftKey = (forumId: string): string => `forum-${forumId}`;
