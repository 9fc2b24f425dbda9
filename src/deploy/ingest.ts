// Deploys end to end: spool and check the archive (or folder), read `_headers`/`_redirects`, store the
// blobs, then commit the release in one transaction. A rejected upload leaves no release row and
// removes every blob it created (spec section 3: nothing visible unless the archive is within limits).
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { sql } from 'drizzle-orm';
import type { BlobStore } from '../adapters/blobs/index.js';
import type { Database, Transaction } from '../db/client.js';
import { AppError } from '../http/errors.js';
import { newId } from '../lib/ids.js';
import { spoolArchive, type ArchiveLimits, type SpooledArchive } from './archive.js';
import type { SpooledFile } from './spool-writer.js';
import {
  blobKey,
  committedVariants,
  deleteBlob,
  lockBlobs,
  storeFiles,
  unreferencedHashes,
  UploadBlobs,
  type StoredFile,
} from './blobs.js';
import { spoolFolder } from './folder.js';
import { parseSiteOptions, SITE_OPTIONS_FILE } from './site-options.js';
import { parseHeadersFile, parseRedirectsFile, RULES_FILE_MAX_BYTES } from './rules.js';
import { ensureAliases } from './service.js';
import { tempName } from './temp-dirs.js';
import { releaseFiles, releases, type GitCommit, type ReleaseRow, type ReleaseRules } from './tables.js';

export interface IngestContext {
  db: Database;
  blobs: BlobStore;
  limits: ArchiveLimits;
  /** Folder for spooled entries; on the data disk, never in memory. */
  tmpDir: string;
}

const RULE_FILES = {
  _headers: 'invalid_headers_file',
  _redirects: 'invalid_redirects_file',
  [SITE_OPTIONS_FILE]: 'invalid_blume_json',
} as const;
/** Bounds what one statement holds in the embedded database's memory, which never shrinks. */
const ROWS_PER_STATEMENT = 2000;

/** Whether a site path (after the archive rules) is a rules file rather than content. */
export function isRulesFile(sitePath: string): boolean {
  return Object.hasOwn(RULE_FILES, sitePath);
}

/** Takes the root `_headers`, `_redirects` and `_blume.json` out of the file list (they are rules, not content). */
async function extractRules(files: SpooledFile[]): Promise<{ rules: ReleaseRules; content: SpooledFile[] }> {
  const rules: ReleaseRules = { headers: [], redirects: [] };
  const content: SpooledFile[] = [];
  for (const file of files) {
    if (!isRulesFile(file.path)) {
      content.push(file);
      continue;
    }
    const code = RULE_FILES[file.path as keyof typeof RULE_FILES];
    if (file.size > RULES_FILE_MAX_BYTES)
      throw new AppError(code, `${file.path} is larger than ${RULES_FILE_MAX_BYTES} bytes.`, { file: file.path });
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(await readFile(file.spool));
    } catch {
      throw new AppError(code, `${file.path} is not UTF-8 text.`, { file: file.path });
    }
    if (file.path === '_headers') rules.headers = parseHeadersFile(text);
    else if (file.path === '_redirects') rules.redirects = parseRedirectsFile(text);
    else rules.options = parseSiteOptions(text);
  }
  if (content.length === 0) throw new AppError('archive_empty', 'The archive holds no files to serve.');
  return { rules, content };
}

/** Where a release came from; archive uploads are promotable and carry no build. */
export interface ReleaseOrigin {
  source: ReleaseRow['source'];
  /** False for preview-only releases (builds of a branch other than the connected one). */
  promotable: boolean;
  buildId: string | null;
  git: GitCommit | null;
  /** Who made it, in words (`deploy token "ci"`); null when unknown. */
  createdBy?: string | null;
  /** When the build that makes it started; the release keeps the build's duration up to its commit. */
  buildStartedAt?: Date | null;
  /** Runs inside the transaction that commits the release; throwing rolls the release back. */
  onCommit?: (tx: Transaction, release: ReleaseRow) => Promise<void>;
}

export const ARCHIVE_ORIGIN: ReleaseOrigin = { source: 'archive', promotable: true, buildId: null, git: null };

/** An archive or folder uploaded as built, by `by` (see ReleaseOrigin.createdBy). */
export function uploadOrigin(by: string): ReleaseOrigin {
  return { ...ARCHIVE_ORIGIN, createdBy: by };
}

async function commitRelease(
  ctx: IngestContext,
  siteId: string,
  files: StoredFile[],
  rules: ReleaseRules,
  newBlobs: number,
  upload: UploadBlobs,
  origin: ReleaseOrigin,
): Promise<ReleaseRow> {
  const id = newId(12);
  return ctx.db.transaction(async (tx) => {
    await lockBlobs(tx);
    // Blobs found in the store but not in any committed release may belong to an upload that was
    // rejected meanwhile and cleaned up; they must still be there now that cleanup is locked out.
    const borrowed = [...new Set(files.map((file) => file.hash))].filter((hash) => !upload.written.has(hash));
    for (const hash of await unreferencedHashes(tx, borrowed)) {
      if (!(await ctx.blobs.has(blobKey(hash))))
        throw new AppError(
          'deploy_conflict',
          'A blob this release shares with a concurrent upload was removed; upload again.',
        );
    }
    const [row] = await tx
      .insert(releases)
      .values({
        id,
        siteId,
        source: origin.source,
        fileCount: files.length,
        size: files.reduce((sum, file) => sum + file.size, 0),
        newBlobs,
        promotable: origin.promotable,
        buildId: origin.buildId,
        git: origin.git,
        createdBy: origin.createdBy ?? null,
        buildMs: origin.buildStartedAt ? Math.max(0, Date.now() - origin.buildStartedAt.getTime()) : null,
        rules,
      })
      .returning();
    for (let i = 0; i < files.length; i += ROWS_PER_STATEMENT) {
      // One JSON parameter per statement: a multi-row INSERT of 1,000 files took longer to build than to run.
      const rows = JSON.stringify(
        files
          .slice(i, i + ROWS_PER_STATEMENT)
          .map((file) => [file.path, file.hash, file.size, file.contentType, file.gzipSize, file.brotliSize]),
      );
      await tx.execute(sql`
        insert into ${releaseFiles} (release_id, path, hash, size, content_type, gzip_size, brotli_size)
        select ${id}, f->>0, f->>1, (f->>2)::bigint, f->>3, (f->>4)::bigint, (f->>5)::bigint
        from json_array_elements(${rows}::json) as f`);
    }
    await origin.onCommit?.(tx, row!);
    await upload.removeIntent(tx);
    return row!;
  });
}

/** Removes blobs an unsuccessful upload created, unless a committed release took them meanwhile. */
async function discardBlobs(ctx: IngestContext, upload: UploadBlobs): Promise<void> {
  if (!upload.intended) return;
  await ctx.db.transaction(async (tx) => {
    await lockBlobs(tx);
    for (const hash of await unreferencedHashes(tx, [...upload.written])) await deleteBlob(ctx.blobs, hash);
    await upload.removeIntent(tx);
  });
}

/** Stores spooled files as a new release; the one path every kind of deploy takes. */
export async function ingestSpooled(
  ctx: IngestContext,
  siteId: string,
  spooled: SpooledArchive,
  origin: ReleaseOrigin,
): Promise<ReleaseRow> {
  const upload = new UploadBlobs();
  const scratchDir = path.join(ctx.tmpDir, tempName('variants'));
  try {
    const { rules, content } = await extractRules(spooled.files);
    const stored = await storeFiles(ctx.db, ctx.blobs, content, upload, scratchDir);
    const release = await commitRelease(ctx, siteId, stored.files, rules, stored.newBlobs, upload, origin);
    await ensureAliases(ctx.db, siteId);
    return release;
  } catch (error) {
    await discardBlobs(ctx, upload);
    throw error;
  } finally {
    await spooled.dispose();
    await rm(scratchDir, { recursive: true, force: true });
  }
}

export async function ingestArchive(
  ctx: IngestContext,
  siteId: string,
  archive: Readable,
  origin: ReleaseOrigin = ARCHIVE_ORIGIN,
): Promise<ReleaseRow> {
  // Variants are made while the archive streams in, except for content a committed release holds.
  const variants = { stored: async (hashes: string[]) => new Set((await committedVariants(ctx.db, hashes)).keys()) };
  return ingestSpooled(ctx, siteId, await spoolArchive(archive, ctx.limits, ctx.tmpDir, { variants }), origin);
}

/** A folder on this machine (built docs, a checkout) as a release, under the archive rules. */
export async function ingestFolder(
  ctx: IngestContext,
  siteId: string,
  dir: string,
  origin: ReleaseOrigin,
): Promise<ReleaseRow> {
  return ingestSpooled(ctx, siteId, await spoolFolder(dir, ctx.limits), origin);
}
