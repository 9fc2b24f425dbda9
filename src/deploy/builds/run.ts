// Running one claimed build: get the source (the uploaded archive from the blob store, or the pushed
// commit over git), check it under the archive rules, then either build Markdown in the sandbox or
// take the folder as is, and ingest the result as a release. The release row and the build's
// `succeeded` state commit in one transaction, so a build that lost its lease, or whose cancel was
// asked for, never leaves a release.
import { createReadStream } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { and, eq, isNull } from 'drizzle-orm';
import type { BlobStore } from '../../adapters/blobs/index.js';
import type { BuildsConfig } from '../../config/index.js';
import type { Database } from '../../db/client.js';
import { AppError } from '../../http/errors.js';
import { spoolArchive, type ArchiveLimits, type SpooledArchive } from '../archive.js';
import { runSandboxedBuild } from '../build/sandboxed-build.js';
import { buildEnvironment, maskSecrets } from '../env-vars.js';
import { fetchCommitTar, fetchFileDates, GitFetchError, type FetchCommitOptions } from '../git/fetch.js';
import { ingestFolder, ingestSpooled, type IngestContext, type ReleaseOrigin } from '../ingest.js';
import type { ReleaseRow } from '../tables.js';
import { tempPrefix } from '../temp-dirs.js';
import type { BuildLogWriter } from './log-writer.js';
import { builds, type BuildRow } from './tables.js';

export interface BuildContext {
  db: Database;
  blobs: BlobStore;
  limits: ArchiveLimits;
  tmpDir: string;
  settings: BuildsConfig;
  /** Opens the site's sealed build environment variables. */
  secretKey: string;
  /** Tests of the worker only: a script the sandbox runs instead of the docs builder. */
  builderScript?: string;
}

/** A build that failed for a reason its author can act on; the message goes to the log and `error`. */
export class BuildFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BuildFailure';
  }
}

/** The build was canceled (the reason its sandbox was stopped, or why its release was discarded). */
export class BuildCanceled extends Error {
  constructor() {
    super('the build was canceled');
    this.name = 'BuildCanceled';
  }
}

export function buildInputKey(buildId: string): string {
  return `build-inputs/${buildId}`;
}

async function materialize(spooled: SpooledArchive, dir: string): Promise<void> {
  for (const file of spooled.files) {
    const target = path.join(dir, ...file.path.split('/'));
    await mkdir(path.dirname(target), { recursive: true });
    await copyFile(file.spool, target);
  }
}

async function sourceArchive(
  ctx: BuildContext,
  job: BuildRow,
  workDir: string,
  log: BuildLogWriter,
  signal: AbortSignal,
  deadline: number,
): Promise<SpooledArchive> {
  if (job.trigger === 'upload') {
    const stream = job.inputKey ? await ctx.blobs.get(job.inputKey) : undefined;
    if (!stream) throw new BuildFailure('the uploaded source is no longer stored');
    return spoolArchive(stream, ctx.limits, workDir, { compression: 'sniff' });
  }
  const tar = await fetchCommitTar(gitOptions(ctx, job, workDir, log, signal, deadline));
  const spooled = await spoolArchive(createReadStream(tar), ctx.limits, workDir, { compression: 'sniff' });
  log.add(
    'blume',
    `fetched ${spooled.files.length} files (${spooled.size} bytes)${job.path ? ` from ${job.path}/` : ''}`,
  );
  return spooled;
}

function gitOptions(
  ctx: BuildContext,
  job: BuildRow,
  workDir: string,
  log: BuildLogWriter,
  signal: AbortSignal,
  deadline: number,
): FetchCommitOptions {
  if (!job.git) throw new BuildFailure('the build names no commit');
  return {
    baseUrl: ctx.settings.gitBaseUrl,
    repository: job.git.repository,
    commit: job.git.commit,
    path: job.path,
    workDir,
    timeoutMs: Math.max(1, deadline - Date.now()),
    signal,
    log: (line) => log.add('blume', line),
  };
}

/** The pages' "last updated" dates from the repository's history; a build without them still succeeds. */
async function pageDates(
  ctx: BuildContext,
  job: BuildRow,
  workDir: string,
  log: BuildLogWriter,
  signal: AbortSignal,
  deadline: number,
): Promise<ReadonlyMap<string, string> | undefined> {
  try {
    const dates = await fetchFileDates(gitOptions(ctx, job, workDir, log, signal, deadline));
    log.add('blume', `read the last change of ${dates.size} files from the history`);
    return dates;
  } catch (error) {
    if (!(error instanceof GitFetchError)) throw error;
    log.add('blume', `the pages get no "last updated" date: ${error.message}`);
    return undefined;
  }
}

/**
 * Runs the build and answers its release. Throws BuildFailure (or an AppError from the archive
 * rules) when the content is at fault; anything else is a fault of Blume and is rethrown as is.
 */
export async function runBuild(
  ctx: BuildContext,
  job: BuildRow,
  workerId: string,
  log: BuildLogWriter,
  signal: AbortSignal,
): Promise<ReleaseRow> {
  const deadline = Date.now() + ctx.settings.timeoutMs;
  await mkdir(ctx.tmpDir, { recursive: true });
  const workDir = await mkdtemp(path.join(ctx.tmpDir, `${tempPrefix('build')}${job.id}-`));
  const ingest: IngestContext = { db: ctx.db, blobs: ctx.blobs, limits: ctx.limits, tmpDir: workDir };
  const origin: ReleaseOrigin = {
    source: job.kind === 'markdown' ? 'markdown' : 'static',
    promotable: job.promotable,
    buildId: job.id,
    git: job.git ?? null,
    createdBy: job.requestedBy,
    buildStartedAt: job.startedAt,
    onCommit: async (tx, release) => {
      const done = await tx
        .update(builds)
        .set({ state: 'succeeded', releaseId: release.id, error: null, finishedAt: new Date(), leaseOwner: null })
        .where(
          and(
            eq(builds.id, job.id),
            eq(builds.leaseOwner, workerId),
            eq(builds.state, 'running'),
            isNull(builds.cancelRequestedAt),
          ),
        )
        .returning({ id: builds.id });
      if (done.length === 0) {
        const [row] = await tx
          .select({ cancelRequestedAt: builds.cancelRequestedAt })
          .from(builds)
          .where(eq(builds.id, job.id));
        if (row?.cancelRequestedAt) throw new BuildCanceled();
        throw new BuildFailure('this worker lost the build (its lease lapsed); the release was discarded');
      }
    },
  };
  try {
    let spooled: SpooledArchive;
    try {
      spooled = await sourceArchive(ctx, job, workDir, log, signal, deadline);
    } catch (error) {
      if (error instanceof GitFetchError) throw new BuildFailure(error.message);
      throw error;
    }
    if (job.kind === 'static') {
      log.add('blume', 'storing the files as they are (kind: static)');
      // The build turns `succeeded` when the release commits; its log must be complete by then.
      await log.sync();
      return await ingestSpooled(ingest, job.siteId, spooled, origin);
    }
    const input = path.join(workDir, 'src');
    const output = path.join(workDir, 'out');
    try {
      await materialize(spooled, input);
    } finally {
      await spooled.dispose();
    }
    const dates = job.git ? await pageDates(ctx, job, workDir, log, signal, deadline) : undefined;
    // A branch build that cannot be promoted is a preview; every other build is for production.
    const context = job.promotable ? 'production' : 'preview';
    const environment = await buildEnvironment(ctx.db, ctx.secretKey, job.siteId, context);
    const names = Object.keys(environment.variables).sort();
    log.add(
      'blume',
      names.length === 0
        ? `no environment variables for ${context} builds`
        : `environment variables (${context}): ${names.join(', ')}`,
    );
    const result = await runSandboxedBuild({
      inputDir: input,
      env: environment.variables,
      ...(dates === undefined ? {} : { pageDates: dates }),
      outputDir: output,
      timeoutMs: Math.max(1, deadline - Date.now()),
      memoryMb: ctx.settings.memoryMb,
      maxOutputBytes: ctx.limits.uncompressedBytes,
      signal,
      builderScript: ctx.builderScript,
      // Inside the build's folder, so whatever removes that (the end of the build, the sweep at start) removes it too.
      scratchDir: workDir,
      // The sandbox stamps each line when it arrives; the log keeps that time.
      // Secret values never reach the stored log, whatever the build prints.
      onLog: (line) => log.add(line.stream, maskSecrets(line.line, environment.secrets), new Date(line.at)),
    });
    if (!result.ok) throw new BuildFailure(result.error ?? 'the build failed');
    log.add('blume', `storing ${result.stats.files} built files as a release`);
    await log.sync();
    return await ingestFolder(ingest, job.siteId, output, origin);
  } catch (error) {
    if (error instanceof AppError && error.status < 500) throw new BuildFailure(`${error.code}: ${error.message}`);
    throw error;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}
