// The one visibility policy of a community: what a guest, member, moderator or admin may see and do.
// Every list, detail, count and search query takes its SQL conditions from here, and every single
// read checks the same rules; things a viewer may not see answer 404, as if they did not exist.
import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { AppError } from '../http/errors.js';
import { forums, forumTopics, type ForumMemberRow, type ForumRow, type ForumTopicRow } from './tables.js';

export type Role = ForumMemberRow['role'];
type Visibility = ForumRow['visibility'];

export type MemberViewer = { kind: 'member'; member: ForumMemberRow; role: Role };
export type Viewer = { kind: 'guest' } | MemberViewer;

export const GUEST: Viewer = { kind: 'guest' };

export function isStaff(viewer: Viewer): boolean {
  return viewer.kind === 'member' && (viewer.role === 'admin' || viewer.role === 'moderator');
}

export function isAdmin(viewer: Viewer): boolean {
  return viewer.kind === 'member' && viewer.role === 'admin';
}

/** Forum visibility levels the viewer may see. */
function visibleLevels(viewer: Viewer): Visibility[] {
  if (isStaff(viewer)) return ['public', 'members', 'staff'];
  return viewer.kind === 'member' ? ['public', 'members'] : ['public'];
}

/**
 * The only thing about a viewer the SQL conditions below depend on: viewers of one class get the
 * same conditions, so a prepared statement built from them serves the whole class.
 */
export function visibilityClass(viewer: Viewer): 'guest' | 'member' | 'staff' {
  return isStaff(viewer) ? 'staff' : viewer.kind;
}

export function canSeeForum(viewer: Viewer, forum: Pick<ForumRow, 'visibility'>): boolean {
  return visibleLevels(viewer).includes(forum.visibility);
}

/** Hidden topics are moderation limbo: only staff see them. */
export function canSeeTopic(viewer: Viewer, forum: ForumRow, topic: ForumTopicRow): boolean {
  return canSeeForum(viewer, forum) && (!topic.hidden || isStaff(viewer));
}

/** SQL condition on `forums` for the forums the viewer may see. */
export function visibleForumsWhere(viewer: Viewer): SQL {
  return inArray(forums.visibility, visibleLevels(viewer));
}

/** SQL condition on `forum_topics` alone for the topics the viewer may see in a forum they may see. */
export function visibleTopicsOfForumWhere(viewer: Viewer): SQL | undefined {
  return isStaff(viewer) ? undefined : eq(forumTopics.hidden, false);
}

/** SQL condition on `forum_topics` (joined with `forums`) for the topics the viewer may see. */
export function visibleTopicsWhere(viewer: Viewer): SQL {
  return and(visibleForumsWhere(viewer), visibleTopicsOfForumWhere(viewer))!;
}

/** How many topics of the forum the viewer may see, from the forum's counters (kept by topics.ts). */
export function visibleTopicCount(
  viewer: Viewer,
  forum: Pick<ForumRow, 'visibility' | 'topicCount' | 'hiddenTopicCount'>,
): number {
  if (!canSeeForum(viewer, forum)) return 0;
  return isStaff(viewer) ? forum.topicCount : forum.topicCount - forum.hiddenTopicCount;
}

/** `visibleTopicCount` as SQL on `forums`, for a statement that sums it over the forums the viewer may see. */
export function visibleTopicCountSql(viewer: Viewer): SQL<number> {
  return isStaff(viewer)
    ? sql<number>`${forums.topicCount}`
    : sql<number>`${forums.topicCount} - ${forums.hiddenTopicCount}`;
}

/** How many live posts of the forum the viewer may see, from the forum's counters (kept by topics.ts). */
export function visiblePostCount(
  viewer: Viewer,
  forum: Pick<ForumRow, 'visibility' | 'postCount' | 'hiddenPostCount'>,
): number {
  if (!canSeeForum(viewer, forum)) return 0;
  return isStaff(viewer) ? forum.postCount : forum.postCount - forum.hiddenPostCount;
}

export function requireMember(viewer: Viewer): asserts viewer is MemberViewer {
  if (viewer.kind !== 'member')
    throw new AppError('authentication_required', 'Send a forum token in the `Authentication-Token` header.');
}

/**
 * Members who signed up themselves post once they confirmed their e-mail address; until then they
 * read (docs/decisions/0016-forum-mail.md).
 */
export function requirePoster(viewer: Viewer): asserts viewer is MemberViewer {
  requireMember(viewer);
  if (!viewer.member.emailConfirmed)
    throw new AppError(
      'email_unconfirmed',
      'Confirm your e-mail address before posting: follow the link in the mail we sent you.',
    );
}

/** Locked forums take new topics from staff only. */
export function authorizeNewTopic(viewer: Viewer, forum: ForumRow): asserts viewer is MemberViewer {
  requirePoster(viewer);
  if (forum.locked && !isStaff(viewer))
    throw new AppError('forum_locked', 'The forum is locked: only moderators may start topics.');
}

/** Locked topics (or topics in locked forums) take replies from staff only. */
export function authorizeReply(viewer: Viewer, forum: ForumRow, topic: ForumTopicRow): asserts viewer is MemberViewer {
  requirePoster(viewer);
  if ((topic.locked || forum.locked) && !isStaff(viewer))
    throw new AppError('topic_locked', 'The topic is locked: it takes no more replies.');
}

/** Authors edit and delete their own posts; staff any post. */
export function authorizePostChange(viewer: Viewer, authorId: string | null): asserts viewer is MemberViewer {
  requireMember(viewer);
  if (!isStaff(viewer) && viewer.member.id !== authorId)
    throw new AppError('forbidden', 'Only the author or a moderator may change this post.');
}

export function authorizeModeration(viewer: Viewer): asserts viewer is MemberViewer {
  requireMember(viewer);
  if (!isStaff(viewer)) throw new AppError('forbidden', 'Only moderators and admins may do this.');
}

/**
 * Staff ban members from the web UI: moderators ban plain members, admins anyone but the site
 * owner (whose membership follows the site); nobody bans themselves.
 */
export function authorizeBan(viewer: Viewer, target: ForumMemberRow, targetRole: Role): asserts viewer is MemberViewer {
  authorizeModeration(viewer);
  if (viewer.member.id === target.id) throw new AppError('forbidden', 'You cannot ban yourself.');
  if (targetRole !== 'member' && !isAdmin(viewer))
    throw new AppError('forbidden', 'Only admins may ban moderators and admins.');
}

/** Structure (categories, forums), members and waitlists are the instance admins' business. */
export function authorizeAdmin(viewer: Viewer): asserts viewer is MemberViewer {
  requireMember(viewer);
  if (!isAdmin(viewer)) throw new AppError('forbidden', 'Only admins of this community may do this.');
}
