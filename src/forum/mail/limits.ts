// Per-account budgets for mails members ask for (reset links, confirmation resends), counted in the
// shared cache like the posting budget. Going over is silent for resets: a different answer would
// tell a stranger that the account exists.
import type { FastifyInstance } from 'fastify';
import { withinRateLimit } from '../../http/rate-limit.js';
import { ASKED_MAILS_PER_HOUR } from '../../jobs/mail-outbox.js';

/** Spends one mail of the member's hourly budget; false when it is used up. */
export function spendAccountMailBudget(
  app: FastifyInstance,
  purpose: 'reset' | 'confirm',
  siteId: string,
  memberId: string,
): Promise<boolean> {
  return withinRateLimit(
    app.deps.cache.cache,
    `forum:mail:${purpose}:${siteId}:${memberId}`,
    ASKED_MAILS_PER_HOUR,
    3600,
  );
}
