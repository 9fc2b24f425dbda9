// The build worker of one node: it claims queued builds up to its concurrency, renews each build's
// lease while it runs, fails builds whose worker died, and stops gracefully (no new claims, running
// builds get a grace period, then are stopped and failed). It stops a running build whose cancel was
// asked for, told by a pub/sub message or, failing that, at its next lease renewal. `blume serve`
// starts it; tests call start() or drive single builds with runNext().
import { hostname } from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import type { PubSub } from '../../adapters/cache/index.js';
import { randomAlnum } from '../../lib/ids.js';
import { BuildLogWriter } from './log-writer.js';
import { claimBuild, failAbandonedBuilds, findBuild, finishBuild, renewLease } from './queue.js';
import { BuildCanceled, BuildFailure, runBuild, type BuildContext } from './run.js';
import type { BuildRow } from './tables.js';

/** Carries the id of a running build whose cancel was just recorded, to whichever node runs it. */
export const BUILD_CANCEL_CHANNEL = 'builds:cancel';

export interface BuildWorkerOptions {
  /** Embedded databases belong to one process: at start every running build there is abandoned. */
  embeddedDatabase: boolean;
  logger: FastifyBaseLogger;
  /** How often an idle worker looks for queued builds (a local enqueue wakes it at once). */
  pollMs?: number;
  /** How long stop() lets running builds finish before stopping them. */
  graceMs?: number;
}

const DEFAULT_POLL_MS = 1_000;
const DEFAULT_GRACE_MS = 5_000;

export class BuildWorker {
  readonly id = `${hostname()}:${process.pid}:${randomAlnum(6)}`;
  private readonly running = new Map<string, { promise: Promise<void>; abort: AbortController }>();
  private loop: Promise<void> | undefined;
  private stopping = false;
  private wakeUp: (() => void) | undefined;
  private lastRecovery = 0;
  private unsubscribe: (() => Promise<void>) | undefined;

  constructor(
    private readonly ctx: BuildContext,
    private readonly options: BuildWorkerOptions,
  ) {}

  get concurrency(): number {
    return this.ctx.settings.concurrency;
  }

  /** Hears cancel requests for the builds this node runs (called once when the app is built). */
  async listen(pubsub: PubSub): Promise<void> {
    this.unsubscribe ??= await pubsub.subscribe(BUILD_CANCEL_CHANNEL, (buildId) => this.running.get(buildId)?.abort.abort(new BuildCanceled()));
  }

  /** Tests only: the sandbox runs this script instead of the docs builder (a build that never ends). */
  replaceBuilderForTests(script: string | undefined): void {
    this.ctx.builderScript = script;
  }

  async start(): Promise<void> {
    if (this.loop || this.concurrency === 0) return;
    if (this.options.embeddedDatabase) await this.recover(true);
    this.loop = this.run();
  }

  /** Looks for work now instead of at the next poll (called after a local enqueue). */
  wake(): void {
    this.wakeUp?.();
  }

  /** Claims one queued build and runs it to the end; answers its id, or undefined when none waited. */
  async runNext(): Promise<string | undefined> {
    const job = await claimBuild(this.ctx.db, this.id, this.ctx.settings.leaseMs);
    if (!job) return undefined;
    await this.track(job);
    return job.id;
  }

  /** Fails running builds whose worker stopped renewing its lease (or all of them at an embedded start). */
  async recover(all = false): Promise<BuildRow[]> {
    this.lastRecovery = Date.now();
    const reason = all
      ? 'Blume restarted while this build was running; it was not retried'
      : 'the worker running this build stopped answering (its lease expired); it was not retried';
    const rows = await failAbandonedBuilds(this.ctx.db, reason, { all });
    for (const row of rows) {
      this.options.logger.warn({ build: row.id, site: row.siteId }, 'build abandoned by its worker marked failed');
      await this.dropInput(row);
    }
    return rows;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.loop;
    const grace = setTimeout(() => {
      for (const { abort } of this.running.values()) abort.abort();
    }, this.options.graceMs ?? DEFAULT_GRACE_MS);
    await Promise.all([...this.running.values()].map(({ promise }) => promise));
    clearTimeout(grace);
    // Cancel requests are heard until the last build has ended.
    await this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      try {
        if (Date.now() - this.lastRecovery >= this.ctx.settings.leaseMs / 2) await this.recover();
        while (!this.stopping && this.running.size < this.concurrency) {
          const job = await claimBuild(this.ctx.db, this.id, this.ctx.settings.leaseMs);
          if (!job) break;
          // Tracked in `running` and awaited by stop(); failures are handled inside.
          void this.track(job);
        }
      } catch (error) {
        this.options.logger.error({ err: error }, 'build worker could not reach the queue');
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.options.pollMs ?? DEFAULT_POLL_MS);
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeUp = undefined;
    }
  }

  private track(job: BuildRow): Promise<void> {
    const abort = new AbortController();
    const promise = this.execute(job, abort).finally(() => {
      this.running.delete(job.id);
      // A slot is free: take the next queued build without waiting for the poll.
      this.wake();
    });
    this.running.set(job.id, { promise, abort });
    return promise;
  }

  private async execute(job: BuildRow, abort: AbortController): Promise<void> {
    const { db, settings } = this.ctx;
    const log = new BuildLogWriter(db, job.id);
    log.add('blume', `build started on worker ${this.id} (${job.trigger}, ${job.kind}${job.git ? `, ${job.git.repository}@${job.git.branch} ${job.git.commit}` : ''})`);
    const heartbeat = setInterval(() => {
      renewLease(db, job.id, this.id, settings.leaseMs).then(
        (lease) => {
          if (lease === 'lost') abort.abort(new Error('this worker lost the build (its lease lapsed)'));
          // A node that missed the pub/sub message learns of the cancel here.
          if (lease === 'cancel_requested') abort.abort(new BuildCanceled());
        },
        (error: unknown) => this.options.logger.warn({ err: error, build: job.id }, 'could not renew a build lease'),
      );
    }, Math.max(500, Math.floor(settings.leaseMs / 3)));
    try {
      const release = await runBuild(this.ctx, job, this.id, log, abort.signal);
      log.add('blume', `release ${release.id} created${release.promotable ? '' : ' (preview only: not the connected branch)'}`);
      await log.close();
    } catch (error) {
      if (error instanceof BuildCanceled || abort.signal.reason instanceof BuildCanceled) {
        await this.recordCanceled(job, log);
        return;
      }
      let message: string;
      if (error instanceof BuildFailure) message = error.message;
      else {
        this.options.logger.error({ err: error, build: job.id }, 'build failed with an internal error');
        message = 'internal error in Blume while building; the operator can find it in the server log';
      }
      log.add('blume', `build failed: ${message}`);
      // Logs land and the input goes before the state changes, so whoever sees `failed` sees the
      // whole log and no leftover upload.
      await this.dropInput(job);
      await log.close().catch((logError: unknown) => this.options.logger.error({ err: logError, build: job.id }, 'could not write a build log'));
      await finishBuild(db, job.id, this.id, { state: 'failed', error: message }).catch((finishError: unknown) =>
        this.options.logger.error({ err: finishError, build: job.id }, 'could not record a failed build; its lease will expire'),
      );
    } finally {
      clearInterval(heartbeat);
      // After a success (a no-op when a failure path already removed it).
      await this.dropInput(job);
    }
  }

  /** Ends a build stopped on request: the log names who asked and when, then the state turns `canceled`. */
  private async recordCanceled(job: BuildRow, log: BuildLogWriter): Promise<void> {
    const { db } = this.ctx;
    const { logger } = this.options;
    let by = 'request';
    let at = '';
    try {
      const row = await findBuild(db, job.siteId, job.id);
      by = row?.cancelRequestedBy ?? by;
      at = row?.cancelRequestedAt ? ` at ${row.cancelRequestedAt.toISOString()}` : '';
    } catch (error) {
      logger.warn({ err: error, build: job.id }, 'could not read who canceled a build');
    }
    log.add('blume', `build canceled by ${by} (asked${at}); nothing was released`);
    await this.dropInput(job);
    // Logs land before the state changes, so whoever sees `canceled` sees the whole log.
    await log.close().catch((logError: unknown) => logger.error({ err: logError, build: job.id }, 'could not write a build log'));
    await finishBuild(db, job.id, this.id, { state: 'canceled', error: `canceled by ${by} while it ran` }).catch((finishError: unknown) =>
      logger.error({ err: finishError, build: job.id }, 'could not record a canceled build; its lease will expire'),
    );
  }

  private async dropInput(job: BuildRow): Promise<void> {
    if (!job.inputKey) return;
    await this.ctx.blobs.delete(job.inputKey).catch((error: unknown) => this.options.logger.warn({ err: error, key: job.inputKey }, 'could not remove a build input'));
  }
}
