// One posting budget per member for every write (topics, replies, edits), from the API and the web
// UI alike, counted in the shared cache so all nodes agree and several tokens or sessions of one
// member do not multiply it. The rate-limit plugin keeps one store per route, so it cannot share a
// bucket across routes.
import type { FastifyInstance } from 'fastify';
import { AppError } from '../http/errors.js';

const POSTING_WINDOW_SECONDS = 60;

export async function spendPostingBudget(app: FastifyInstance, siteId: string, memberId: string): Promise<void> {
  const postsPerMinute = app.deps.config.rateLimit.postsPerMinute;
  const { cache, prefix } = app.deps.cache;
  const used = await cache.increment(`${prefix}forum:posting:${siteId}:${memberId}`, POSTING_WINDOW_SECONDS);
  if (used > postsPerMinute) {
    throw new AppError('rate_limited', `At most ${postsPerMinute} posts a minute; try again shortly.`, {}, { 'Retry-After': String(POSTING_WINDOW_SECONDS) });
  }
}
