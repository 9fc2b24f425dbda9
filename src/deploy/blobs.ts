// Content-addressed storage of release files: one blob per distinct sha256, with precompressed
// gzip and brotli variants beside it for compressible types, made once at ingest.
import { createReadStream, createWriteStream } from 'node:fs';
import { readFile, rm, stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, createBrotliCompress, createGzip, gzip, type BrotliOptions, type ZlibOptions } from 'node:zlib';
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
/**
 * Measured on site text (docs/decisions/0017-edge-and-ingest-speed.md): brotli 11 is ~50x slower
 * than 7 for ~10% smaller files and made ingest take minutes; gzip 9 is ~4x slower than 6 for ~3%.
 */
const BROTLI_QUALITY = 7;
const GZIP_LEVEL = 6;
/** Files up to this size are compressed and stored from memory (BLOB_CONCURRENCY of them at once). */
const IN_MEMORY_BYTES = 1024 * 1024;
const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);
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

function compressorOptions(variant: 'gzip' | 'br', size: number): ZlibOptions | BrotliOptions {
  if (variant === 'gzip') return { level: GZIP_LEVEL };
  return { params: { [zlib.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [zlib.BROTLI_PARAM_SIZE_HINT]: size } };
}

/** A compressed variant, kept only when it saves enough: in memory for small files, else spooled. */
async function compress(source: Buffer | string, variant: 'gzip' | 'br', size: number): Promise<{ body: Buffer | string; size: number } | undefined> {
  let result: { body: Buffer | string; size: number };
  if (Buffer.isBuffer(source)) {
    const body = variant === 'gzip' ? await gzipAsync(source, compressorOptions(variant, size)) : await brotliAsync(source, compressorOptions(variant, size));
    result = { body, size: body.length };
  } else {
    const file = `${source}.${variant}`;
    const compressor = variant === 'gzip' ? createGzip(compressorOptions(variant, size)) : createBrotliCompress(compressorOptions(variant, size));
    await pipeline(createReadStream(source), compressor, createWriteStream(file));
    result = { body: file, size: (await stat(file)).size };
  }
  if (result.size <= size * COMPRESS_MAX_RATIO) return result;
  if (typeof result.body === 'string') await rm(result.body);
  return undefined;
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

/** A Buffer goes in as it is; a spooled file path is streamed. */
async function putBody(blobs: BlobStore, key: string, body: Buffer | string, size: number): Promise<void> {
  await blobs.put(key, Buffer.isBuffer(body) ? body : createReadStream(body), size);
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
      // Small files are read once and handled in memory: separate reads, temporary variant files
      // and streams per file cost more than the work itself on sites of many small files.
      const compressible = isCompressible(type) && file.size >= COMPRESS_MIN_BYTES;
      const source = compressible && file.size <= IN_MEMORY_BYTES ? await readFile(file.spool) : file.spool;
      if (compressible) {
        const [gzip, brotli] = await Promise.all([compress(source, 'gzip', file.size), compress(source, 'br', file.size)]);
        // Variants land before the main blob: a present main blob means its variants are there too.
        if (gzip) {
          await putBody(blobs, blobKey(file.hash, 'gzip'), gzip.body, gzip.size);
          variants.gzipSize = gzip.size;
        }
        if (brotli) {
          await putBody(blobs, blobKey(file.hash, 'br'), brotli.body, brotli.size);
          variants.brotliSize = brotli.size;
        }
      }
      if (!existed) written.add(file.hash);
      // The spool is this upload's own copy: a store on this disk takes it by rename, not a copy.
      if (blobs.moveIn) await blobs.moveIn(blobKey(file.hash), file.spool);
      else await putBody(blobs, blobKey(file.hash), source, file.size);
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
