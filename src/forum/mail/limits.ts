// Per-account budgets for mails members ask for (reset links, confirmation resends), counted in the
// shared cache like the posting budget. Going over is silent for resets: a different answer would
// tell a stranger that the account exists.
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../http/errors.js';
import { consumeRateLimit } from '../../http/rate-limit.js';

export const MAILS_PER_ACCOUNT_PER_HOUR = 5;

/** Spends one mail of the member's hourly budget; false when it is used up. */
export async function spendAccountMailBudget(app: FastifyInstance, purpose: 'reset' | 'confirm', siteId: string, memberId: string): Promise<boolean> {
  try {
    await consumeRateLimit(app.deps.cache.cache, `forum:mail:${purpose}:${siteId}:${memberId}`, MAILS_PER_ACCOUNT_PER_HOUR, 3600, 'mails');
    return true;
  } catch (error) {
    if (error instanceof AppError && error.code === 'rate_limited') return false;
    throw error;
  }
}
