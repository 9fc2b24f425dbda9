// Rate limits counted in the shared cache, so every node agrees and one bucket can span several
// routes (the rate-limit plugin keeps one store per route). The plugin still serves limits that are
// per route by nature, such as login.
import type { FastifyRequest, onRequestHookHandler, RouteOptions } from 'fastify';
import type { Cache } from '../adapters/cache/index.js';
import { parseCredential } from '../lib/credential-format.js';
import { AppError } from './errors.js';

/** Counts one use of `key`; throws 429 `rate_limited` once more than `max` fall in the window. */
export async function consumeRateLimit(
  cache: Cache,
  key: string,
  max: number,
  windowSeconds: number,
  what = 'requests',
): Promise<void> {
  const used = await cache.increment(`rate:${key}`, windowSeconds);
  if (used > max) {
    throw new AppError(
      'rate_limited',
      `At most ${max} ${what} per ${windowSeconds} s; try again shortly.`,
      {},
      { 'Retry-After': String(windowSeconds) },
    );
  }
}

/**
 * Counts one use of `key` like `consumeRateLimit`, answering false once more than `max` fall in the
 * window instead of throwing: for budgets whose refusal must look like success (mails asked for an
 * account, which must not tell a stranger that the account exists).
 */
export async function withinRateLimit(cache: Cache, key: string, max: number, windowSeconds: number): Promise<boolean> {
  return (await cache.increment(`rate:${key}`, windowSeconds)) <= max;
}

/** Who a request counts against: the credential it presents, else its session, else its address. */
export function apiClientKey(request: FastifyRequest): string {
  const bearer = request.headers.authorization?.replace(/^bearer\s+/i, '');
  const forumToken = request.headers['authentication-token'];
  for (const presented of [bearer, typeof forumToken === 'string' ? forumToken : undefined]) {
    const parsed = presented ? parseCredential(presented) : undefined;
    if (parsed) return `cred:${parsed.id}`;
  }
  const session = request.cookies?.blume_session?.split('.')[0];
  if (session) return `session:${session}`;
  return `ip:${request.ip}`;
}

/**
 * onRoute hook: every `/api/` route without a limit of its own shares one bucket per client
 * (so one token cannot starve another behind the same address). Routes with stricter limits
 * (login, posting, waitlist) declare their own and are left alone.
 */
export function defaultApiRateLimit(maxPerMinute: number) {
  const limit: onRequestHookHandler = async (request) => {
    await consumeRateLimit(request.server.deps.cache.cache, `api:${apiClientKey(request)}`, maxPerMinute, 60);
  };
  return (route: RouteOptions): void => {
    const path = route.url ?? '';
    if (!path.startsWith('/api/') || path.endsWith('/openapi.json')) return;
    if ((route.config as { rateLimit?: unknown } | undefined)?.rateLimit !== undefined) return;
    const existing = route.onRequest ? [route.onRequest].flat() : [];
    route.onRequest = [limit, ...existing];
  };
}
