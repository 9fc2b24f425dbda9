// Which release files get precompressed gzip and brotli variants, and how they are made. Shared by
// the spool worker (whole small files, synchronously) and the streaming path for large files.
import { brotliCompressSync, constants as zlib, gzipSync, type BrotliOptions, type ZlibOptions } from 'node:zlib';
import { contentTypeFor, isCompressible } from './content-types.js';

export type CompressedVariant = 'gzip' | 'br';
export const COMPRESSED_VARIANTS: readonly CompressedVariant[] = ['gzip', 'br'];

/** Files smaller than this gain nothing from compression once headers are counted. */
const COMPRESS_MIN_BYTES = 256;
/** A variant is kept only when it saves at least a tenth. */
const COMPRESS_MAX_RATIO = 0.9;
/**
 * Measured on 50 MiB of real text (JS, CSS, HTML, JSON; docs/decisions/0017-edge-and-ingest-speed.md):
 * brotli 6 makes files 1 % larger than 7 in half the time (5 is no faster, 4 is 8 % larger); 11 is
 * ~50x slower than 7 for ~10 %. gzip 9 is ~4x slower than 6 for ~3 %.
 */
const BROTLI_QUALITY = 6;
const GZIP_LEVEL = 6;

export function wantsVariants(sitePath: string, size: number): boolean {
  return size >= COMPRESS_MIN_BYTES && isCompressible(contentTypeFor(sitePath));
}

export function worthKeeping(compressedSize: number, size: number): boolean {
  return compressedSize <= size * COMPRESS_MAX_RATIO;
}

export function compressorOptions(variant: CompressedVariant, size: number): ZlibOptions | BrotliOptions {
  if (variant === 'gzip') return { level: GZIP_LEVEL };
  return { params: { [zlib.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [zlib.BROTLI_PARAM_SIZE_HINT]: size } };
}

export function compressSync(body: Buffer, variant: CompressedVariant): Buffer {
  return variant === 'gzip'
    ? gzipSync(body, compressorOptions(variant, body.length))
    : brotliCompressSync(body, compressorOptions(variant, body.length));
}

/** File name suffix of a variant, in the blob store and in spool folders. */
export function variantSuffix(variant: CompressedVariant): string {
  return variant === 'gzip' ? '.gz' : '.br';
}
