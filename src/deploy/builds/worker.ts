// The build worker of one node, a kind of the one job runner (src/jobs/): the runner claims queued
// builds up to the concurrency, renews their leases, takes back builds whose worker died and stops
// gracefully; this file runs one build and keeps its record. A build is stopped on cancel (told by
// pub/sub or at the next lease renewal). `blume serve` starts it; tests call start() or runNext().
import type { FastifyBaseLogger } from 'fastify';
import type { PubSub } from '../../adapters/cache/index.js';
import { jobCancelChannel, JobWorker, type JobKind } from '../../jobs/worker.js';
import { sweepBlobIntents } from '../blobs.js';
import { BuildLogWriter } from './log-writer.js';
import { BUILD_JOB, buildInputKeys, failBuilds, findBuild, finishBuild, startBuild } from './queue.js';
import { BuildCanceled, BuildFailure, runBuild, type BuildContext } from './run.js';
import type { BuildRow } from './tables.js';

/** Carries the id of a running build whose cancel was just recorded, to whichever node runs it. */
export const BUILD_CANCEL_CHANNEL = jobCancelChannel(BUILD_JOB);

interface BuildWorkerOptions {
  /** Embedded databases belong to one process: at start every running build there is abandoned. */
  embeddedDatabase: boolean;
  logger: FastifyBaseLogger;
  /** How often an idle worker looks for queued builds (a local enqueue wakes it at once). */
  pollMs?: number;
  /** How long stop() lets running builds finish before stopping them. */
  graceMs?: number;
}

const DEFAULT_POLL_MS = 1_000;
/** An upload's blob intent older than this belongs to a dead upload (one stores its blobs in minutes at most). */
const DEAD_UPLOAD_MS = 3600 * 1000;

export class BuildWorker {
  private readonly jobs: JobWorker<BuildRow>;

  constructor(
    private readonly ctx: BuildContext,
    private readonly options: BuildWorkerOptions,
  ) {
    const kind: JobKind<BuildRow> = {
      name: BUILD_JOB,
      concurrency: () => this.ctx.settings.concurrency,
      leaseMs: ctx.settings.leaseMs,
      pollMs: options.pollMs ?? DEFAULT_POLL_MS,
      retryDelayMs: () => 0,
      take: (tx, job) => startBuild(tx, job.id, this.id),
      run: (build, _job, run) => this.execute(build, run.signal),
      canceled: () => new BuildCanceled(),
      recovered: (rows, all) =>
        this.failRecovered(
          rows.map((row) => row.id),
          all,
        ),
      housekeeping: () => this.sweepDeadUploads(),
    };
    this.jobs = new JobWorker(ctx.db, kind, {
      logger: options.logger,
      embeddedDatabase: options.embeddedDatabase,
      graceMs: options.graceMs,
      holdsProcess: true,
    });
  }

  get id(): string {
    return this.jobs.id;
  }

  get concurrency(): number {
    return this.ctx.settings.concurrency;
  }

  /** Hears cancel requests for the builds this node runs (called once when the app is built). */
  listen(pubsub: PubSub): Promise<void> {
    return this.jobs.listen(pubsub);
  }

  /** Tests only: the sandbox runs this script instead of the docs builder (a build that never ends). */
  replaceBuilderForTests(script: string | undefined): void {
    this.ctx.builderScript = script;
  }

  start(): Promise<void> {
    return this.jobs.start();
  }

  /** Looks for work now instead of at the next poll (called after a local enqueue). */
  wake(): void {
    this.jobs.wake();
  }

  /** Claims one queued build and runs it to the end; answers its id, or undefined when none waited. */
  runNext(): Promise<string | undefined> {
    return this.jobs.runNext();
  }

  stop(): Promise<void> {
    return this.jobs.stop();
  }

  /** Blobs of uploads (archives and build outputs) that died before their commit, on any node. */
  private async sweepDeadUploads(): Promise<void> {
    const removed = await sweepBlobIntents(this.ctx.db, this.ctx.blobs, new Date(Date.now() - DEAD_UPLOAD_MS));
    if (removed > 0)
      this.options.logger.warn({ removed }, `removed ${removed} blob(s) uploads that died before their commit left`);
  }

  private async failRecovered(ids: string[], all: boolean): Promise<void> {
    const reason = all
      ? 'Blume restarted while this build was running; it was not retried'
      : 'the worker running this build stopped answering (its lease expired); it was not retried';
    // The inputs go first (also those of builds that had ended, the worker dying before it removed
    // their upload), so whoever sees the build ended sees no leftover upload.
    for (const inputKey of await buildInputKeys(this.ctx.db, ids)) await this.dropInput({ inputKey });
    const rows = await failBuilds(this.ctx.db, ids, reason);
    for (const row of rows)
      this.options.logger.warn({ build: row.id, site: row.siteId }, 'build abandoned by its worker marked failed');
  }

  private async execute(job: BuildRow, signal: AbortSignal): Promise<void> {
    const { db } = this.ctx;
    const log = new BuildLogWriter(db, job.id);
    log.add(
      'blume',
      `build started on worker ${this.id} (${job.trigger}, ${job.kind}${job.git ? `, ${job.git.repository}@${job.git.branch} ${job.git.commit}` : ''})`,
    );
    try {
      const release = await runBuild(this.ctx, job, this.id, log, signal);
      log.add(
        'blume',
        `release ${release.id} created${release.promotable ? '' : ' (preview only: not the connected branch)'}`,
      );
      await log.close();
    } catch (error) {
      if (error instanceof BuildCanceled || signal.reason instanceof BuildCanceled) {
        await this.recordCanceled(job, log);
        return;
      }
      let message: string;
      if (error instanceof BuildFailure) message = error.message;
      else if (signal.aborted && signal.reason instanceof Error) message = signal.reason.message;
      else {
        this.options.logger.error({ err: error, build: job.id }, 'build failed with an internal error');
        message = 'internal error in Blume while building; the operator can find it in the server log';
      }
      // A failed docs build's message lists its problems, which the builder's own lines above hold.
      log.add('blume', `build failed: ${message.split('\n')[0]!.replace(/:$/, '')}`);
      // Logs land and the input goes before the state changes, so whoever sees `failed` sees the
      // whole log and no leftover upload.
      await this.dropInput(job);
      await log
        .close()
        .catch((logError: unknown) =>
          this.options.logger.error({ err: logError, build: job.id }, 'could not write a build log'),
        );
      await finishBuild(db, job.id, this.id, { state: 'failed', error: message }).catch((finishError: unknown) =>
        this.options.logger.error(
          { err: finishError, build: job.id },
          'could not record a failed build; its lease will expire',
        ),
      );
    } finally {
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
    await log
      .close()
      .catch((logError: unknown) => logger.error({ err: logError, build: job.id }, 'could not write a build log'));
    await finishBuild(db, job.id, this.id, { state: 'canceled', error: `canceled by ${by} while it ran` }).catch(
      (finishError: unknown) =>
        logger.error({ err: finishError, build: job.id }, 'could not record a canceled build; its lease will expire'),
    );
  }

  private async dropInput(job: Pick<BuildRow, 'inputKey'>): Promise<void> {
    if (!job.inputKey) return;
    await this.ctx.blobs
      .delete(job.inputKey)
      .catch((error: unknown) =>
        this.options.logger.warn({ err: error, key: job.inputKey }, 'could not remove a build input'),
      );
  }
}
