// Builds from uploaded Markdown: the upload is checked under the archive rules before anything is
// queued (a hostile archive is refused with its own code and leaves no build), stored in the blob
// store so a worker on any node can take it, and queued. Callers may wait for the outcome, and may
// cancel a build: a queued one at once, a running one by telling the worker that runs it.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BlobStore } from '../../adapters/blobs/index.js';
import type { PubSub } from '../../adapters/cache/index.js';
import type { Database } from '../../db/client.js';
import { AppError } from '../../http/errors.js';
import { spoolArchive, type ArchiveLimits } from '../archive.js';
import { putFile, UploadBlobs } from '../blobs.js';
import { tempPrefix } from '../temp-dirs.js';
import { enqueueBuild, findBuild, isFinished, newBuildId, requestBuildCancel } from './queue.js';
import { buildInputKey } from './run.js';
import type { BuildLogRow, BuildRow } from './tables.js';
import { BUILD_CANCEL_CHANNEL } from './worker.js';

export type { BuildLogRow, BuildRow };

interface SourceUploadContext {
  db: Database;
  blobs: BlobStore;
  limits: ArchiveLimits;
  tmpDir: string;
}

export async function queueSourceUpload(
  ctx: SourceUploadContext,
  siteId: string,
  upload: Readable,
  requestedBy: string | null = null,
): Promise<BuildRow> {
  const id = newBuildId();
  await mkdir(ctx.tmpDir, { recursive: true });
  const file = path.join(ctx.tmpDir, `${tempPrefix('source')}${id}`);
  try {
    await pipeline(upload, createWriteStream(file));
    // Checked here so a bad archive is refused at once; the worker checks it again when it unpacks.
    const spooled = await spoolArchive(createReadStream(file), ctx.limits, ctx.tmpDir, { compression: 'sniff' });
    await spooled.dispose();
    // The input is named by an intent before it lands and the intent goes with the build's commit,
    // so an input whose upload died (or failed) between the two is swept (decision 0055).
    const key = buildInputKey(id);
    const stored = new UploadBlobs();
    await stored.intend(ctx.db, [], [key]);
    await putFile(ctx.blobs, key, file, (await stat(file)).size);
    return await ctx.db.transaction(async (tx) => {
      const build = await enqueueBuild(tx, {
        id,
        siteId,
        trigger: 'upload',
        kind: 'markdown',
        inputKey: key,
        requestedBy,
      });
      await stored.removeIntent(tx);
      return build;
    });
  } finally {
    await rm(file, { force: true });
  }
}

const WAIT_POLL_MS = 200;

/** The build once it has ended, or its current row when `timeoutMs` passes first. */
export async function waitForBuild(
  db: Database,
  siteId: string,
  buildId: string,
  timeoutMs: number,
): Promise<BuildRow> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await findBuild(db, siteId, buildId);
    if (!row) throw new Error(`build ${buildId} disappeared while waited for`);
    if (isFinished(row) || Date.now() >= deadline) return row;
    await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS));
  }
}

interface CancelContext {
  db: Database;
  blobs: BlobStore;
  pubsub: PubSub;
}

/**
 * Cancels a build for `by` (who asked, for the log). A queued build answers `canceled`; a running
 * one answers with the request recorded, and the node running it hears of it over pub/sub (or at
 * its next lease renewal if the message is lost). 404 for an unknown build, 409 `build_finished`
 * for one that ended otherwise; canceling a canceled build answers it as it is.
 */
export async function cancelBuild(ctx: CancelContext, siteId: string, buildId: string, by: string): Promise<BuildRow> {
  const request = await requestBuildCancel(ctx.db, siteId, buildId, by);
  switch (request.outcome) {
    case 'missing':
      throw new AppError('build_not_found', `Site "${siteId}" has no build "${buildId}".`);
    case 'canceled':
      // No worker will take it, so nobody else removes its upload.
      if (request.row.inputKey) await ctx.blobs.delete(request.row.inputKey);
      return request.row;
    case 'requested':
      await ctx.pubsub.publish(BUILD_CANCEL_CHANNEL, buildId);
      return request.row;
    case 'finished':
      if (request.row.state === 'canceled') return request.row;
      throw new AppError(
        'build_finished',
        `Build "${buildId}" already ended ${request.row.state}; there is nothing to cancel.`,
        { build_id: buildId, state: request.row.state },
      );
  }
}
