import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import Fastify from 'fastify';
import { createTestDatabase, testDatabases, type TestDatabase } from '../../test/helpers/databases.js';
import { eventually } from '../../test/helpers/eventually.js';
import { createMemoryCache } from '../adapters/cache/memory.js';
import type { Database } from '../db/client.js';
import { cancelJob, claimJob, enqueueJob, recoverJobs } from './queue.js';
import { jobs, type JobRow } from './tables.js';
import { FAILED_JOB_RETENTION_MS, jobCancelChannel, JobWorker, type JobKind } from './worker.js';

const logger = Fastify({ logger: false }).log;

class Stopped extends Error {}

/** A kind whose handler is `run`; the payload is what the handler gets. */
function kindOf(name: string, run: JobKind<unknown>['run'], extra: Partial<JobKind<unknown>> = {}): JobKind<unknown> {
  return {
    name,
    concurrency: () => 2,
    leaseMs: 60_000,
    pollMs: 10_000,
    retryDelayMs: () => 0,
    take: (_tx, job) => Promise.resolve(job.payload),
    run,
    canceled: () => new Stopped('canceled'),
    ...extra,
  };
}

async function rowOf(db: Database, id: string): Promise<JobRow | undefined> {
  const [row] = await db.select().from(jobs).where(eq(jobs.id, id));
  return row;
}

for (const database of testDatabases) {
  describe(`job runner [${database}]`, () => {
    let testDb: TestDatabase;
    let db: Database;
    before(async () => {
      testDb = await createTestDatabase(database);
      db = testDb.handle.db;
    });
    after(() => testDb.drop());

    it('hands each due job to one worker once, and keeps a scheduled job until its time', async () => {
      const ids = new Set<string>();
      for (let i = 0; i < 12; i++) ids.add((await enqueueJob(db, 'test.claim', { i })).id);
      const later = await enqueueJob(db, 'test.claim', { later: true }, { delayMs: 60_000 });
      const claimed: Record<string, string[]> = { a: [], b: [], c: [] };
      await Promise.all(
        Object.keys(claimed).map(async (worker) => {
          const take = (_tx: unknown, job: JobRow) => Promise.resolve(job.id);
          for (
            let got = await claimJob(db, 'test.claim', worker, 60_000, take);
            got;
            got = await claimJob(db, 'test.claim', worker, 60_000, take)
          )
            claimed[worker]!.push(got.subject);
        }),
      );
      const all = Object.values(claimed).flat();
      assert.equal(all.length, 12);
      assert.deepEqual(new Set(all), ids);
      assert.equal((await rowOf(db, later.id))!.state, 'queued');
      for (const id of ids) {
        const row = (await rowOf(db, id))!;
        assert.equal(row.state, 'running');
        assert.equal(row.attempts, 1);
        assert.ok(claimed[row.leaseOwner!]!.includes(id));
      }
    });

    it('retries a failed attempt after its back-off, then keeps the job failed with its last error', async () => {
      let calls = 0;
      const delays: number[] = [];
      const worker = new JobWorker(
        db,
        kindOf(
          'test.retry',
          () => {
            calls++;
            return Promise.reject(new Error(`attempt ${calls} broke`));
          },
          {
            retryDelayMs: (attempt) => {
              delays.push(attempt);
              return attempt === 1 ? 0 : 3_600_000;
            },
          },
        ),
        { logger, embeddedDatabase: false },
      );
      const job = await enqueueJob(db, 'test.retry', {}, { maxAttempts: 3 });
      assert.equal(await worker.runNext(), job.id);
      let row = (await rowOf(db, job.id))!;
      assert.equal(row.state, 'queued');
      assert.equal(row.attempts, 1);
      assert.equal(row.lastError, 'attempt 1 broke');
      assert.equal(await worker.runNext(), job.id);
      row = (await rowOf(db, job.id))!;
      assert.equal(row.state, 'queued');
      assert.ok(row.runAt.getTime() > Date.now() + 3_000_000, 'the second back-off is an hour');
      assert.equal(await worker.runNext(), undefined, 'not due before its back-off ends');
      await db
        .update(jobs)
        .set({ runAt: sql`now()` })
        .where(eq(jobs.id, job.id));
      assert.equal(await worker.runNext(), job.id);
      row = (await rowOf(db, job.id))!;
      assert.equal(row.state, 'failed');
      assert.equal(row.attempts, 3);
      assert.equal(row.lastError, 'attempt 3 broke');
      assert.equal(await worker.runNext(), undefined, 'a failed job is not claimed again');
      assert.deepEqual(delays, [1, 2, 3]);
      assert.deepEqual(
        { ...worker.counts },
        { claimed: 3, succeeded: 0, retried: 2, failed: 1, canceled: 0, recovered: 0 },
      );
    });

    it('runs due jobs in its loop when woken, deletes each finished one, and counts them', async () => {
      const done: unknown[] = [];
      const worker = new JobWorker(
        db,
        kindOf('test.loop', (payload) => Promise.resolve(void done.push(payload))),
        { logger, embeddedDatabase: false },
      );
      await worker.start();
      try {
        for (let i = 0; i < 5; i++) await enqueueJob(db, 'test.loop', { i });
        worker.wake();
        await worker.idle();
        assert.equal(done.length, 5);
        assert.equal((await db.select().from(jobs).where(eq(jobs.kind, 'test.loop'))).length, 0);
        assert.equal(worker.counts.succeeded, 5);
      } finally {
        await worker.stop();
      }
    });

    it('cancels a queued job at once, and stops a running one by pub/sub or at its next lease renewal', async () => {
      const queued = await enqueueJob(db, 'test.cancel', {});
      assert.equal(await cancelJob(db, queued.id), 'canceled');
      assert.equal(await rowOf(db, queued.id), undefined);
      assert.equal(await cancelJob(db, queued.id), 'absent');

      const started = new Set<string>();
      const stopReasons: unknown[] = [];
      const handler = (_payload: unknown, job: JobRow, run: { signal: AbortSignal }) =>
        new Promise<void>((resolve) => {
          started.add(job.id);
          run.signal.addEventListener('abort', () => {
            stopReasons.push(run.signal.reason);
            resolve();
          });
        });
      const { pubsub } = createMemoryCache();
      // A lease of 1.5 s is renewed every 500 ms.
      const worker = new JobWorker(db, kindOf('test.cancel', handler, { leaseMs: 1_500 }), {
        logger,
        embeddedDatabase: false,
      });
      await worker.listen(pubsub);
      const heard = await enqueueJob(db, 'test.cancel', {});
      const running = worker.runNext();
      await eventually('the handler to start', () => (started.has(heard.id) ? true : undefined));
      assert.equal(await cancelJob(db, heard.id), 'requested');
      await pubsub.publish(jobCancelChannel('test.cancel'), heard.id);
      await running;
      assert.equal(await rowOf(db, heard.id), undefined, 'a canceled job ends');

      // No message: the renewal tells the worker.
      const renewed = await enqueueJob(db, 'test.cancel', {});
      const second = worker.runNext();
      await eventually('the handler to start', () => (started.has(renewed.id) ? true : undefined));
      assert.equal(await cancelJob(db, renewed.id), 'requested');
      await second;
      assert.equal(await rowOf(db, renewed.id), undefined);
      assert.equal(stopReasons.length, 2);
      assert.ok(stopReasons.every((reason) => reason instanceof Stopped));
      assert.equal(worker.counts.canceled, 2);
      await worker.stop();
    });

    it('takes back the jobs of a dead worker: queued again while attempts remain, else failed', async () => {
      const retried = await enqueueJob(db, 'test.dead', { retry: true }, { maxAttempts: 2 });
      await claimJob(db, 'test.dead', 'dead-worker', 50, (_tx, job) => Promise.resolve(job));
      const spent = await enqueueJob(db, 'test.dead', { retry: false }, { maxAttempts: 1 });
      await claimJob(db, 'test.dead', 'dead-worker', 50, (_tx, job) => Promise.resolve(job));
      const alive = await enqueueJob(db, 'test.dead', {});
      await claimJob(db, 'test.dead', 'live-worker', 60_000, (_tx, job) => Promise.resolve(job));
      await eventually('the dead worker’s leases to lapse', async () => {
        const [row] = await db
          .select({ lapsed: sql<boolean>`${jobs.leaseExpiresAt} < now()` })
          .from(jobs)
          .where(eq(jobs.id, spent.id));
        return row?.lapsed ? true : undefined;
      });
      const told: JobRow[] = [];
      const worker = new JobWorker(
        db,
        kindOf('test.dead', () => Promise.resolve(), {
          recovered: (rows) => {
            told.push(...rows);
            return Promise.resolve();
          },
        }),
        { logger, embeddedDatabase: false },
      );
      const rows = await worker.recover();
      assert.deepEqual(rows.map((row) => row.id).sort(), [retried.id, spent.id].sort());
      assert.deepEqual(told.map((row) => row.id).sort(), [retried.id, spent.id].sort());
      assert.equal((await rowOf(db, retried.id))!.state, 'queued');
      const failed = (await rowOf(db, spent.id))!;
      assert.equal(failed.state, 'failed');
      assert.match(failed.lastError!, /stopped answering/);
      assert.equal((await rowOf(db, alive.id))!.state, 'running');
      // An embedded database's start takes back every running job: only this process ran them.
      assert.deepEqual(
        (await recoverJobs(db, 'test.dead', 'restarted', { all: true })).map((row) => row.id),
        [alive.id],
      );
    });

    it('keeps a failed job for the operator for 30 days from its failure, then prunes it', async () => {
      const worker = new JobWorker(
        db,
        kindOf('test.prune', () => Promise.reject(new Error('mailbox unavailable'))),
        { logger, embeddedDatabase: false },
      );
      const queuedLongAgo = await enqueueJob(db, 'test.prune', {});
      await db
        .update(jobs)
        .set({ createdAt: sql`now() - interval '60 days'`, runAt: sql`now() - interval '60 days'` })
        .where(eq(jobs.id, queuedLongAgo.id));
      assert.equal(await worker.runNext(), queuedLongAgo.id);
      const failed = (await rowOf(db, queuedLongAgo.id))!;
      assert.equal(failed.state, 'failed');
      assert.equal(await worker.prune(), 0, 'it failed just now, however old the job is');

      const old = await enqueueJob(db, 'test.prune', {});
      await db
        .update(jobs)
        .set({ state: 'failed', runAt: sql`now() - ${FAILED_JOB_RETENTION_MS + 60_000} * interval '1 millisecond'` })
        .where(eq(jobs.id, old.id));
      const otherKind = await enqueueJob(db, 'test.other', {});
      await db
        .update(jobs)
        .set({ state: 'failed', runAt: sql`now() - interval '90 days'` })
        .where(eq(jobs.id, otherKind.id));
      assert.equal(await worker.prune(), 1);
      assert.equal(await rowOf(db, old.id), undefined);
      assert.equal((await rowOf(db, queuedLongAgo.id))!.state, 'failed');
      assert.equal((await rowOf(db, otherKind.id))!.state, 'failed', "another kind's worker prunes its own");
    });
  });
}
