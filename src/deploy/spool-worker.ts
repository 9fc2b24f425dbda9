// Worker thread of spool-writer.ts: writes spooled files and makes their compressed variants with
// synchronous calls, a batch of files per message. See spool-writer.ts for why.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parentPort } from 'node:worker_threads';
import { collectYoungGeneration } from '../lib/young-gc.js';
import { COMPRESSED_VARIANTS, compressSync, variantSuffix, worthKeeping } from './compression.js';
import type { SpoolJob, SpoolReply, SpoolTask, SpoolTaskResult } from './spool-writer.js';

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

function runTask(task: SpoolTask, slab: ArrayBuffer | undefined): SpoolTaskResult {
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

const port = parentPort;
if (!port) throw new Error('spool-worker runs as a worker thread');
port.on('message', (job: SpoolJob) => {
  let reply: SpoolReply;
  try {
    reply = { id: job.id, slab: job.slab, results: job.tasks.map((task) => runTask(task, job.slab)) };
  } catch (error) {
    const { message, code, syscall } = error as NodeJS.ErrnoException;
    reply = { id: job.id, slab: job.slab, error: { message, code, syscall } };
  }
  port.postMessage(reply, job.slab ? [job.slab] : []);
  // A batch leaves a few MiB of dead compressor output behind (lib/young-gc.ts).
  collectYoungGeneration();
});
