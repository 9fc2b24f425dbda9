// The mail outbox, a kind of the one job runner: a mail is a job written in the transaction that
// causes it and sent after commit. Every mail goes through it: the forum's and the help desk's, and
// the portal accounts' invitations and password links. Requests never wait on SMTP: they enqueue,
// commit, and nudge the worker; a failed send (an SMTP server that was down) is retried with growing
// delays, and a mail that failed every attempt stays as a failed job with its last error.
import type { FastifyBaseLogger } from 'fastify';
import type { Mailer, OutgoingMail } from '../adapters/mail/index.js';
import type { Executor } from '../db/client.js';
import { enqueueJob } from './queue.js';
import { JobWorker, type JobKind } from './worker.js';

/** Mails one person may ask for (reset links, confirmation resends) per hour, whatever the client. */
export const ASKED_MAILS_PER_HOUR = 5;

/** Attempts per mail before it is left for the operator (with its last error). */
const MAX_MAIL_ATTEMPTS = 6;
// The name from when only the forum sent mail; queued rows of older installations carry it.
export const MAIL_JOB = 'forum.mail';
const LEASE_MS = 60_000;
const SWEEP_MS = 30_000;

type OutboxKind =
  'confirm' | 'reset' | 'reply' | 'like' | 'digest' | 'helpdesk_reply' | 'account_invite' | 'account_reset';

/** A mail job's payload. */
export interface MailJob {
  kind: OutboxKind;
  message: OutgoingMail;
}

/**
 * Writes one mail to the outbox; call it inside the transaction whose commit should send it. A
 * site's mail (`siteId`) is dropped with the site; an account's mail (null) is not.
 */
export async function enqueueMail(
  db: Executor,
  siteId: string | null,
  kind: OutboxKind,
  message: OutgoingMail,
): Promise<void> {
  await enqueueJob(db, MAIL_JOB, { kind, message } satisfies MailJob, { siteId, maxAttempts: MAX_MAIL_ATTEMPTS });
}

/** Milliseconds to wait after the given failed attempt: 1 min, 4 min, 16 min, ... capped at 6 h. */
function retryDelayMs(attempt: number): number {
  return Math.min(60 * 4 ** Math.max(attempt - 1, 0), 6 * 3600) * 1000;
}

export class MailOutbox {
  private readonly jobs: JobWorker<MailJob>;

  constructor(
    db: Executor,
    private readonly mailer: Mailer,
    log: FastifyBaseLogger,
    options: { embeddedDatabase?: boolean } = {},
  ) {
    const kind: JobKind<MailJob> = {
      name: MAIL_JOB,
      // One at a time: mails leave in the order they were queued.
      concurrency: () => (this.enabled ? 1 : 0),
      leaseMs: LEASE_MS,
      pollMs: SWEEP_MS,
      retryDelayMs,
      take: (_tx, job) => Promise.resolve(job.payload as MailJob),
      // Sent mail is not kept: the job row goes, and reset links do not linger in the database.
      run: async (mail) => {
        await this.mailer.send(mail.message);
      },
      canceled: () => new Error('the mail was canceled'),
    };
    this.jobs = new JobWorker(db, kind, { logger: log, embeddedDatabase: options.embeddedDatabase ?? false });
  }

  /** Whether mail can go out at all; features skip enqueuing (and say so) when it cannot. */
  get enabled(): boolean {
    return this.mailer.driver !== 'disabled';
  }

  /** Sends due mail now and retries failed mail every half minute until `stop`. */
  async start(): Promise<void> {
    await this.jobs.start();
  }

  async stop(): Promise<void> {
    await this.jobs.stop();
  }

  /** Sends what is due now rather than at the next sweep (called after the enqueuing transaction commits). */
  drainSoon(): void {
    this.jobs.wake();
  }

  /** Resolves when nothing is being sent (tests wait on it before asserting what was sent). */
  idle(): Promise<void> {
    return this.jobs.idle();
  }
}
