// One posting budget per member for every write (topics, replies, edits), from the API and the web
// UI alike, so several tokens or sessions of one member do not multiply it.
import type { FastifyInstance } from 'fastify';
import { consumeRateLimit } from '../http/rate-limit.js';

const POSTING_WINDOW_SECONDS = 60;

export async function spendPostingBudget(app: FastifyInstance, siteId: string, memberId: string): Promise<void> {
  const { config, cache } = app.deps;
  await consumeRateLimit(cache.cache, `forum:posting:${siteId}:${memberId}`, config.rateLimit.postsPerMinute, POSTING_WINDOW_SECONDS, 'posts');
}
