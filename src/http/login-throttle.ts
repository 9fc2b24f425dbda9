// Login throttle (decision 0033), on top of the per-address rate limit of each login route: failed
// logins are counted per account name and per address in the shared cache, and past a few free
// failures each one locks further attempts for twice as long as the last, up to 15 minutes. A client
// that has logged in to the account before (it holds the account's known-client cookie) is never
// locked out, so an attacker guessing at an account cannot keep its real owner out; its successful
// login clears the account's count.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Cache } from '../adapters/cache/index.js';
import { AppError } from './errors.js';

export const KNOWN_CLIENT_COOKIE = 'blume_known_client';

/** Failures each key may have before attempts lock, and the longest lock. */
const FREE_FAILURES = { account: 5, address: 20 } as const;
const MAX_LOCK_SECONDS = 15 * 60;
/** How long failures are remembered after the first of a series. */
const MEMORY_SECONDS = 24 * 3600;
const KNOWN_CLIENT_DAYS = 365;

/** Where a login name lives: the portal's accounts, or one community's members. */
type LoginScope = 'portal' | `site:${string}`;

interface Subject {
  account: string;
  address: string;
  known: boolean;
}

export class LoginThrottle {
  /** The clock locks are measured by; a test moves it instead of waiting. */
  now: () => number = Date.now;

  constructor(
    private readonly cache: Cache,
    private readonly secretKey: string,
  ) {}

  /**
   * Throws 429 `login_locked` (with Retry-After) while the account name or the address is locked,
   * unless the client is known to the account. Call before checking the password.
   */
  async check(request: FastifyRequest, scope: LoginScope, login: string): Promise<void> {
    const subject = this.subject(request, scope, login);
    if (subject.known) return;
    const now = this.now();
    for (const key of [subject.account, subject.address]) {
      const until = Number((await this.cache.get(`${key}:until`)) ?? 0);
      if (until > now) {
        const seconds = Math.ceil((until - now) / 1000);
        throw new AppError(
          'login_locked',
          `Too many failed logins; try again in ${seconds} s, or from a device that logged in to this account before.`,
          {},
          {
            'Retry-After': String(seconds),
          },
        );
      }
    }
  }

  /** Counts a failed login; past the free failures, locks the next attempt with a doubling wait. */
  async failed(request: FastifyRequest, scope: LoginScope, login: string): Promise<void> {
    const subject = this.subject(request, scope, login);
    for (const [key, free] of [
      [subject.account, FREE_FAILURES.account],
      [subject.address, FREE_FAILURES.address],
    ] as const) {
      const { count: failures } = await this.cache.increment(`${key}:failures`, MEMORY_SECONDS);
      if (failures <= free) continue;
      const seconds = Math.min(2 ** (failures - free - 1), MAX_LOCK_SECONDS);
      await this.cache.set(`${key}:until`, String(this.now() + seconds * 1000), seconds);
    }
  }

  /** Clears the account's failures and marks the client as known to the account. */
  async succeeded(request: FastifyRequest, reply: FastifyReply, scope: LoginScope, login: string): Promise<void> {
    const subject = this.subject(request, scope, login);
    await this.cache.delete(`${subject.account}:failures`);
    await this.cache.delete(`${subject.account}:until`);
    reply.setCookie(KNOWN_CLIENT_COOKIE, this.knownClientProof(subject.account), {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: request.server.deps.config.production || request.protocol === 'https',
      maxAge: KNOWN_CLIENT_DAYS * 24 * 3600,
    });
  }

  private subject(request: FastifyRequest, scope: LoginScope, login: string): Subject {
    // The name as typed, case-folded and hashed: e-mail addresses do not sit in the cache in clear.
    const name = createHash('sha256').update(`${scope}\0${login.trim().toLowerCase()}`).digest('base64url');
    const account = `login:account:${name}`;
    const presented = request.cookies?.[KNOWN_CLIENT_COOKIE];
    const expected = this.knownClientProof(account);
    const known =
      presented !== undefined &&
      presented.length === expected.length &&
      timingSafeEqual(Buffer.from(presented), Buffer.from(expected));
    return { account, address: `login:address:${request.ip}`, known };
  }

  private knownClientProof(account: string): string {
    return createHmac('sha256', this.secretKey).update(`known-client\0${account}`).digest('base64url');
  }
}
