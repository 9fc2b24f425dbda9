// Content-addressed storage of release files: one blob per distinct sha256, with precompressed
// gzip and brotli variants beside it for compressible types, made once at ingest (while spooling,
// or here for files that arrive without them).
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { createBrotliCompress, createGzip } from 'node:zlib';
import { eq, lt, sql, type SQL } from 'drizzle-orm';
import type { BlobStore } from '../adapters/blobs/index.js';
import type { Executor } from '../db/client.js';
import { queryRows } from '../db/client.js';
import { textArray } from '../db/prepared.js';
import type { SpooledFile, SpooledVariants } from './spool-writer.js';
import {
  COMPRESSED_VARIANTS,
  compressorOptions,
  variantSuffix,
  wantsVariants,
  worthKeeping,
  type CompressedVariant,
} from './compression.js';
import { contentTypeFor } from './content-types.js';
import { compressSpooled, WHOLE_FILE_BYTES } from './spool-writer.js';
import { newId } from '../lib/ids.js';
import { blobIntents, releaseFiles } from './tables.js';

export type Variant = 'identity' | CompressedVariant;

export function blobKey(hash: string, variant: Variant = 'identity'): string {
  const base = `sha256/${hash.slice(0, 2)}/${hash}`;
  return variant === 'identity' ? base : base + variantSuffix(variant);
}

/** Blob puts in flight: each is a few file-system calls (local) or a request (S3). */
const BLOB_CONCURRENCY = 16;
/** Serializes blob commits against cleanup of rejected uploads (and pruning) on every node. */
const BLOB_LOCK = 71_149_101;

export interface StoredFile {
  path: string;
  hash: string;
  size: number;
  contentType: string;
  gzipSize: number | null;
  brotliSize: number | null;
}

interface StoreOutcome {
  files: StoredFile[];
  /** Distinct blobs this upload put into the store that were not there before. */
  newBlobs: number;
}

interface VariantSizes {
  gzipSize: number | null;
  brotliSize: number | null;
}

/** `hash = any($1)`: one array parameter for many hashes. */
function hashIn(hashes: string[]): SQL {
  return sql`${releaseFiles.hash} = any(${textArray(hashes)})`;
}

/** Hashes per query: bounds what one query holds in the embedded database's memory, which never shrinks. */
const HASHES_PER_QUERY = 2000;

function* chunksOf<T>(items: T[], size: number): Iterable<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}

/** Variant sizes of hashes already in committed releases, so unchanged files are not recompressed. */
export async function committedVariants(db: Executor, hashes: string[]): Promise<Map<string, VariantSizes>> {
  const sizes = new Map<string, VariantSizes>();
  for (const chunk of chunksOf(hashes, HASHES_PER_QUERY)) {
    const rows = await db
      .selectDistinctOn([releaseFiles.hash], {
        hash: releaseFiles.hash,
        gzipSize: releaseFiles.gzipSize,
        brotliSize: releaseFiles.brotliSize,
      })
      .from(releaseFiles)
      .where(hashIn(chunk));
    for (const row of rows) sizes.set(row.hash, { gzipSize: row.gzipSize, brotliSize: row.brotliSize });
  }
  return sizes;
}

/** Streams a large file through a compressor into `<variantsAt>.gz|.br`, keeping what pays. */
async function compressLargeFile(file: SpooledFile, variantsAt: string): Promise<SpooledVariants> {
  const variants: SpooledVariants = {};
  for (const variant of COMPRESSED_VARIANTS) {
    const target = variantsAt + variantSuffix(variant);
    const options = compressorOptions(variant, file.size);
    await pipeline(
      createReadStream(file.spool),
      variant === 'gzip' ? createGzip(options) : createBrotliCompress(options),
      createWriteStream(target, { mode: 0o640 }),
    );
    const { size } = await stat(target);
    if (worthKeeping(size, file.size)) variants[variant] = { file: target, size };
    else await rm(target);
  }
  return variants;
}

/** Makes the variants spooling did not (folders, build sources, large files), in `scratchDir`. */
async function makeVariants(files: SpooledFile[], scratchDir: string): Promise<void> {
  const missing = files.filter((file) => file.variants === undefined && wantsVariants(file.path, file.size));
  if (missing.length === 0) return;
  await mkdir(scratchDir, { recursive: true });
  await compressSpooled(
    missing.filter((file) => file.size <= WHOLE_FILE_BYTES),
    scratchDir,
  );
  let next = 0;
  for (const file of missing.filter((candidate) => candidate.size > WHOLE_FILE_BYTES)) {
    file.variants = await compressLargeFile(file, `${scratchDir}/large-${next++}`);
  }
}

/** A local store takes the spooled file by rename, so a kill leaves no half-written blob; other stores stream it. */
export async function putFile(blobs: BlobStore, key: string, file: string, size: number): Promise<void> {
  if (blobs.moveIn) await blobs.moveIn(key, file);
  else await blobs.put(key, createReadStream(file), size);
}

/**
 * The blobs one upload writes. Before the first lands, their hashes are committed as an intent
 * row, which the release's commit (or the upload's own cleanup) removes; a row left by a dead
 * upload tells the sweep what it may have left unreferenced (decision 0055).
 */
export class UploadBlobs {
  readonly intentId = newId(16);
  /** Blobs this upload created, added before they land. */
  readonly written = new Set<string>();
  private recorded = false;

  /** Whether an intent was recorded (nothing is written without one). */
  get intended(): boolean {
    return this.recorded;
  }

  /** Records content blobs by hash, and `keys` of blobs nothing references (a build's source). */
  async intend(db: Executor, hashes: string[], keys: string[] = []): Promise<void> {
    if (hashes.length === 0 && keys.length === 0) return;
    await db.insert(blobIntents).values({ id: this.intentId, hashes, keys });
    this.recorded = true;
  }

  /** Removes the intent, in the transaction that commits the release or discards the blobs. */
  async removeIntent(tx: Executor): Promise<void> {
    if (this.recorded) await tx.delete(blobIntents).where(eq(blobIntents.id, this.intentId));
  }
}

/**
 * Puts every distinct blob that committed releases do not already hold, recording the intent first.
 * Variants still to make are made in `scratchDir` (created when needed; the caller removes it).
 */
export async function storeFiles(
  db: Executor,
  blobs: BlobStore,
  spooled: SpooledFile[],
  upload: UploadBlobs,
  scratchDir: string,
): Promise<StoreOutcome> {
  const byHash = new Map<string, SpooledFile>();
  for (const file of spooled) if (!byHash.has(file.hash)) byHash.set(file.hash, file);
  const committed = await committedVariants(db, [...byHash.keys()]);
  const sizes = new Map<string, VariantSizes>(committed);
  const fresh = [...byHash.values()].filter((file) => !committed.has(file.hash));
  await upload.intend(
    db,
    fresh.map((file) => file.hash),
  );
  await makeVariants(fresh, scratchDir);

  let newBlobs = 0;
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let file = fresh[next++]; file; file = fresh[next++]) {
      const existed = await blobs.has(blobKey(file.hash));
      if (!existed) upload.written.add(file.hash);
      // Variants land before the main blob: a present main blob means its variants are there too.
      for (const variant of COMPRESSED_VARIANTS) {
        const made = file.variants?.[variant];
        if (made) await putFile(blobs, blobKey(file.hash, variant), made.file, made.size);
      }
      await putFile(blobs, blobKey(file.hash), file.spool, file.size);
      if (!existed) newBlobs++;
      sizes.set(file.hash, {
        gzipSize: file.variants?.gzip?.size ?? null,
        brotliSize: file.variants?.br?.size ?? null,
      });
    }
  };
  await Promise.all(Array.from({ length: BLOB_CONCURRENCY }, worker));

  return {
    newBlobs,
    files: spooled.map((file) => ({
      path: file.path,
      hash: file.hash,
      size: file.size,
      contentType: contentTypeFor(file.path),
      ...sizes.get(file.hash)!,
    })),
  };
}

/** Takes the blob lock for the rest of the transaction. */
export async function lockBlobs(tx: Executor): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${BLOB_LOCK})`);
}

/** Hashes among `hashes` that no committed release references. */
export async function unreferencedHashes(tx: Executor, hashes: string[]): Promise<string[]> {
  const referenced = new Set<string>();
  for (const chunk of chunksOf(hashes, HASHES_PER_QUERY)) {
    const rows = await queryRows<{ hash: string }>(
      tx,
      sql`select distinct hash from ${releaseFiles} where ${hashIn(chunk)}`,
    );
    for (const row of rows) referenced.add(row.hash);
  }
  return hashes.filter((hash) => !referenced.has(hash));
}

/**
 * Removes what uploads that died left: for each intent older than `before` (every intent, when
 * this process alone can be uploading), its blobs that no committed release references and its
 * keyed blobs, then the intent. Under the blob lock, so no commit can borrow a blob while it goes.
 * Answers the blobs removed.
 */
export async function sweepBlobIntents(db: Executor, blobs: BlobStore, before?: Date): Promise<number> {
  const dead = await db
    .select()
    .from(blobIntents)
    .where(before ? lt(blobIntents.createdAt, before) : undefined);
  let removed = 0;
  for (const intent of dead) {
    await db.transaction(async (tx) => {
      await lockBlobs(tx);
      for (const hash of await unreferencedHashes(tx, intent.hashes)) {
        await deleteBlob(blobs, hash);
        removed++;
      }
      for (const key of intent.keys) {
        await blobs.delete(key);
        removed++;
      }
      await tx.delete(blobIntents).where(eq(blobIntents.id, intent.id));
    });
  }
  return removed;
}

/** Deletes a blob and its variants; the main blob first, so a half-deleted blob reads as absent. */
export async function deleteBlob(blobs: BlobStore, hash: string): Promise<void> {
  await blobs.delete(blobKey(hash));
  await blobs.delete(blobKey(hash, 'gzip'));
  await blobs.delete(blobKey(hash, 'br'));
}
