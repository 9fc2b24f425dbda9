// Reading a folder as a release (built docs output, a repository checkout): the same rules as a
// deploy archive (section 8 limits, plain files only, servable paths), so a folder cannot carry
// what an archive may not. Files are hashed where they lie; the folder itself is the spool.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { AppError } from '../http/errors.js';
import { normalizeEntryPath, type ArchiveLimits, type SpooledArchive } from './archive.js';
import type { SpooledFile } from './spool-writer.js';

async function hashFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

export async function spoolFolder(root: string, limits: ArchiveLimits): Promise<SpooledArchive> {
  const files: SpooledFile[] = [];
  let size = 0;
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    const full = path.join(entry.parentPath, entry.name);
    const rel = path.relative(root, full).split(path.sep).join('/');
    if (entry.isDirectory()) continue;
    if (entry.isSymbolicLink())
      throw new AppError('archive_symlink', `The entry "${rel}" is a symbolic link; sites may hold only plain files.`);
    if (!entry.isFile()) throw new AppError('archive_unsupported_entry', `The entry "${rel}" is not a plain file.`);
    const sitePath = normalizeEntryPath(rel);
    if (files.length + 1 > limits.files)
      throw new AppError('archive_too_many_files', `The folder holds more than ${limits.files} files.`);
    const fileSize = (await stat(full)).size;
    size += fileSize;
    if (size > limits.uncompressedBytes)
      throw new AppError(
        'archive_uncompressed_too_large',
        `The folder holds more than ${limits.uncompressedBytes} bytes.`,
      );
    files.push({ path: sitePath, hash: await hashFile(full), size: fileSize, spool: full });
  }
  if (files.length === 0) throw new AppError('archive_empty', 'The folder holds no files.');
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  // The files belong to the caller's folder, which it removes itself.
  return { files, size, dispose: async () => {} };
}
