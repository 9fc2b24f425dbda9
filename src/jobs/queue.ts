// The job queue's statements. Claims use `for update skip locked`, so any number of workers on any
// number of nodes take each due job exactly once; leases and run-at times are on the database clock,
// so nodes with skewed clocks agree on which worker is dead and which job is due.
import { and, asc, eq, lt, lte, sql } from 'drizzle-orm';
import type { Executor, Transaction } from '../db/client.js';
import { newId } from '../lib/ids.js';
import { jobs, type JobRow } from './tables.js';

interface EnqueueOptions {
  /** Chosen by the caller when the job shares the id of the record it works on (a build). */
  id?: string;
  siteId?: string | null;
  /** Not before this many milliseconds from now (scheduled work). */
  delayMs?: number;
  maxAttempts?: number;
}

/** A time `ms` from now on the database clock. */
const fromNow = (ms: number) => sql`now() + ${Math.max(0, Math.trunc(ms))} * interval '1 millisecond'`;

/** Queues one job; call it inside the transaction whose commit should cause the work. */
export async function enqueueJob(
  db: Executor,
  kind: string,
  payload: unknown,
  options: EnqueueOptions = {},
): Promise<JobRow> {
  const [row] = await db
    .insert(jobs)
    .values({
      id: options.id ?? newId(16),
      kind,
      payload,
      siteId: options.siteId ?? null,
      maxAttempts: options.maxAttempts ?? 1,
      runAt: options.delayMs ? fromNow(options.delayMs) : sql`now()`,
    })
    .returning();
  return row!;
}

/**
 * Queues a job under a chosen id unless a job of that id waits or runs already; answers whether this
 * call queued it. For schedules every node keeps (the id names the slot, e.g. the hour).
 */
export async function scheduleJobOnce(
  db: Executor,
  id: string,
  kind: string,
  payload: unknown,
  runAt: Date,
  options: { maxAttempts?: number } = {},
): Promise<boolean> {
  const rows = await db
    .insert(jobs)
    .values({ id, kind, payload, maxAttempts: options.maxAttempts ?? 1, runAt })
    .onConflictDoNothing()
    .returning({ id: jobs.id });
  return rows.length === 1;
}

/**
 * Takes the oldest due job of `kind` for `workerId` and, in the same transaction, hands it to
 * `take`, which turns it into what the handler works on (or answers undefined when that is gone: the
 * job is then dropped and the next one taken). Answers undefined when no job is due.
 */
export async function claimJob<T>(
  db: Executor,
  kind: string,
  workerId: string,
  leaseMs: number,
  take: (tx: Transaction, job: JobRow) => Promise<T | undefined>,
): Promise<{ job: JobRow; subject: T } | undefined> {
  for (;;) {
    const claimed = await db.transaction(async (tx) => {
      const [next] = await tx
        .select({ id: jobs.id })
        .from(jobs)
        .where(and(eq(jobs.kind, kind), eq(jobs.state, 'queued'), lte(jobs.runAt, sql`now()`)))
        .orderBy(asc(jobs.runAt), asc(jobs.createdAt), asc(jobs.id))
        .limit(1)
        .for('update', { skipLocked: true });
      if (!next) return undefined;
      const [job] = await tx
        .update(jobs)
        .set({
          state: 'running',
          leaseOwner: workerId,
          leaseExpiresAt: fromNow(leaseMs),
          attempts: sql`${jobs.attempts} + 1`,
        })
        .where(eq(jobs.id, next.id))
        .returning();
      const subject = await take(tx, job!);
      if (subject === undefined) {
        await tx.delete(jobs).where(eq(jobs.id, job!.id));
        return 'dropped' as const;
      }
      return { job: job!, subject };
    });
    if (claimed !== 'dropped') return claimed;
  }
}

type LeaseState = 'held' | 'lost' | 'cancel_requested';

/**
 * Extends the lease. `lost` when the job is no longer this worker's (it was declared dead);
 * `cancel_requested` when someone asked to cancel it (the lease is still extended, so the worker
 * can stop the handler and record it).
 */
export async function renewJobLease(db: Executor, id: string, workerId: string, leaseMs: number): Promise<LeaseState> {
  const [row] = await db
    .update(jobs)
    .set({ leaseExpiresAt: fromNow(leaseMs) })
    .where(and(eq(jobs.id, id), eq(jobs.leaseOwner, workerId), eq(jobs.state, 'running')))
    .returning({ cancelRequestedAt: jobs.cancelRequestedAt });
  if (!row) return 'lost';
  return row.cancelRequestedAt ? 'cancel_requested' : 'held';
}

/** Ends a job this worker holds (done, or stopped on request): the row goes. False when its lease was lost. */
export async function completeJob(db: Executor, id: string, workerId: string): Promise<boolean> {
  const rows = await db
    .delete(jobs)
    .where(and(eq(jobs.id, id), eq(jobs.leaseOwner, workerId), eq(jobs.state, 'running')))
    .returning({ id: jobs.id });
  return rows.length === 1;
}

/**
 * Records a failed attempt of a job this worker holds: queued again after `retryInMs` while attempts
 * remain, else `failed` for good. Answers the new state, or undefined when the lease was lost.
 */
export async function failJobAttempt(
  db: Executor,
  id: string,
  workerId: string,
  error: string,
  retryInMs: number,
): Promise<'queued' | 'failed' | undefined> {
  const [row] = await db
    .update(jobs)
    .set({
      state: sql`case when ${jobs.attempts} < ${jobs.maxAttempts} then 'queued' else 'failed' end`,
      runAt: sql`case when ${jobs.attempts} < ${jobs.maxAttempts} then ${fromNow(retryInMs)} else now() end`,
      lastError: error.slice(0, 1000),
      leaseOwner: null,
      leaseExpiresAt: null,
    })
    .where(and(eq(jobs.id, id), eq(jobs.leaseOwner, workerId), eq(jobs.state, 'running')))
    .returning({ state: jobs.state });
  return row?.state === 'failed' ? 'failed' : row ? 'queued' : undefined;
}

type JobCancel = 'canceled' | 'requested' | 'absent';

/**
 * Cancels a job: a queued one is deleted at once (locking its row first, so it races safely with a
 * claim: the job is either claimed or canceled, never both); on a running one the request is
 * recorded and its worker stops the handler. `absent` when no such job waits or runs.
 */
export async function cancelJob(db: Executor, id: string): Promise<JobCancel> {
  const [dropped] = await db
    .delete(jobs)
    .where(and(eq(jobs.id, id), eq(jobs.state, 'queued')))
    .returning({ id: jobs.id });
  if (dropped) return 'canceled';
  const [requested] = await db
    .update(jobs)
    .set({ cancelRequestedAt: sql`coalesce(${jobs.cancelRequestedAt}, now())` })
    .where(and(eq(jobs.id, id), eq(jobs.state, 'running')))
    .returning({ id: jobs.id });
  return requested ? 'requested' : 'absent';
}

/**
 * Takes back running jobs of `kind` whose worker is gone: those with a lapsed lease, or with `all`,
 * every running one (an embedded database at startup: only this process could have been running
 * them). Each is queued again while attempts remain, else failed with `reason`. One UPDATE, so two
 * workers recovering at once take each job back once. Answers the rows as they now are.
 */
export async function recoverJobs(
  db: Executor,
  kind: string,
  reason: string,
  options: { all?: boolean } = {},
): Promise<JobRow[]> {
  const running = and(eq(jobs.kind, kind), eq(jobs.state, 'running'));
  return db
    .update(jobs)
    .set({
      state: sql`case when ${jobs.attempts} < ${jobs.maxAttempts} then 'queued' else 'failed' end`,
      runAt: sql`case when ${jobs.attempts} < ${jobs.maxAttempts} then ${jobs.runAt} else now() end`,
      lastError: reason,
      leaseOwner: null,
      leaseExpiresAt: null,
    })
    .where(options.all ? running : and(running, lt(jobs.leaseExpiresAt, sql`now()`)))
    .returning();
}

/** Deletes failed jobs of `kind` that failed more than `olderThanMs` ago; answers how many went. */
export async function pruneFailedJobs(db: Executor, kind: string, olderThanMs: number): Promise<number> {
  const gone = await db
    .delete(jobs)
    .where(
      and(
        eq(jobs.kind, kind),
        eq(jobs.state, 'failed'),
        lt(jobs.runAt, sql`now() - ${Math.trunc(olderThanMs)} * interval '1 millisecond'`),
      ),
    )
    .returning({ id: jobs.id });
  return gone.length;
}
