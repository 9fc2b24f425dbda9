// Reading a deploy archive: gunzip -> tar parse -> per-entry checks -> each file spooled to a
// temporary folder while its sha256 is computed (files up to 1 MiB through the spool workers, which
// can also make their compressed variants on the way). Nothing is buffered whole and nothing reaches
// the blob store here, so an archive that breaks a rule (spec section 8) is rejected before any blob
// exists. Limits are counted as bytes flow, so a gzip bomb stops at the limit, not at the end.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough, Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import tar from 'tar-stream';
import { AppError, type ErrorCode } from '../http/errors.js';
import { collectYoungGeneration } from '../lib/young-gc.js';
import { tempName } from './temp-dirs.js';
import { SpoolWriter, WHOLE_FILE_BYTES, type SpooledFile, type VariantOptions } from './spool-writer.js';

export interface ArchiveLimits {
  /** Bytes of the uploaded tar.gz (413 `archive_too_large`). */
  compressedBytes: number;
  /** Bytes after gunzip, tar headers included (413 `archive_uncompressed_too_large`). */
  uncompressedBytes: number;
  /** Regular files (422 `archive_too_many_files`). */
  files: number;
}

const MiB = 1024 * 1024;
export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = {
  compressedBytes: 200 * MiB,
  uncompressedBytes: 512 * MiB,
  files: 50_000,
};

const MAX_PATH_BYTES = 1024;
const MAX_SEGMENT_BYTES = 255;

export interface SpooledArchive {
  files: SpooledFile[];
  /** Sum of file sizes. */
  size: number;
  /** Remove the temporary folder; call when done with the spools. */
  dispose(): Promise<void>;
}

/** Counts bytes through a stream and fails with `error()` once they pass `limit`. */
function byteLimit(limit: number, error: () => AppError, onCount?: (total: number) => void): Transform {
  let total = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      total += chunk.length;
      onCount?.(total);
      if (total > limit) callback(error());
      else callback(null, chunk);
    },
  });
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The entry name as UTF-8. Headers are decoded as latin1 so the raw bytes survive and can be checked;
 * names from PAX records are already decoded as UTF-8 by tar-stream, so a replacement character there
 * means the bytes were not UTF-8.
 */
function entryName(header: tar.Header): string {
  const pax = header.pax as Record<string, string> | null | undefined;
  if (pax?.path !== undefined) {
    if (header.name.includes('\uFFFD'))
      throw new AppError('archive_non_utf8_path', 'An entry name is not valid UTF-8.');
    return header.name;
  }
  try {
    return utf8.decode(Buffer.from(header.name, 'latin1'));
  } catch {
    throw new AppError('archive_non_utf8_path', `The entry name "${header.name}" is not valid UTF-8.`);
  }
}

/** The normalized path of an entry, or '' for the archive root itself (`./`). */
export function normalizeEntryPath(name: string): string {
  const shown = JSON.stringify(name);
  if (name.includes('\\')) throw new AppError('archive_backslash_path', `The path ${shown} contains a backslash.`);
  // eslint-disable-next-line no-control-regex -- control characters in names are the thing refused
  if (/[\u0000-\u001f\u007f]/.test(name))
    throw new AppError('archive_invalid_path', `The path ${shown} contains control characters.`);
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name))
    throw new AppError('archive_absolute_path', `The path ${shown} is absolute.`);
  const segments = name.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..'))
    throw new AppError('archive_path_traversal', `The path ${shown} contains a ".." segment.`);
  const normalized = segments.join('/');
  if (
    Buffer.byteLength(normalized) > MAX_PATH_BYTES ||
    segments.some((segment) => Buffer.byteLength(segment) > MAX_SEGMENT_BYTES)
  ) {
    throw new AppError('archive_invalid_path', `The path ${shown} is too long.`);
  }
  return normalized;
}

const REFUSED_TYPES: Record<string, { code: ErrorCode; what: string }> = {
  symlink: { code: 'archive_symlink', what: 'a symbolic link' },
  link: { code: 'archive_hardlink', what: 'a hard link' },
  'character-device': { code: 'archive_device', what: 'a character device' },
  'block-device': { code: 'archive_device', what: 'a block device' },
  fifo: { code: 'archive_fifo', what: 'a named pipe' },
};

function checkEntryType(header: tar.Header, name: string): 'file' | 'directory' {
  const type = header.type ?? 'file';
  if (type === 'file' || type === 'contiguous-file') return 'file';
  if (type === 'directory') return 'directory';
  const refused = REFUSED_TYPES[type];
  if (refused)
    throw new AppError(
      refused.code,
      `The entry ${JSON.stringify(name)} is ${refused.what}; archives may hold only plain files.`,
    );
  throw new AppError(
    'archive_unsupported_entry',
    `The entry ${JSON.stringify(name)} has the unsupported type "${type}".`,
  );
}

/** Errors of gunzip and the tar parser mean a bad archive; file-system errors are ours. */
function asArchiveError(error: unknown): unknown {
  if (error instanceof AppError) return error;
  if ((error as NodeJS.ErrnoException).syscall) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new AppError('archive_corrupt', `The archive cannot be read as a tar archive: ${message}.`);
}

/** The one folder every path sits under, if there is one: that folder is the site root. */
export function loneFolder(paths: string[]): string | undefined {
  const first = paths[0]?.split('/', 1)[0];
  if (!first || !paths.every((p) => p.startsWith(`${first}/`))) return undefined;
  return first;
}

function unwrapLoneFolder(files: SpooledFile[]): void {
  const folder = loneFolder(files.map((file) => file.path));
  if (folder === undefined) return;
  for (const file of files) file.path = file.path.slice(folder.length + 1);
}

function checkPathConflicts(files: SpooledFile[]): void {
  const folders = new Set<string>();
  for (const file of files) {
    let slash = file.path.indexOf('/');
    while (slash !== -1) {
      folders.add(file.path.slice(0, slash));
      slash = file.path.indexOf('/', slash + 1);
    }
  }
  const clash = files.find((file) => folders.has(file.path));
  if (clash) throw new AppError('archive_path_conflict', `"${clash.path}" is both a file and a folder in the archive.`);
}

/**
 * Whether the stream starts with the gzip magic bytes, and the same stream again with those bytes
 * still in front (Markdown sources may come as a plain tar or a tar.gz; the content decides).
 */
async function sniffGzip(input: Readable): Promise<{ gzip: boolean; stream: Readable }> {
  const chunks = input[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let head = Buffer.alloc(0);
  let done = false;
  while (head.length < 2 && !done) {
    const next = await chunks.next();
    if (next.done) done = true;
    else head = Buffer.concat([head, next.value]);
  }
  async function* replay(): AsyncGenerator<Buffer> {
    if (head.length > 0) yield head;
    if (done) return;
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
  }
  return { gzip: head[0] === 0x1f && head[1] === 0x8b, stream: Readable.from(replay(), { objectMode: false }) };
}

interface SpoolOptions {
  /** `gzip` (deploy archives) or `sniff`: a plain tar is taken too (Markdown sources, git archives). */
  compression?: 'gzip' | 'sniff';
  /** Make the compressed variants of release files while spooling. */
  variants?: VariantOptions;
}

/** Output chunks of gunzip: one thread-pool round trip each, so fewer, larger ones. */
const GUNZIP_CHUNK_BYTES = 256 * 1024;
/** Uncompressed bytes between two scavenges, which free the dead chunks (lib/young-gc.ts). */
const COLLECT_EVERY_BYTES = 4 * 1024 * 1024;

/** Reads the whole archive into spooled files, enforcing every rule; see the module comment. */
export async function spoolArchive(
  source: Readable,
  limits: ArchiveLimits,
  tmpRoot: string,
  options: SpoolOptions = {},
): Promise<SpooledArchive> {
  let input = source;
  let gzip = true;
  if (options.compression === 'sniff') ({ gzip, stream: input } = await sniffGzip(source));
  const dir = path.join(tmpRoot, tempName('ingest'));
  await mkdir(dir, { recursive: true });
  const dispose = () => rm(dir, { recursive: true, force: true });

  const files: SpooledFile[] = [];
  const seen = new Set<string>();
  const spoolByHash = new Map<string, string>();
  let uncompressed = 0;
  let collectAt = COLLECT_EVERY_BYTES;
  let size = 0;

  const writes = new SpoolWriter(dir, options.variants);
  const abort = new AbortController();
  // tar-stream takes `filenameEncoding`; its bundled types do not list it.
  const extract = tar.extract({ filenameEncoding: 'latin1' } as Parameters<typeof tar.extract>[0]);
  const feeding = pipeline(
    input,
    byteLimit(
      limits.compressedBytes,
      () => new AppError('archive_too_large', `The archive is larger than ${limits.compressedBytes} bytes compressed.`),
    ),
    gzip ? createGunzip({ chunkSize: GUNZIP_CHUNK_BYTES }) : new PassThrough(),
    byteLimit(
      limits.uncompressedBytes,
      () =>
        new AppError(
          'archive_uncompressed_too_large',
          `The archive expands to more than ${limits.uncompressedBytes} bytes.`,
        ),
      (total) => {
        uncompressed = total;
        if (total >= collectAt) {
          collectAt = total + COLLECT_EVERY_BYTES;
          collectYoungGeneration();
        }
      },
    ),
    extract,
    { signal: abort.signal },
  );
  // Its failure also surfaces through the entry loop; it is awaited below.
  feeding.catch(() => {});

  try {
    for await (const entry of extract) {
      const name = entryName(entry.header);
      const kind = checkEntryType(entry.header, name);
      const entryPath = normalizeEntryPath(name);
      if (kind === 'directory' || entryPath === '') {
        entry.resume();
        continue;
      }
      if (seen.has(entryPath))
        throw new AppError('archive_duplicate_path', `The path "${entryPath}" appears twice in the archive.`);
      seen.add(entryPath);
      if (files.length + 1 > limits.files)
        throw new AppError('archive_too_many_files', `The archive holds more than ${limits.files} files.`);
      // The header announces the size: refuse before reading a file that cannot fit.
      if (uncompressed + (entry.header.size ?? 0) > limits.uncompressedBytes) {
        throw new AppError(
          'archive_uncompressed_too_large',
          `The archive expands to more than ${limits.uncompressedBytes} bytes.`,
        );
      }
      const hash = createHash('sha256');
      const file: SpooledFile = { path: entryPath, hash: '', size: 0, spool: '' };
      if ((entry.header.size ?? 0) <= WHOLE_FILE_BYTES) {
        // Small files are read whole and handed to the spool workers in batches, so the archive
        // keeps flowing instead of waiting for an open/write/close per entry.
        const chunks: Buffer[] = [];
        for await (const chunk of entry as AsyncIterable<Buffer>) {
          hash.update(chunk);
          file.size += chunk.length;
          chunks.push(chunk);
        }
        file.hash = hash.digest('hex');
        if (!spoolByHash.has(file.hash)) await writes.add(file, chunks);
      } else {
        file.spool = path.join(dir, String(files.length));
        await pipeline(
          entry,
          new Transform({
            transform(chunk: Buffer, _encoding, callback) {
              hash.update(chunk);
              file.size += chunk.length;
              callback(null, chunk);
            },
          }),
          createWriteStream(file.spool, { mode: 0o640 }),
        );
        file.hash = hash.digest('hex');
        if (spoolByHash.has(file.hash)) await rm(file.spool);
      }
      const existing = spoolByHash.get(file.hash);
      if (existing) file.spool = existing;
      else spoolByHash.set(file.hash, file.spool);
      files.push(file);
      size += file.size;
    }
    await feeding;
    await writes.drain();
  } catch (error) {
    abort.abort();
    await feeding.catch(() => {});
    await writes.abandon();
    await dispose();
    throw error === writes.failure ? error : asArchiveError(error);
  }

  try {
    if (files.length === 0) throw new AppError('archive_empty', 'The archive holds no files.');
    unwrapLoneFolder(files);
    checkPathConflicts(files);
  } catch (error) {
    await dispose();
    throw error;
  }
  return { files, size, dispose };
}
