// Build records over the one job runner (src/jobs/): a build is queued with a job of its own id, the
// runner claims and leases it, and these statements keep the build's record in step. A build whose
// lease lapsed is failed, not retried (docs/decisions/0008-build-queue.md).
import { and, asc, count, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { cancelJob, claimJob, enqueueJob, recoverJobs } from '../../jobs/queue.js';
import { newId } from '../../lib/ids.js';
import type { GitCommit } from '../tables.js';
import { buildLogs, builds, type BuildLogRow, type BuildRow } from './tables.js';

interface NewBuild {
  siteId: string;
  trigger: BuildRow['trigger'];
  kind: BuildRow['kind'];
  git?: GitCommit | null;
  path?: string;
  inputKey?: string | null;
  promotable?: boolean;
  /** Who asked for it, in words (BuildRow.requestedBy). */
  requestedBy?: string | null;
  /** Chosen by the caller when the upload is stored under the build's id before the row exists. */
  id?: string;
}

export function newBuildId(): string {
  return newId(16);
}

/** The job kind that runs builds; each build's job has the build's id. */
export const BUILD_JOB = 'deploy.build';

/** Records a build and queues its job, both or neither. */
export async function enqueueBuild(db: Executor, input: NewBuild): Promise<BuildRow> {
  return db.transaction(async (tx) => {
    const [row] = await tx
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
        requestedBy: input.requestedBy ?? null,
      })
      .returning();
    // Abandoned builds are failed, not retried (docs/decisions/0008-build-queue.md): one attempt.
    await enqueueJob(tx, BUILD_JOB, {}, { id: row!.id, siteId: row!.siteId, maxAttempts: 1 });
    return row!;
  });
}

/** Marks a claimed build running for `workerId`, in the claim's transaction; undefined when it is gone. */
export async function startBuild(tx: Executor, buildId: string, workerId: string): Promise<BuildRow | undefined> {
  const [row] = await tx
    .update(builds)
    .set({ state: 'running', startedAt: sql`now()`, leaseOwner: workerId, attempts: sql`${builds.attempts} + 1` })
    .where(and(eq(builds.id, buildId), eq(builds.state, 'queued')))
    .returning();
  return row;
}

/** Takes the oldest queued build for `workerId`, or undefined when none waits. */
export async function claimBuild(db: Executor, workerId: string, leaseMs: number): Promise<BuildRow | undefined> {
  const claimed = await claimJob(db, BUILD_JOB, workerId, leaseMs, (tx, job) => startBuild(tx, job.id, workerId));
  return claimed?.subject;
}

type CancelRequest =
  /** It was queued and is now canceled: no worker will take it. */
  | { outcome: 'canceled'; row: BuildRow }
  /** It is running: the request is recorded and its worker will stop it. */
  | { outcome: 'requested'; row: BuildRow }
  /** It had ended (succeeded, failed or canceled) before the request. */
  | { outcome: 'finished'; row: BuildRow }
  | { outcome: 'missing' };

/**
 * Cancels a queued build at once or records the request on a running one. The job goes first (its
 * row lock orders this against a claim, which takes the job and then the build): a build is either
 * claimed or canceled, never both.
 */
export async function requestBuildCancel(
  db: Executor,
  siteId: string,
  buildId: string,
  by: string,
): Promise<CancelRequest> {
  const target = and(eq(builds.id, buildId), eq(builds.siteId, siteId));
  // The job is found by the build's id alone: only a build of this site may reach it.
  if (!(await findBuild(db, siteId, buildId))) return { outcome: 'missing' };
  const outcome = await db.transaction(async (tx): Promise<CancelRequest | undefined> => {
    const job = await cancelJob(tx, buildId);
    if (job !== 'requested') {
      const [row] = await tx
        .update(builds)
        .set({
          state: 'canceled',
          cancelRequestedAt: sql`now()`,
          cancelRequestedBy: by,
          error: `canceled by ${by} before it started`,
          finishedAt: sql`now()`,
        })
        .where(and(target, eq(builds.state, 'queued')))
        .returning();
      if (row) {
        await tx.insert(buildLogs).values({
          buildId,
          at: row.cancelRequestedAt!,
          stream: 'blume',
          line: `build canceled by ${by} before it started; nothing was released`,
        });
        return { outcome: 'canceled', row };
      }
    }
    if (job !== 'canceled') {
      const [row] = await tx
        .update(builds)
        .set({ cancelRequestedAt: sql`now()`, cancelRequestedBy: by })
        .where(and(target, eq(builds.state, 'running'), isNull(builds.cancelRequestedAt)))
        .returning();
      if (row) {
        await tx.insert(buildLogs).values({
          buildId,
          at: row.cancelRequestedAt!,
          stream: 'blume',
          line: `cancel requested by ${by}; the build is being stopped`,
        });
        return { outcome: 'requested', row };
      }
    }
    return undefined;
  });
  if (outcome) return outcome;
  const row = await findBuild(db, siteId, buildId);
  if (!row) return { outcome: 'missing' };
  // A repeated request on a running build changes nothing: the first one is being carried out.
  return { outcome: row.state === 'running' ? 'requested' : 'finished', row };
}

type BuildOutcome = { state: 'succeeded'; releaseId: string } | { state: 'failed' | 'canceled'; error: string };

/** Ends a build this worker holds; false when its lease was lost meanwhile (nothing changes). */
export async function finishBuild(
  db: Executor,
  buildId: string,
  workerId: string,
  outcome: BuildOutcome,
): Promise<boolean> {
  const rows = await db
    .update(builds)
    .set({
      state: outcome.state,
      releaseId: outcome.state === 'succeeded' ? outcome.releaseId : null,
      error: outcome.state === 'succeeded' ? null : outcome.error,
      finishedAt: sql`now()`,
      leaseOwner: null,
    })
    .where(and(eq(builds.id, buildId), eq(builds.leaseOwner, workerId), eq(builds.state, 'running')))
    .returning({ id: builds.id });
  return rows.length === 1;
}

/** Fails the builds of jobs taken back from a dead worker, with a log line naming `reason`. */
export async function failBuilds(db: Executor, buildIds: string[], reason: string): Promise<BuildRow[]> {
  if (buildIds.length === 0) return [];
  const rows = await db
    .update(builds)
    .set({ state: 'failed', error: reason, finishedAt: sql`now()`, leaseOwner: null })
    .where(and(inArray(builds.id, buildIds), eq(builds.state, 'running')))
    .returning();
  if (rows.length > 0) {
    const at = new Date();
    await db
      .insert(buildLogs)
      .values(rows.map((row) => ({ buildId: row.id, at, stream: 'blume' as const, line: `build failed: ${reason}` })));
  }
  return rows;
}

/** The uploaded inputs these builds still name, whatever their state. */
export async function buildInputKeys(db: Executor, buildIds: string[]): Promise<string[]> {
  if (buildIds.length === 0) return [];
  const rows = await db.select({ key: builds.inputKey }).from(builds).where(inArray(builds.id, buildIds));
  return rows.map((row) => row.key).filter((key): key is string => key !== null);
}

/**
 * Fails running builds whose worker is gone: those with a lapsed lease, or with `all`, every running
 * build (an embedded database at startup: only this process could have been running them). Their
 * jobs are taken back in one UPDATE, so two workers recovering at once fail each build once.
 */
export async function failAbandonedBuilds(
  db: Executor,
  reason: string,
  options: { all?: boolean } = {},
): Promise<BuildRow[]> {
  const jobs = await recoverJobs(db, BUILD_JOB, reason, options);
  return failBuilds(
    db,
    jobs.map((job) => job.id),
    reason,
  );
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
  const [row] = await db
    .select()
    .from(builds)
    .where(and(eq(builds.id, buildId), eq(builds.siteId, siteId)));
  return row;
}

/** Log lines of a build in order; `tail` keeps only the last lines. */
export async function readBuildLogs(
  db: Executor,
  buildId: string,
  options: { tail?: number } = {},
): Promise<BuildLogRow[]> {
  if (options.tail === undefined)
    return db.select().from(buildLogs).where(eq(buildLogs.buildId, buildId)).orderBy(asc(buildLogs.id));
  const rows = await db
    .select()
    .from(buildLogs)
    .where(eq(buildLogs.buildId, buildId))
    .orderBy(desc(buildLogs.id))
    .limit(options.tail);
  return rows.reverse();
}

/** The last `tail` log lines of each build, read in one query. */
export async function readLogTails(
  db: Executor,
  buildIds: string[],
  tail: number,
): Promise<Map<string, BuildLogRow[]>> {
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
  const rows = await db
    .select()
    .from(ranked)
    .where(sql`${ranked.rank} <= ${tail}`)
    .orderBy(asc(ranked.id));
  for (const row of rows)
    byBuild
      .get(row.buildId)
      ?.push({ id: row.id, buildId: row.buildId, at: row.at, stream: row.stream, line: row.line });
  return byBuild;
}

export async function listBuilds(
  db: Executor,
  siteId: string,
  page: { offset: number; pageSize: number },
): Promise<{ rows: BuildRow[]; total: number }> {
  const [total] = await db.select({ n: count() }).from(builds).where(eq(builds.siteId, siteId));
  const rows = await db
    .select()
    .from(builds)
    .where(eq(builds.siteId, siteId))
    .orderBy(desc(builds.createdAt), desc(builds.id))
    .limit(page.pageSize)
    .offset(page.offset);
  return { rows, total: total?.n ?? 0 };
}

export function isFinished(row: BuildRow): boolean {
  return row.state === 'succeeded' || row.state === 'failed' || row.state === 'canceled';
}
