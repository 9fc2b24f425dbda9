// Reading the console's upload form: multipart with the CSRF field first, then what to make of the
// files (`mode`), then either one archive or the files of a folder, each named by its path inside the
// folder (browsers send that path for folder pickers; the console's script sends it for drops). The
// path is kept (busboy's preservePath) and checked as an archive entry's is. Files land under a fresh
// folder on the data disk within the deploy archive's limits; what becomes of them is the deploy
// domain's work (ingestFolder, ingestArchive, queueSourceUpload).
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import { loneFolder, normalizeEntryPath, type ArchiveLimits } from '../deploy/archive.js';
import { tempName } from '../deploy/temp-dirs.js';
import { AppError } from '../http/errors.js';

type UploadMode = 'files' | 'markdown';

interface ReceivedUpload {
  mode: UploadMode;
  /** The one archive that was sent (tar.gz, tgz or tar), or undefined for a folder. */
  archive: string | undefined;
  /** The folder the files make up: the lone top folder when every file sits under one. */
  root: string;
  dispose(): Promise<void>;
}

const ARCHIVE_NAME = /\.(tar\.gz|tgz|tar)$/i;

/** Counts the bytes of one upload across all its files and refuses the first byte past the limit. */
function byteBudget(limits: ArchiveLimits): () => Transform {
  let total = 0;
  return () =>
    new Transform({
      transform(chunk: Buffer, _encoding, done) {
        total += chunk.length;
        if (total > limits.uncompressedBytes)
          done(
            new AppError(
              'archive_uncompressed_too_large',
              `The upload holds more than ${limits.uncompressedBytes} bytes.`,
            ),
          );
        else done(null, chunk);
      },
    });
}

/**
 * Spools the upload of `request`. `checkCsrf` gets the `_csrf` field, which must come before any
 * file; nothing is written before it passed. On any refusal the spooled files are removed.
 */
export async function receiveUpload(
  request: FastifyRequest,
  limits: ArchiveLimits,
  tmpDir: string,
  checkCsrf: (token: string | undefined) => void,
): Promise<ReceivedUpload> {
  const dir = path.join(tmpDir, tempName('ingest'));
  const dispose = () => rm(dir, { recursive: true, force: true });
  const counter = byteBudget(limits);
  let csrfChecked = false;
  let mode: UploadMode = 'files';
  const names: string[] = [];
  try {
    for await (const part of request.parts({
      preservePath: true,
      limits: { files: limits.files, fileSize: limits.compressedBytes, fields: 4, fieldSize: 1024 },
    })) {
      if (part.type === 'field') {
        if (part.fieldname === '_csrf') {
          checkCsrf(typeof part.value === 'string' ? part.value : undefined);
          csrfChecked = true;
        } else if (part.fieldname === 'mode') {
          mode = part.value === 'markdown' ? 'markdown' : 'files';
        }
        continue;
      }
      if (!csrfChecked) {
        part.file.resume();
        checkCsrf(undefined);
      }
      const sitePath = normalizeEntryPath(part.filename);
      if (sitePath === '') {
        part.file.resume();
        continue;
      }
      const target = path.join(dir, sitePath);
      try {
        await mkdir(path.dirname(target), { recursive: true });
        await pipeline(part.file, counter(), createWriteStream(target, { flags: 'wx' }));
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EEXIST' || code === 'ENOTDIR' || code === 'EISDIR')
          throw new AppError(
            'archive_path_conflict',
            `"${sitePath}" is sent twice, or both as a file and as a folder.`,
          );
        throw error;
      }
      if (part.file.truncated)
        throw new AppError('archive_too_large', `"${sitePath}" is larger than ${limits.compressedBytes} bytes.`);
      names.push(sitePath);
    }
    if (!csrfChecked) checkCsrf(undefined);
    if (names.length === 0)
      throw new AppError('archive_missing', 'Choose a folder or an archive (.tar.gz, .tgz or .tar) to upload.');
    const archive = names.length === 1 && ARCHIVE_NAME.test(names[0]!) ? path.join(dir, names[0]!) : undefined;
    const lone = archive ? undefined : loneFolder(names);
    return { mode, archive, root: lone === undefined ? dir : path.join(dir, lone), dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}
