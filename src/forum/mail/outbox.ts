// The forum's mail outbox: rows written in the transaction that causes a mail (forum_mail_outbox),
// drained by this worker after commit. Requests never wait on SMTP: they enqueue, commit, and nudge
// the worker; a timer retries what failed (an SMTP server that was down) with growing delays.
import { and, asc, eq, inArray, lt, lte, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Mailer, OutgoingMail } from '../../adapters/mail/index.js';
import type { Executor } from '../../db/client.js';
import { newId } from '../../lib/ids.js';
import { forumMailOutbox, type ForumMailOutboxRow } from '../tables.js';

/** Attempts per mail before it is left for the operator (with its last error). */
export const MAX_MAIL_ATTEMPTS = 6;
/** A claimed mail is not claimed again for this long, so a worker that died mid-send is retried. */
const CLAIM_LEASE_SECONDS = 300;
const BATCH = 20;
const SWEEP_MS = 30_000;

export type OutboxKind = ForumMailOutboxRow['kind'];

/** Writes one mail to the outbox; call it inside the transaction whose commit should send it. */
export async function enqueueMail(db: Executor, siteId: string, kind: OutboxKind, message: OutgoingMail): Promise<void> {
  await db.insert(forumMailOutbox).values({ id: newId(), siteId, kind, message });
}

/** Seconds to wait after the given failed attempt: 1 min, 4 min, 16 min, ... capped at 6 h. */
function backoffSeconds(attempts: number): number {
  return Math.min(60 * 4 ** Math.max(attempts - 1, 0), 6 * 3600);
}

/** A time on the database clock, so every node agrees on when a mail is due. */
function inSeconds(seconds: number) {
  // An integer we computed, never input: inlined so both drivers see a plain interval literal.
  return sql.raw(`now() + interval '${Math.trunc(seconds)} seconds'`);
}

export class MailOutbox {
  private running: Promise<void> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly db: Executor,
    private readonly mailer: Mailer,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Whether mail can go out at all; features skip enqueuing (and say so) when it cannot. */
  get enabled(): boolean {
    return this.mailer.driver !== 'disabled';
  }

  /** Retries failed mail every half minute until `stop`. */
  start(): void {
    if (this.timer || !this.enabled) return;
    this.stopped = false;
    this.timer = setInterval(() => this.drainSoon(), SWEEP_MS);
    // The sweep alone must not keep a finished process (a CLI command, a test) alive.
    this.timer.unref();
    this.drainSoon();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.idle();
  }

  /** Starts a drain now, or another one right after the running one (which may have missed new rows). */
  drainSoon(): void {
    if (!this.enabled || this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drainLoop().finally(() => {
      this.running = undefined;
    });
  }

  /** Resolves when no drain is running (tests wait on it before asserting that nothing was sent). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drainLoop(): Promise<void> {
    do {
      this.again = false;
      try {
        while (!this.stopped && (await this.drainBatch()) === BATCH);
      } catch (error) {
        // The database may be going away (shutdown); the next sweep tries again.
        this.log.error({ err: error }, 'mail outbox: drain failed');
      }
    } while (this.again && !this.stopped);
  }

  /** Claims up to BATCH due mails and sends them; answers how many it claimed. */
  private async drainBatch(): Promise<number> {
    const claimed = await this.db.transaction(async (tx) => {
      const due = await tx
        .select({ id: forumMailOutbox.id })
        .from(forumMailOutbox)
        .where(and(lt(forumMailOutbox.attempts, MAX_MAIL_ATTEMPTS), lte(forumMailOutbox.nextAttemptAt, sql`now()`)))
        .orderBy(asc(forumMailOutbox.createdAt), asc(forumMailOutbox.id))
        .limit(BATCH)
        .for('update', { skipLocked: true });
      if (due.length === 0) return [];
      return tx
        .update(forumMailOutbox)
        .set({ attempts: sql`${forumMailOutbox.attempts} + 1`, nextAttemptAt: inSeconds(CLAIM_LEASE_SECONDS) })
        .where(inArray(forumMailOutbox.id, due.map((row) => row.id)))
        .returning();
    });
    for (const row of claimed) await this.sendOne(row);
    return claimed.length;
  }

  private async sendOne(row: ForumMailOutboxRow): Promise<void> {
    try {
      await this.mailer.send(row.message);
      // Sent mail is not kept: the outbox is a queue, and reset links should not linger in the database.
      await this.db.delete(forumMailOutbox).where(eq(forumMailOutbox.id, row.id));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const final = row.attempts >= MAX_MAIL_ATTEMPTS;
      this.log.error({ err: error, mail: row.id, kind: row.kind, attempt: row.attempts }, final ? 'mail outbox: giving up on a mail' : 'mail outbox: send failed, will retry');
      await this.db
        .update(forumMailOutbox)
        .set({ lastError: message.slice(0, 1000), nextAttemptAt: inSeconds(backoffSeconds(row.attempts)) })
        .where(eq(forumMailOutbox.id, row.id));
    }
  }
}
