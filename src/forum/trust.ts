// The trust ladder (docs/decisions/0096-forum-moderation-and-trust.md): members who sign up start at
// trust level 0 (harder posting limits, links and images shown as text, no uploads) and reach level 1
// once they have posted and read a little. Staff are always trusted.
import { and, count, eq, isNull } from 'drizzle-orm';
import type { InstanceSettings } from '../core/settings/allowlist.js';
import type { Executor } from '../db/client.js';
import { AppError } from '../http/errors.js';
import { renderBody } from './markdown.js';
import { isStaff, type MemberViewer } from './policy.js';
import { forumMembers, forumPosts, forumTopicReads, type ForumMemberRow } from './tables.js';

interface TrustRules {
  /** Live posts (topics' opening posts included) a member writes before it is trusted. */
  minPosts: number;
  /** Topics a member opens (has a read mark in) before it is trusted. */
  minTopicsRead: number;
  /** Writes (posts, replies, edits, flags) a new member may make per hour. */
  newMemberPostsPerHour: number;
}

const DEFAULT_TRUST_RULES: TrustRules = { minPosts: 2, minTopicsRead: 5, newMemberPostsPerHour: 10 };

function count0(value: string | undefined, fallback: number): number {
  return value !== undefined && /^\d{1,6}$/.test(value) ? Number(value) : fallback;
}

export function trustRules(settings: InstanceSettings): TrustRules {
  const values = settings.values;
  return {
    minPosts: count0(values.FORUM_TRUST_MIN_POSTS, DEFAULT_TRUST_RULES.minPosts),
    minTopicsRead: count0(values.FORUM_TRUST_MIN_TOPICS_READ, DEFAULT_TRUST_RULES.minTopicsRead),
    newMemberPostsPerHour: count0(values.FORUM_NEW_MEMBER_POSTS_PER_HOUR, DEFAULT_TRUST_RULES.newMemberPostsPerHour),
  };
}

/** Whether the viewer's posts show links and images: staff and trusted members. */
export function linksAllowed(viewer: MemberViewer): boolean {
  return isStaff(viewer) || viewer.member.trustLevel > 0;
}

/** Refuses what new members may not do yet (uploads), saying what gets them there. */
export function requireTrusted(viewer: MemberViewer): void {
  if (!linksAllowed(viewer))
    throw new AppError(
      'trust_required',
      'New members can upload once they have read and posted a little in the community.',
    );
}

/**
 * Promotes a level-0 member who has now posted and read enough: the row given is updated too, and
 * the member's posts are rendered again, so their links show. Answers the member's level. Costs
 * two counts per request of a new member, nothing for anyone else.
 */
export async function reviewTrust(db: Executor, rules: TrustRules, member: ForumMemberRow): Promise<number> {
  if (member.trustLevel > 0) return member.trustLevel;
  const [[posts], [reads]] = await Promise.all([
    db
      .select({ n: count() })
      .from(forumPosts)
      .where(and(eq(forumPosts.authorId, member.id), isNull(forumPosts.deletedAt))),
    db.select({ n: count() }).from(forumTopicReads).where(eq(forumTopicReads.memberId, member.id)),
  ]);
  if ((posts?.n ?? 0) < rules.minPosts || (reads?.n ?? 0) < rules.minTopicsRead) return 0;
  await db.transaction(async (tx) => {
    const [promoted] = await tx
      .update(forumMembers)
      .set({ trustLevel: 1 })
      .where(and(eq(forumMembers.id, member.id), eq(forumMembers.trustLevel, 0)))
      .returning({ id: forumMembers.id });
    // Another request promoted the member first and rendered the posts again.
    if (!promoted) return;
    const held = await tx
      .select({ id: forumPosts.id, source: forumPosts.bodySource })
      .from(forumPosts)
      .where(and(eq(forumPosts.authorId, member.id), isNull(forumPosts.deletedAt)));
    for (const post of held) {
      const body = renderBody(post.source);
      await tx.update(forumPosts).set({ bodyHtml: body.html, bodyText: body.text }).where(eq(forumPosts.id, post.id));
    }
  });
  member.trustLevel = 1;
  return 1;
}
