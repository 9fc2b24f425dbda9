// The purge job: a workspace canceled through the purchase API is deleted, with everything in it,
// once its grace period has passed, unless it is no longer canceled by then.
import type { FastifyBaseLogger } from 'fastify';
import type { Executor } from '../db/client.js';
import { JobWorker, type JobKind } from '../jobs/worker.js';
import { deleteSite, findSite } from '../core/sites/service.js';
import type { SiteRow } from '../core/sites/tables.js';
import { PURGE_JOB } from './service.js';

export class WorkspacePurger {
  private readonly worker: JobWorker<SiteRow>;

  constructor(
    db: Executor,
    log: FastifyBaseLogger,
    /** Tells the other nodes at once (they would find the deletion with their next cache poll). */
    onPurged: (siteId: string) => Promise<void>,
    options: { embeddedDatabase: boolean },
  ) {
    const kind: JobKind<SiteRow> = {
      name: PURGE_JOB,
      concurrency: () => 1,
      leaseMs: 60_000,
      pollMs: 60_000,
      retryDelayMs: (attempt) => 60_000 * attempt,
      take: async (tx, job) => {
        const site = await findSite(tx, (job.payload as { siteId: string }).siteId);
        return site?.status === 'canceled' ? site : undefined;
      },
      run: async (site) => {
        await deleteSite(db, site.id);
        await onPurged(site.id);
      },
      canceled: () => new Error('the purge was canceled'),
    };
    this.worker = new JobWorker(db, kind, { logger: log, embeddedDatabase: options.embeddedDatabase });
  }

  start(): Promise<void> {
    return this.worker.start();
  }

  stop(): Promise<void> {
    return this.worker.stop();
  }

  /** Purges the oldest due workspace, if any; answers the job's id (tests drive the worker with it). */
  runNext(): Promise<string | undefined> {
    return this.worker.runNext();
  }
}
