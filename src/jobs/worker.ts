// The worker of one job kind on one node: it claims due jobs up to its concurrency, renews each
// job's lease while the handler runs, takes back jobs whose worker died, retries failed attempts
// after their back-off, and stops gracefully (no new claims, running handlers get a grace period,
// then their signal is aborted). A cancel reaches a running handler by pub/sub or, failing that, at
// its next lease renewal. Domains define their kinds with `JobKind` and own the worker they start.
import { hostname } from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import type { PubSub } from '../adapters/cache/index.js';
import type { Executor, Transaction } from '../db/client.js';
import { randomAlnum } from '../lib/ids.js';
import { claimJob, completeJob, failJobAttempt, pruneFailedJobs, recoverJobs, renewJobLease } from './queue.js';
import type { JobRow } from './tables.js';

interface JobRun {
  /** Aborted when the job is canceled, its lease is lost, or the worker stops past its grace. */
  signal: AbortSignal;
  workerId: string;
}

/** What a domain registers for one kind of job. `T` is what its handler works on. */
export interface JobKind<T> {
  /** `<domain>.<what>`; stored in every row of the kind. */
  name: string;
  /** Jobs of this kind one node runs at once; 0 leaves them to other nodes. */
  concurrency(): number;
  leaseMs: number;
  /** How often an idle worker looks for due jobs (a local `wake` looks at once). */
  pollMs: number;
  /** Delay before attempt `attempt + 1` after attempt `attempt` failed. */
  retryDelayMs(attempt: number): number;
  /** In the claim's transaction: what the handler works on, or undefined to drop a job whose subject is gone. */
  take(tx: Transaction, job: JobRow): Promise<T | undefined>;
  /** Does the work. Throwing fails the attempt (retried while attempts remain); returning ends the job. */
  run(subject: T, job: JobRow, run: JobRun): Promise<void>;
  /** The abort reason handed to a handler whose cancel was asked for. */
  canceled(): Error;
  /** Told of jobs taken back from a dead worker (`failed` ones will not run again). */
  recovered?(rows: JobRow[], all: boolean): Promise<void>;
  /** The kind's own clean-up of what dead workers left, run with the hourly prune. */
  housekeeping?(): Promise<void>;
}

interface JobWorkerOptions {
  logger: FastifyBaseLogger;
  /** Embedded databases belong to one process: at start every running job there is taken back. */
  embeddedDatabase: boolean;
  /** How long stop() lets running handlers finish before aborting them. */
  graceMs?: number;
  /** Whether the idle timer may keep the process alive (false for work started with every app). */
  holdsProcess?: boolean;
}

interface JobCounts {
  claimed: number;
  succeeded: number;
  retried: number;
  failed: number;
  canceled: number;
  recovered: number;
}

/** The pub/sub channel that carries the id of a running job whose cancel was recorded. */
export function jobCancelChannel(kind: string): string {
  return `jobs:cancel:${kind}`;
}

class JobLeaseLost extends Error {
  constructor() {
    super('this worker lost the job (its lease lapsed)');
    this.name = 'JobLeaseLost';
  }
}

/** The abort reason of handlers still running when the worker's grace period ends. */
class JobWorkerStopping extends Error {
  constructor() {
    super('the worker is shutting down');
    this.name = 'JobWorkerStopping';
  }
}

const DEFAULT_GRACE_MS = 5_000;
/** How long a failed job stays for the operator to read, and how often each worker prunes older ones. */
export const FAILED_JOB_RETENTION_MS = 30 * 24 * 3600 * 1000;
const PRUNE_EVERY_MS = 3600 * 1000;

export class JobWorker<T> {
  readonly id = `${hostname()}:${process.pid}:${randomAlnum(6)}`;
  readonly counts: JobCounts = { claimed: 0, succeeded: 0, retried: 0, failed: 0, canceled: 0, recovered: 0 };
  private readonly running = new Map<string, { promise: Promise<void>; abort: AbortController }>();
  private loop: Promise<void> | undefined;
  private pass: Promise<void> | undefined;
  private stopping = false;
  private woken = false;
  private wakeUp: (() => void) | undefined;
  private lastRecovery = 0;
  private lastPrune = 0;
  private unsubscribe: (() => Promise<void>) | undefined;

  constructor(
    private readonly db: Executor,
    readonly kind: JobKind<T>,
    private readonly options: JobWorkerOptions,
  ) {}

  /** Hears cancel requests for the jobs this node runs. */
  async listen(pubsub: PubSub): Promise<void> {
    this.unsubscribe ??= await pubsub.subscribe(jobCancelChannel(this.kind.name), (id) =>
      this.running.get(id)?.abort.abort(this.kind.canceled()),
    );
  }

  get started(): boolean {
    return this.loop !== undefined;
  }

  async start(): Promise<void> {
    if (this.loop || this.kind.concurrency() === 0) return;
    this.stopping = false;
    if (this.options.embeddedDatabase) await this.recover(true);
    this.loop = this.run();
  }

  /** Looks for work now instead of at the next poll (called after a local enqueue commits). */
  wake(): void {
    if (!this.loop || this.stopping) return;
    this.woken = true;
    this.wakeUp?.();
  }

  /** Claims one due job and runs it to the end; answers its id, or undefined when none was due. */
  async runNext(): Promise<string | undefined> {
    const claimed = await claimJob(this.db, this.kind.name, this.id, this.kind.leaseMs, this.kind.take);
    if (!claimed) return undefined;
    this.counts.claimed++;
    await this.track(claimed.job, claimed.subject);
    return claimed.job.id;
  }

  /** Resolves once no claim pass and no handler runs here and no wake is pending (tests wait on it). */
  async idle(): Promise<void> {
    for (;;) {
      if (this.pass) await this.pass;
      else if (this.running.size > 0) await Promise.all([...this.running.values()].map(({ promise }) => promise));
      else if (this.woken && this.loop && !this.stopping) await new Promise((resolve) => setImmediate(resolve));
      else return;
    }
  }

  /** Takes back jobs whose worker stopped renewing its lease (or all running ones at an embedded start). */
  async recover(all = false): Promise<JobRow[]> {
    this.lastRecovery = Date.now();
    const reason = all
      ? 'Blume restarted while this job was running'
      : 'the worker running this job stopped answering (its lease expired)';
    const rows = await recoverJobs(this.db, this.kind.name, reason, { all });
    if (rows.length === 0) return rows;
    this.counts.recovered += rows.length;
    for (const row of rows)
      this.options.logger.warn(
        { job: row.id, kind: row.kind, state: row.state },
        `job abandoned by its worker ${row.state === 'failed' ? 'failed' : 'queued again'}`,
      );
    await this.kind.recovered?.(rows, all);
    return rows;
  }

  /** Deletes this kind's jobs that failed more than FAILED_JOB_RETENTION_MS ago, then runs its housekeeping. */
  async prune(): Promise<number> {
    this.lastPrune = Date.now();
    const count = await pruneFailedJobs(this.db, this.kind.name, FAILED_JOB_RETENTION_MS);
    if (count > 0) this.options.logger.info({ kind: this.kind.name, count }, 'pruned failed jobs past their retention');
    await this.kind.housekeeping?.();
    return count;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.wakeUp?.();
    await this.loop;
    this.loop = undefined;
    const grace = setTimeout(() => {
      for (const { abort } of this.running.values()) abort.abort(new JobWorkerStopping());
    }, this.options.graceMs ?? DEFAULT_GRACE_MS);
    await Promise.all([...this.running.values()].map(({ promise }) => promise));
    clearTimeout(grace);
    // Cancel requests are received until the last handler has ended.
    await this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      this.woken = false;
      this.pass = this.claimPass().finally(() => {
        this.pass = undefined;
      });
      await this.pass;
      if (this.woken || this.stopping) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.kind.pollMs);
        if (!this.options.holdsProcess) timer.unref();
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeUp = undefined;
    }
  }

  private async claimPass(): Promise<void> {
    try {
      if (Date.now() - this.lastRecovery >= this.kind.leaseMs / 2) await this.recover();
      if (Date.now() - this.lastPrune >= PRUNE_EVERY_MS) await this.prune();
      while (!this.stopping && this.running.size < this.kind.concurrency()) {
        const claimed = await claimJob(this.db, this.kind.name, this.id, this.kind.leaseMs, this.kind.take);
        if (!claimed) break;
        this.counts.claimed++;
        // Tracked in `running` and awaited by stop(); failures are handled inside.
        void this.track(claimed.job, claimed.subject);
      }
    } catch (error) {
      // The database may be going away (shutdown) or down; the next poll tries again.
      this.options.logger.error({ err: error, kind: this.kind.name }, 'job worker could not reach the queue');
    }
  }

  private track(job: JobRow, subject: T): Promise<void> {
    const abort = new AbortController();
    const promise = this.execute(job, subject, abort).finally(() => {
      this.running.delete(job.id);
      // A slot is free: take the next due job without waiting for the poll.
      this.wake();
    });
    this.running.set(job.id, { promise, abort });
    return promise;
  }

  private async execute(job: JobRow, subject: T, abort: AbortController): Promise<void> {
    const { logger } = this.options;
    const heartbeat = setInterval(
      () => {
        renewJobLease(this.db, job.id, this.id, this.kind.leaseMs).then(
          (lease) => {
            if (lease === 'lost') abort.abort(new JobLeaseLost());
            // A node that missed the pub/sub message learns of the cancel here.
            if (lease === 'cancel_requested') abort.abort(this.kind.canceled());
          },
          (error: unknown) => logger.warn({ err: error, job: job.id, kind: job.kind }, 'could not renew a job lease'),
        );
      },
      Math.max(500, Math.floor(this.kind.leaseMs / 3)),
    );
    let failure: { error: unknown } | undefined;
    try {
      await this.kind.run(subject, job, { signal: abort.signal, workerId: this.id });
    } catch (error) {
      failure = { error };
    } finally {
      clearInterval(heartbeat);
    }
    if (failure) return this.failed(job, abort.signal, failure.error);
    if (abort.signal.reason instanceof JobLeaseLost) return;
    if (abort.signal.aborted) this.counts.canceled++;
    else this.counts.succeeded++;
    await completeJob(this.db, job.id, this.id).catch((error: unknown) =>
      logger.error({ err: error, job: job.id, kind: job.kind }, 'could not end a finished job; its lease will expire'),
    );
  }

  private async failed(job: JobRow, signal: AbortSignal, error: unknown): Promise<void> {
    const { logger } = this.options;
    const fields = { err: error, job: job.id, kind: job.kind, attempt: job.attempts };
    if (signal.reason instanceof JobLeaseLost) {
      logger.warn(fields, 'job stopped: this worker lost its lease');
      return;
    }
    if (signal.aborted && !(signal.reason instanceof JobWorkerStopping)) {
      // Stopped on request: the job ends here, whatever the handler threw on its way out.
      this.counts.canceled++;
      await completeJob(this.db, job.id, this.id).catch((endError: unknown) =>
        logger.error({ ...fields, err: endError }, 'could not end a canceled job'),
      );
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    try {
      const state = await failJobAttempt(this.db, job.id, this.id, message, this.kind.retryDelayMs(job.attempts));
      if (state === 'queued') {
        this.counts.retried++;
        logger.warn(fields, 'job attempt failed; it will be retried');
      } else if (state === 'failed') {
        this.counts.failed++;
        logger.error(fields, 'job failed on its last attempt; it stays for the operator');
      }
    } catch (recordError) {
      logger.error({ ...fields, err: recordError }, 'could not record a failed job attempt; its lease will expire');
    }
  }
}
