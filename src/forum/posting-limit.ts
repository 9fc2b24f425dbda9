// One posting budget per member for every write (topics, replies, edits, flags), from the API and
// the web UI alike, so several tokens or sessions of one member do not multiply it. New members
// (trust level 0) also spend an hourly budget (FORUM_NEW_MEMBER_POSTS_PER_HOUR), and every client
// address a per-minute one, so many fresh accounts from one place do not multiply it either.
import type { FastifyInstance } from 'fastify';
import { consumeRateLimit } from '../http/rate-limit.js';
import { isStaff, type MemberViewer } from './policy.js';
import { trustRules } from './trust.js';

const POSTING_WINDOW_SECONDS = 60;
/** One address may write as much as this many busy members per minute (shared offices, NAT). */
const MEMBERS_PER_ADDRESS = 5;

export async function spendPostingBudget(
  app: FastifyInstance,
  siteId: string,
  viewer: MemberViewer,
  ip: string,
): Promise<void> {
  const { config, cache } = app.deps;
  const perMinute = config.rateLimit.postsPerMinute;
  await consumeRateLimit(
    cache.cache,
    `forum:posting:${siteId}:${viewer.member.id}`,
    perMinute,
    POSTING_WINDOW_SECONDS,
    'posts',
  );
  if (isStaff(viewer)) return;
  await consumeRateLimit(
    cache.cache,
    `forum:posting-ip:${siteId}:${ip}`,
    perMinute * MEMBERS_PER_ADDRESS,
    POSTING_WINDOW_SECONDS,
    'posts from this address',
  );
  if (viewer.member.trustLevel === 0) {
    const { newMemberPostsPerHour } = trustRules(await app.instanceSettings.applied(siteId));
    await consumeRateLimit(
      cache.cache,
      `forum:posting-new:${siteId}:${viewer.member.id}`,
      newMemberPostsPerHour,
      3600,
      'posts of a new member',
    );
  }
}
