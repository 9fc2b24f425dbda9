// The build queue in the database. Claims use `for update skip locked`, so any number of workers on
// any number of nodes take each queued build exactly once; leases are timed by the database clock,
// so nodes with skewed clocks agree on which worker is dead. A build whose lease lapsed is failed,
// not retried (docs/decisions/0008-build-queue.md).
import { and, asc, count, desc, eq, inArray, isNull, lt, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { newId } from '../../lib/ids.js';
import type { GitCommit } from '../tables.js';
import { buildLogs, builds, type BuildLogRow, type BuildRow } from './tables.js';

export interface NewBuild {
  siteId: string;
  trigger: BuildRow['trigger'];
  kind: BuildRow['kind'];
  git?: GitCommit | null;
  path?: string;
  inputKey?: string | null;
  promotable?: boolean;
  /** Chosen by the caller when the upload is stored under the build's id before the row exists. */
  id?: string;
}

export function newBuildId(): string {
  return newId(16);
}

export async function enqueueBuild(db: Executor, input: NewBuild): Promise<BuildRow> {
  const [row] = await db
    .insert(builds)
    .values({
      id: input.id ?? newBuildId(),
      siteId: input.siteId,
      trigger: input.trigger,
      kind: input.kind,
      git: input.git ?? null,
      path: input.path ?? '',
      inputKey: input.inputKey ?? null,
      promotable: input.promotable ?? true,
    })
    .returning();
  return row!;
}

const leaseEnd = (leaseMs: number) => sql`now() + ${leaseMs} * interval '1 millisecond'`;

/** Takes the oldest queued build for `workerId`, or undefined when none waits. */
export async function claimBuild(db: Executor, workerId: string, leaseMs: number): Promise<BuildRow | undefined> {
  return db.transaction(async (tx) => {
    const [next] = await tx
      .select({ id: builds.id })
      .from(builds)
      .where(eq(builds.state, 'queued'))
      .orderBy(asc(builds.createdAt), asc(builds.id))
      .limit(1)
      .for('update', { skipLocked: true });
    if (!next) return undefined;
    const [row] = await tx
      .update(builds)
      .set({ state: 'running', startedAt: sql`now()`, leaseOwner: workerId, leaseExpiresAt: leaseEnd(leaseMs), attempts: sql`${builds.attempts} + 1` })
      // The row is locked since the select; the state check keeps a canceled build out regardless.
      .where(and(eq(builds.id, next.id), eq(builds.state, 'queued')))
      .returning();
    return row;
  });
}

/**
 * Extends the lease. `lost` when the build is no longer this worker's (it was declared dead);
 * `cancel_requested` when someone asked to cancel it (the lease is still extended, so the worker
 * can stop the build and record it).
 */
export async function renewLease(db: Executor, buildId: string, workerId: string, leaseMs: number): Promise<'held' | 'lost' | 'cancel_requested'> {
  const [row] = await db
    .update(builds)
    .set({ leaseExpiresAt: leaseEnd(leaseMs) })
    .where(and(eq(builds.id, buildId), eq(builds.leaseOwner, workerId), eq(builds.state, 'running')))
    .returning({ cancelRequestedAt: builds.cancelRequestedAt });
  if (!row) return 'lost';
  return row.cancelRequestedAt ? 'cancel_requested' : 'held';
}

export type CancelRequest =
  /** It was queued and is now canceled: no worker will take it. */
  | { outcome: 'canceled'; row: BuildRow }
  /** It is running: the request is recorded and its worker will stop it. */
  | { outcome: 'requested'; row: BuildRow }
  /** It had ended (succeeded, failed or canceled) before the request. */
  | { outcome: 'finished'; row: BuildRow }
  | { outcome: 'missing' };

/**
 * Cancels a queued build at once or records the request on a running one. Each step is one
 * conditional UPDATE, so it races safely with a claim (the claim locks the row and rechecks the
 * state; a canceled row is never claimed) and with the worker ending the build.
 */
export async function requestBuildCancel(db: Executor, siteId: string, buildId: string, by: string): Promise<CancelRequest> {
  const target = and(eq(builds.id, buildId), eq(builds.siteId, siteId));
  const canceled = await db.transaction(async (tx) => {
    const [row] = await tx
      .update(builds)
      .set({ state: 'canceled', cancelRequestedAt: sql`now()`, cancelRequestedBy: by, error: `canceled by ${by} before it started`, finishedAt: sql`now()` })
      .where(and(target, eq(builds.state, 'queued')))
      .returning();
    if (row) await tx.insert(buildLogs).values({ buildId, at: row.cancelRequestedAt!, stream: 'blume', line: `build canceled by ${by} before it started; nothing was released` });
    return row;
  });
  if (canceled) return { outcome: 'canceled', row: canceled };
  const [requested] = await db
    .update(builds)
    .set({ cancelRequestedAt: sql`now()`, cancelRequestedBy: by })
    .where(and(target, eq(builds.state, 'running'), isNull(builds.cancelRequestedAt)))
    .returning();
  if (requested) {
    await db.insert(buildLogs).values({ buildId, at: requested.cancelRequestedAt!, stream: 'blume', line: `cancel requested by ${by}; the build is being stopped` });
    return { outcome: 'requested', row: requested };
  }
  const row = await findBuild(db, siteId, buildId);
  if (!row) return { outcome: 'missing' };
  // A repeated request on a running build changes nothing: the first one is being carried out.
  return { outcome: row.state === 'running' ? 'requested' : 'finished', row };
}

export type BuildOutcome = { state: 'succeeded'; releaseId: string } | { state: 'failed' | 'canceled'; error: string };

/** Ends a build this worker holds; false when its lease was lost meanwhile (nothing changes). */
export async function finishBuild(db: Executor, buildId: string, workerId: string, outcome: BuildOutcome): Promise<boolean> {
  const rows = await db
    .update(builds)
    .set({
      state: outcome.state,
      releaseId: outcome.state === 'succeeded' ? outcome.releaseId : null,
      error: outcome.state === 'succeeded' ? null : outcome.error,
      finishedAt: sql`now()`,
      leaseOwner: null,
      leaseExpiresAt: null,
    })
    .where(and(eq(builds.id, buildId), eq(builds.leaseOwner, workerId), eq(builds.state, 'running')))
    .returning({ id: builds.id });
  return rows.length === 1;
}

/**
 * Fails running builds whose worker is gone: those with a lapsed lease, or with `all`, every running
 * build (an embedded database at startup: only this process could have been running them). One
 * UPDATE, so two workers recovering at once fail each build once. Answers the failed rows.
 */
export async function failAbandonedBuilds(db: Executor, reason: string, options: { all?: boolean } = {}): Promise<BuildRow[]> {
  const abandoned = options.all ? eq(builds.state, 'running') : and(eq(builds.state, 'running'), lt(builds.leaseExpiresAt, sql`now()`));
  const rows = await db
    .update(builds)
    .set({ state: 'failed', error: reason, finishedAt: sql`now()`, leaseOwner: null, leaseExpiresAt: null })
    .where(abandoned)
    .returning();
  if (rows.length > 0) {
    const at = new Date();
    await db.insert(buildLogs).values(rows.map((row) => ({ buildId: row.id, at, stream: 'blume' as const, line: `build failed: ${reason}` })));
  }
  return rows;
}

export interface LogLine {
  at: Date;
  stream: BuildLogRow['stream'];
  line: string;
}

export async function appendBuildLogs(db: Executor, buildId: string, lines: LogLine[]): Promise<void> {
  for (let i = 0; i < lines.length; i += 500) {
    await db.insert(buildLogs).values(lines.slice(i, i + 500).map((line) => ({ buildId, ...line })));
  }
}

export async function findBuild(db: Executor, siteId: string, buildId: string): Promise<BuildRow | undefined> {
  const [row] = await db.select().from(builds).where(and(eq(builds.id, buildId), eq(builds.siteId, siteId)));
  return row;
}

/** Log lines of a build in order; `tail` keeps only the last lines. */
export async function readBuildLogs(db: Executor, buildId: string, options: { tail?: number } = {}): Promise<BuildLogRow[]> {
  if (options.tail === undefined) return db.select().from(buildLogs).where(eq(buildLogs.buildId, buildId)).orderBy(asc(buildLogs.id));
  const rows = await db.select().from(buildLogs).where(eq(buildLogs.buildId, buildId)).orderBy(desc(buildLogs.id)).limit(options.tail);
  return rows.reverse();
}

/** The last `tail` log lines of each build, read in one query. */
export async function readLogTails(db: Executor, buildIds: string[], tail: number): Promise<Map<string, BuildLogRow[]>> {
  const byBuild = new Map<string, BuildLogRow[]>(buildIds.map((id) => [id, []]));
  if (buildIds.length === 0) return byBuild;
  const ranked = db
    .select({
      id: buildLogs.id,
      buildId: buildLogs.buildId,
      at: buildLogs.at,
      stream: buildLogs.stream,
      line: buildLogs.line,
      rank: sql<number>`row_number() over (partition by ${buildLogs.buildId} order by ${buildLogs.id} desc)`.as('rank'),
    })
    .from(buildLogs)
    .where(inArray(buildLogs.buildId, buildIds))
    .as('ranked');
  const rows = await db.select().from(ranked).where(sql`${ranked.rank} <= ${tail}`).orderBy(asc(ranked.id));
  for (const row of rows) byBuild.get(row.buildId)?.push({ id: row.id, buildId: row.buildId, at: row.at, stream: row.stream, line: row.line });
  return byBuild;
}

export async function listBuilds(db: Executor, siteId: string, page: { offset: number; pageSize: number }): Promise<{ rows: BuildRow[]; total: number }> {
  const [total] = await db.select({ n: count() }).from(builds).where(eq(builds.siteId, siteId));
  const rows = await db.select().from(builds).where(eq(builds.siteId, siteId)).orderBy(desc(builds.createdAt), desc(builds.id)).limit(page.pageSize).offset(page.offset);
  return { rows, total: total?.n ?? 0 };
}

export function isFinished(row: BuildRow): boolean {
  return row.state === 'succeeded' || row.state === 'failed' || row.state === 'canceled';
}
