// Rate limits counted in the shared cache, so every node agrees and one bucket can span several
// routes (the rate-limit plugin keeps one store per route). The plugin still serves limits that are
// per route by nature, such as login, and counts them in the same cache (`sharedCacheStore`): while
// Redis fails or does not answer, every limit counts per node (decisions 0070, 0113).
import type { FastifyRateLimitOptions, FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
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
  const { count, resetInMs } = await cache.increment(`rate:${key}`, windowSeconds);
  if (count > max) {
    throw new AppError(
      'rate_limited',
      `At most ${max} ${what} per ${windowSeconds} s; try again shortly.`,
      {},
      { 'Retry-After': String(Math.max(1, Math.ceil(resetInMs / 1000))) },
    );
  }
}

/**
 * Counts one use of `key` like `consumeRateLimit`, answering false once more than `max` fall in the
 * window instead of throwing: for budgets whose refusal must look like success (mails asked for an
 * account, which must not tell a stranger that the account exists).
 */
export async function withinRateLimit(cache: Cache, key: string, max: number, windowSeconds: number): Promise<boolean> {
  return (await cache.increment(`rate:${key}`, windowSeconds)).count <= max;
}

/** The rate-limit plugin's store, counting in `cache` under `rate:route:`, one window per route. */
export function sharedCacheStore(cache: Cache): FastifyRateLimitStoreCtor {
  class SharedCacheStore implements FastifyRateLimitStore {
    constructor(
      _options: FastifyRateLimitOptions,
      private readonly namespace = 'rate:route:',
    ) {}

    incr(
      key: string,
      callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
      timeWindow: number,
    ): void {
      cache.increment(`${this.namespace}${key}`, Math.max(1, Math.ceil(timeWindow / 1000))).then(
        ({ count, resetInMs }) => callback(null, { current: count, ttl: resetInMs }),
        (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
      );
    }

    child(options: RouteOptions & { routeInfo?: RouteOptions }): FastifyRateLimitStore {
      // The plugin passes the route's merged limit options, with the route itself under `routeInfo`.
      const route = options.routeInfo ?? options;
      return new SharedCacheStore({}, `${this.namespace}${String(route.method)}${route.url}-`);
    }
  }
  return SharedCacheStore;
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
