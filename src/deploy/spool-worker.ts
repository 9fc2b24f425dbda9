// Worker thread of spool-writer.ts: runs a batch of spool tasks (spool-task.ts) per message. See
// spool-writer.ts for why.
import { parentPort } from 'node:worker_threads';
import { collectYoungGeneration } from '../lib/young-gc.js';
import { runSpoolTask } from './spool-task.js';
import type { SpoolJob, SpoolReply } from './spool-writer.js';

const port = parentPort;
if (!port) throw new Error('spool-worker runs as a worker thread');
port.on('message', (job: SpoolJob) => {
  let reply: SpoolReply;
  try {
    reply = { id: job.id, slab: job.slab, results: job.tasks.map((task) => runSpoolTask(task, job.slab)) };
  } catch (error) {
    const { message, code, syscall } = error as NodeJS.ErrnoException;
    reply = { id: job.id, slab: job.slab, error: { message, code, syscall } };
  }
  port.postMessage(reply, job.slab ? [job.slab] : []);
  // A batch leaves a few MiB of dead compressor output behind (lib/young-gc.ts).
  collectYoungGeneration();
});
