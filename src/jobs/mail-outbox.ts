// The mail outbox, a kind of the one job runner: a mail is a job written in the transaction that
// causes it and sent after commit. Every mail goes through it: the forum's and the help desk's, and
// the portal accounts' invitations and password links. Requests never wait on SMTP: they enqueue,
// commit, and nudge the worker; a failed send (an SMTP server that was down) is retried with growing
// delays, and a mail that failed every attempt stays as a failed job with its last error. A site's
// mail goes through the site's own SMTP server when its applied settings name one (decision 0117).
import type { FastifyBaseLogger } from 'fastify';
import type { Mailer, OutgoingMail } from '../adapters/mail/index.js';
import { createSmtpMailer } from '../adapters/mail/smtp.js';
import type { MailConfig } from '../config/index.js';
import type { InstanceSettings } from '../core/settings/allowlist.js';
import { instanceMailConfig } from '../core/settings/mail.js';
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
  | 'confirm'
  | 'reset'
  | 'reply'
  | 'like'
  | 'digest'
  | 'helpdesk_reply'
  | 'helpdesk_ack'
  | 'account_invite'
  | 'account_reset'
  | 'team_invite';

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

/** What the outbox needs to send a site's mail through the site's own server. */
interface SiteMailSettings {
  /** The site's applied settings, as this node runs them. */
  applied(siteId: string): Promise<InstanceSettings>;
  /** BLUME_MAIL_*: what a site without its own server uses, and the fallback sender. */
  serverMail: MailConfig;
  secretKey: string;
  /** BLUME_MAIL_ALLOW_PRIVATE: whether a site's server may be a private, loopback or link-local address. */
  allowPrivate: boolean;
}

export class MailOutbox {
  private readonly jobs: JobWorker<MailJob>;

  constructor(
    db: Executor,
    private readonly mailer: Mailer,
    log: FastifyBaseLogger,
    private readonly options: { embeddedDatabase?: boolean; sites?: SiteMailSettings } = {},
  ) {
    const kind: JobKind<MailJob> = {
      name: MAIL_JOB,
      // One at a time: mails leave in the order they were queued. Without server-wide mail a site
      // may still have its own server, so the outbox always runs.
      concurrency: () => (this.enabled || options.sites ? 1 : 0),
      leaseMs: LEASE_MS,
      pollMs: SWEEP_MS,
      retryDelayMs,
      take: (_tx, job) => Promise.resolve(job.payload as MailJob),
      // Sent mail is not kept: the job row goes, and reset links do not linger in the database.
      run: async (mail, job) => {
        await this.send(job.siteId, mail.message);
      },
      canceled: () => new Error('the mail was canceled'),
    };
    this.jobs = new JobWorker(db, kind, { logger: log, embeddedDatabase: options.embeddedDatabase ?? false });
  }

  /** Whether the server sends mail (BLUME_MAIL_SERVER): accounts' mail, and sites without their own server. */
  get enabled(): boolean {
    return this.mailer.driver !== 'disabled';
  }

  /** Whether a site's mail can go out; features skip enqueuing (and say so) when it cannot. */
  enabledFor(settings: InstanceSettings): boolean {
    return this.enabled || (this.options.sites !== undefined && Boolean(settings.values.MAIL_SERVER?.trim()));
  }

  /** Through the site's own server when its applied settings name one, else the server's. */
  private async send(siteId: string | null, message: OutgoingMail): Promise<void> {
    const sites = this.options.sites;
    const own =
      siteId !== null && sites
        ? instanceMailConfig(await sites.applied(siteId), sites.serverMail, sites.secretKey)
        : undefined;
    if (!own) {
      await this.mailer.send(message);
      return;
    }
    const mailer = await createSmtpMailer(own, { publicOnly: !sites!.allowPrivate });
    try {
      await mailer.send(message);
    } finally {
      await mailer.close();
    }
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
