// Everything the Forum API sends out about forum things, field by field. Password hashes, body
// sources of deleted posts and credential secrets never pass through here.
import type { SiteRow } from '../core/sites/tables.js';
import { memberAvatarUrl } from './avatars.js';
import type { FlagView } from './flags.js';
import type { HeldPostView } from './held-posts.js';
import type { LikeState } from './likes.js';
import type { NotificationView } from './notifications.js';
import { effectiveRole } from './members.js';
import { activeSuspension } from './moderation.js';
import type { SearchHit } from './search.js';
import type {
  CategoryOut,
  FlagOut,
  ForumOut,
  HeldPostOut,
  LikeOut,
  MemberOut,
  MemberRefOut,
  ModActionOut,
  NotificationOut,
  PostOut,
  SearchHitOut,
  ThreadedPostOut,
  TopicOut,
  WaitlistEntryOut,
  WarningOut,
} from './schemas.js';
import type { ForumWithStats } from './structure.js';
import type { ForumCategoryRow, ForumMemberRow, ForumModActionRow, WaitlistEntryRow } from './tables.js';
import type { PostNode, PostView, TopicView } from './topics.js';
import type { Author } from './avatars.js';

/** A member as posts, topics, flags and notifications name it, with its avatar. */
function presentAuthor(author: Author): MemberRefOut;
function presentAuthor(author: Author | null): MemberRefOut | null;
function presentAuthor(author: Author | null): MemberRefOut | null {
  return author ? { id: author.id, username: author.username, avatar_url: memberAvatarUrl(author) } : null;
}

export function presentCategory(row: ForumCategoryRow): CategoryOut {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    position: row.position,
    created_at: row.createdAt.toISOString(),
  };
}

export function presentForum({ forum, stats }: ForumWithStats): ForumOut {
  return {
    id: forum.id,
    slug: forum.slug,
    name: forum.name,
    description: forum.description,
    category_id: forum.categoryId,
    position: forum.position,
    visibility: forum.visibility,
    locked: forum.locked,
    topic_count: stats.topicCount,
    post_count: stats.postCount,
    last_post_at: stats.lastPostAt?.toISOString() ?? null,
    created_at: forum.createdAt.toISOString(),
  };
}

export function presentTopic({ topic, author }: TopicView): TopicOut {
  return {
    id: topic.id,
    forum_id: topic.forumId,
    title: topic.title,
    slug: topic.slug,
    author: presentAuthor(author),
    pinned: topic.pinned,
    locked: topic.locked,
    hidden: topic.hidden,
    post_count: topic.postCount,
    reply_count: Math.max(topic.postCount - 1, 0),
    last_post_at: topic.lastPostAt.toISOString(),
    created_at: topic.createdAt.toISOString(),
  };
}

/** Deleted posts stay as tombstones: place and time kept, author and content gone. */
export function presentPost({ post, author }: PostView): PostOut {
  const deleted = post.deletedAt !== null;
  return {
    id: post.id,
    topic_id: post.topicId,
    parent_id: post.parentId,
    author: deleted ? null : presentAuthor(author),
    body: deleted ? '' : post.bodySource,
    body_html: deleted ? '' : post.bodyHtml,
    deleted,
    like_count: post.likeCount,
    created_at: post.createdAt.toISOString(),
    edited_at: post.editedAt?.toISOString() ?? null,
  };
}

export function presentThreadedPost(node: PostNode): ThreadedPostOut {
  return { ...presentPost(node), replies: node.replies.map(presentThreadedPost) };
}

/** What a like or unlike leaves. */
export function presentLike(state: LikeState): LikeOut {
  return { like_count: state.likeCount, liked: state.liked };
}

export function presentFlag({ flag, reporter, resolvedBy, post }: FlagView): FlagOut {
  return {
    id: flag.id,
    post_id: flag.postId,
    topic_id: post.post.topicId,
    reason: flag.reason,
    note: flag.note,
    state: flag.state,
    reporter: presentAuthor(reporter),
    resolved_by: presentAuthor(resolvedBy),
    resolved_at: flag.resolvedAt?.toISOString() ?? null,
    created_at: flag.createdAt.toISOString(),
    post: presentPost(post),
  };
}

export function presentNotification({ notification, actor }: NotificationView): NotificationOut {
  return {
    id: notification.id,
    kind: notification.kind,
    topic_id: notification.topicId,
    post_id: notification.postId,
    actor: presentAuthor(actor),
    read: notification.readAt !== null,
    created_at: notification.createdAt.toISOString(),
  };
}

export function presentSearchHit(hit: SearchHit): SearchHitOut {
  return {
    topic: presentTopic(hit),
    post_id: hit.postId,
    excerpt: hit.excerpt,
    excerpt_html: hit.excerptHtml,
    title_html: hit.titleHtml,
    rank: hit.rank,
  };
}

export function presentMember(site: SiteRow, row: ForumMemberRow): MemberOut {
  return {
    id: row.id,
    username: row.username,
    email: row.email,
    avatar_url: memberAvatarUrl({ username: row.username, avatar: row.avatarUploadId }),
    role: effectiveRole(site, row),
    banned: row.banned,
    trust_level: row.trustLevel,
    suspension: suspensionOut(row),
    site_owner: row.userId !== null && row.userId === site.ownerId,
    created_at: row.createdAt.toISOString(),
  };
}

function suspensionOut(row: ForumMemberRow): MemberOut['suspension'] {
  const suspension = activeSuspension(row);
  return suspension ? { until: suspension.until?.toISOString() ?? null, reason: suspension.reason } : null;
}

export function presentModAction(row: ForumModActionRow): ModActionOut {
  return {
    id: row.id,
    action: row.action,
    moderator: { id: row.actorId, username: row.actorName },
    member: row.targetName ? { id: row.targetMemberId, username: row.targetName } : null,
    post_id: row.postId,
    flag_id: row.flagId,
    reason: row.reason,
    until: row.until?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
  };
}

export function presentWarning(row: ForumModActionRow): WarningOut {
  return {
    id: row.id,
    reason: row.reason,
    post_id: row.postId,
    acknowledged_at: row.acknowledgedAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
  };
}

export function presentWaitlistEntry(row: WaitlistEntryRow): WaitlistEntryOut {
  return { id: row.id, service_key: row.serviceKey, email: row.email, created_at: row.createdAt.toISOString() };
}

export function presentHeldPost({ held, author }: HeldPostView): HeldPostOut {
  return {
    id: held.id,
    state: 'held',
    kind: held.title !== null ? 'topic' : 'reply',
    forum_id: held.forumId,
    title: held.title,
    topic_id: held.topicId,
    parent_id: held.parentId,
    body: held.bodySource,
    author: presentAuthor(author),
    created_at: held.createdAt.toISOString(),
  };
}
