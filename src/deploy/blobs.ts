// Content-addressed storage of release files: one blob per distinct sha256, with precompressed
// gzip and brotli variants beside it for compressible types, made once at ingest.
import { createReadStream, createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { constants as zlib, createBrotliCompress, createGzip } from 'node:zlib';
import { inArray, sql } from 'drizzle-orm';
import type { BlobStore } from '../adapters/blobs/index.js';
import type { Executor } from '../db/client.js';
import { queryRows } from '../db/client.js';
import { contentTypeFor, isCompressible } from './content-types.js';
import type { SpooledFile } from './archive.js';
import { releaseFiles } from './tables.js';

export type Variant = 'identity' | 'gzip' | 'br';

export function blobKey(hash: string, variant: Variant = 'identity'): string {
  const base = `sha256/${hash.slice(0, 2)}/${hash}`;
  return variant === 'identity' ? base : `${base}.${variant === 'gzip' ? 'gz' : 'br'}`;
}

/** Files smaller than this gain nothing from compression once headers are counted. */
const COMPRESS_MIN_BYTES = 256;
/** A variant is kept only when it saves at least a tenth. */
const COMPRESS_MAX_RATIO = 0.9;
const BLOB_CONCURRENCY = 8;
/** Serializes blob commits against cleanup of rejected uploads (and pruning) on every node. */
export const BLOB_LOCK = 71_149_101;

export interface StoredFile {
  path: string;
  hash: string;
  size: number;
  contentType: string;
  gzipSize: number | null;
  brotliSize: number | null;
}

export interface StoreOutcome {
  files: StoredFile[];
  /** Distinct blobs this upload put into the store that were not there before. */
  newBlobs: number;
}

interface VariantSizes {
  gzipSize: number | null;
  brotliSize: number | null;
}

async function compressTo(spool: string, variant: 'gzip' | 'br', size: number): Promise<{ file: string; size: number } | undefined> {
  const file = `${spool}.${variant}`;
  const compressor =
    variant === 'gzip'
      ? createGzip({ level: 9 })
      : createBrotliCompress({
          params: {
            // Quality 11 is slow on large files; big bundles take a cheaper setting.
            [zlib.BROTLI_PARAM_QUALITY]: size <= 1024 * 1024 ? 11 : 7,
            [zlib.BROTLI_PARAM_SIZE_HINT]: size,
          },
        });
  await pipeline(createReadStream(spool), compressor, createWriteStream(file));
  const compressed = (await stat(file)).size;
  if (compressed > size * COMPRESS_MAX_RATIO) {
    await rm(file);
    return undefined;
  }
  return { file, size: compressed };
}

/** Variant sizes of hashes already in committed releases, so unchanged files are not recompressed. */
async function committedVariants(db: Executor, hashes: string[]): Promise<Map<string, VariantSizes>> {
  const known = new Map<string, VariantSizes>();
  for (let i = 0; i < hashes.length; i += 1000) {
    const chunk = hashes.slice(i, i + 1000);
    const rows = await db
      .selectDistinctOn([releaseFiles.hash], { hash: releaseFiles.hash, gzipSize: releaseFiles.gzipSize, brotliSize: releaseFiles.brotliSize })
      .from(releaseFiles)
      .where(inArray(releaseFiles.hash, chunk));
    for (const row of rows) known.set(row.hash, { gzipSize: row.gzipSize, brotliSize: row.brotliSize });
  }
  return known;
}

async function putFile(blobs: BlobStore, key: string, file: string, size: number): Promise<void> {
  await blobs.put(key, createReadStream(file), size);
}

/**
 * Puts every distinct blob that committed releases do not already hold. Blobs this call created are
 * added to `written` as they land, so the caller can remove them if the release is not committed.
 */
export async function storeFiles(db: Executor, blobs: BlobStore, spooled: SpooledFile[], written: Set<string>): Promise<StoreOutcome> {
  const byHash = new Map<string, SpooledFile>();
  for (const file of spooled) if (!byHash.has(file.hash)) byHash.set(file.hash, file);
  const known = await committedVariants(db, [...byHash.keys()]);
  const sizes = new Map<string, VariantSizes>(known);
  let newBlobs = 0;

  const queue = [...byHash.values()].filter((file) => !known.has(file.hash));
  const worker = async (): Promise<void> => {
    for (let file = queue.shift(); file; file = queue.shift()) {
      const existed = await blobs.has(blobKey(file.hash));
      const variants: VariantSizes = { gzipSize: null, brotliSize: null };
      const type = contentTypeFor(file.path);
      if (isCompressible(type) && file.size >= COMPRESS_MIN_BYTES) {
        const gzip = await compressTo(file.spool, 'gzip', file.size);
        const brotli = await compressTo(file.spool, 'br', file.size);
        // Variants land before the main blob: a present main blob means its variants are there too.
        if (gzip) {
          await putFile(blobs, blobKey(file.hash, 'gzip'), gzip.file, gzip.size);
          variants.gzipSize = gzip.size;
        }
        if (brotli) {
          await putFile(blobs, blobKey(file.hash, 'br'), brotli.file, brotli.size);
          variants.brotliSize = brotli.size;
        }
      }
      if (!existed) written.add(file.hash);
      await putFile(blobs, blobKey(file.hash), file.spool, file.size);
      if (!existed) newBlobs++;
      sizes.set(file.hash, variants);
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
  for (let i = 0; i < hashes.length; i += 1000) {
    const chunk = hashes.slice(i, i + 1000);
    const rows = await queryRows<{ hash: string }>(
      tx,
      sql`select distinct hash from ${releaseFiles} where ${inArray(releaseFiles.hash, chunk)}`,
    );
    for (const row of rows) referenced.add(row.hash);
  }
  return hashes.filter((hash) => !referenced.has(hash));
}

/** Deletes a blob and its variants; the main blob first, so a half-deleted blob reads as absent. */
export async function deleteBlob(blobs: BlobStore, hash: string): Promise<void> {
  await blobs.delete(blobKey(hash));
  await blobs.delete(blobKey(hash, 'gzip'));
  await blobs.delete(blobKey(hash, 'br'));
}
