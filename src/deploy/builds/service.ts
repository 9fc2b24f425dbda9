// Builds from uploaded Markdown: the upload is checked under the archive rules before anything is
// queued (a hostile archive is refused with its own code and leaves no build), stored in the blob
// store so a worker on any node can take it, and queued. Callers may wait for the outcome.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BlobStore } from '../../adapters/blobs/index.js';
import type { Database } from '../../db/client.js';
import { spoolArchive, type ArchiveLimits } from '../archive.js';
import { enqueueBuild, findBuild, isFinished, newBuildId } from './queue.js';
import { buildInputKey } from './run.js';
import type { BuildRow } from './tables.js';

export interface SourceUploadContext {
  db: Database;
  blobs: BlobStore;
  limits: ArchiveLimits;
  tmpDir: string;
}

export async function queueSourceUpload(ctx: SourceUploadContext, siteId: string, upload: Readable): Promise<BuildRow> {
  const id = newBuildId();
  await mkdir(ctx.tmpDir, { recursive: true });
  const file = path.join(ctx.tmpDir, `source-${id}`);
  try {
    await pipeline(upload, createWriteStream(file));
    // Checked here so a bad archive is refused at once; the worker checks it again when it unpacks.
    const spooled = await spoolArchive(createReadStream(file), ctx.limits, ctx.tmpDir, { compression: 'sniff' });
    await spooled.dispose();
    const key = buildInputKey(id);
    await ctx.blobs.put(key, createReadStream(file), (await stat(file)).size);
    return await enqueueBuild(ctx.db, { id, siteId, trigger: 'upload', kind: 'markdown', inputKey: key });
  } finally {
    await rm(file, { force: true });
  }
}

const WAIT_POLL_MS = 200;

/** The build once it has ended, or its current row when `timeoutMs` passes first. */
export async function waitForBuild(db: Database, siteId: string, buildId: string, timeoutMs: number): Promise<BuildRow> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await findBuild(db, siteId, buildId);
    if (!row) throw new Error(`build ${buildId} disappeared while waited for`);
    if (isFinished(row) || Date.now() >= deadline) return row;
    await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS));
  }
}
