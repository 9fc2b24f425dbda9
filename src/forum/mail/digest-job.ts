// The digest sweep as a kind of the one job runner: one `forum.digest` job per hour, its id named for
// the hour, so every node scheduling the next sweep schedules the same one. Claiming a sweep
// schedules the next in the same transaction, so a failing sweep never ends the chain.
import type { FastifyBaseLogger } from 'fastify';
import type { Executor } from '../../db/client.js';
import { scheduleJobOnce } from '../../jobs/queue.js';
import { JobWorker, type JobKind } from '../../jobs/worker.js';
import { sendDueDigests, type DigestSender } from './digest.js';

export const DIGEST_JOB = 'forum.digest';
const HOUR_MS = 3600_000;

/** The next sweep, at the top of the hour after `now`. */
async function scheduleNextSweep(db: Executor, now = Date.now()): Promise<void> {
  const at = new Date((Math.floor(now / HOUR_MS) + 1) * HOUR_MS);
  await scheduleJobOnce(db, `${DIGEST_JOB}.${at.toISOString().slice(0, 13)}`, DIGEST_JOB, {}, at, { maxAttempts: 3 });
}

export class DigestSweeps {
  private readonly worker: JobWorker<true>;

  constructor(
    private readonly db: Executor,
    sender: DigestSender,
    log: FastifyBaseLogger,
    private readonly options: { embeddedDatabase: boolean; enabled: () => boolean },
  ) {
    const kind: JobKind<true> = {
      name: DIGEST_JOB,
      concurrency: () => (options.enabled() ? 1 : 0),
      leaseMs: 10 * 60_000,
      pollMs: 5 * 60_000,
      retryDelayMs: () => 5 * 60_000,
      take: async (tx) => {
        await scheduleNextSweep(tx);
        return true;
      },
      run: async () => {
        const queued = await sendDueDigests(db, sender);
        if (queued === 0) return;
        sender.queued();
        log.info({ queued }, 'forum digests queued');
      },
      canceled: () => new Error('the digest sweep was canceled'),
    };
    this.worker = new JobWorker(db, kind, { logger: log, embeddedDatabase: options.embeddedDatabase });
  }

  /** Schedules the next sweep (if no node did) and runs due ones from now on. */
  async start(): Promise<void> {
    if (!this.options.enabled()) return;
    await scheduleNextSweep(this.db);
    await this.worker.start();
  }

  stop(): Promise<void> {
    return this.worker.stop();
  }

  /** Runs the oldest due sweep, if any; answers its job id (tests drive the worker with it). */
  runNext(): Promise<string | undefined> {
    return this.worker.runNext();
  }
}
