// One spool task, run on a worker thread of spool-writer.ts with synchronous calls: write the file
// from the batch's slab (or read it from disk) and make the compressed variants worth keeping.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { COMPRESSED_VARIANTS, compressSync, variantSuffix, worthKeeping } from './compression.js';
import type { SpoolTask, SpoolTaskResult } from './spool-writer.js';

/** Writes a file, making its folder when it is missing (each worker's first file in a lane). */
function writeFile(file: string, body: Buffer): void {
  try {
    writeFileSync(file, body, { mode: 0o640 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, body, { mode: 0o640 });
  }
}

export function runSpoolTask(task: SpoolTask, slab: ArrayBuffer | undefined): SpoolTaskResult {
  const body = task.body && slab ? Buffer.from(slab, task.body.offset, task.body.length) : undefined;
  if (body) writeFile(task.file, body);
  const result: SpoolTaskResult = {};
  if (task.variantsAt === undefined) return result;
  const source = body ?? readFileSync(task.file);
  for (const variant of COMPRESSED_VARIANTS) {
    const compressed = compressSync(source, variant);
    if (!worthKeeping(compressed.length, source.length)) continue;
    writeFile(task.variantsAt + variantSuffix(variant), compressed);
    result[variant] = compressed.length;
  }
  return result;
}
