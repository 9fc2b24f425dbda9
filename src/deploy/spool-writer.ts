// Spooled files are written, and their compressed variants made, by worker threads
// (spool-worker.ts) with synchronous calls, a batch of files per message. An asynchronous file call
// is a thread-pool round trip (a futex wake-up and an eventfd write, ~50 µs of the main thread on a
// 2-core VM), and a file took 3 to 20 of them; a batch of up to 256 takes one message. The work runs
// on the other cores beside the event loop, and a slow disk stalls a worker, never the server. Each
// worker writes into a folder of its own ("lane"): creating files in one folder is serialized by
// the kernel, so two workers sharing a folder spin on its lock.
// Contents travel in four reused 2 MiB slabs, handed to a worker and back without copies: a buffer
// per file grew the allocator's heap by ~50 MiB of dead buffers until they were collected.
// docs/decisions/0017-edge-and-ingest-speed.md has the profiles.
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import { siblingModule } from '../lib/sibling-module.js';
import { COMPRESSED_VARIANTS, variantSuffix, wantsVariants } from './compression.js';

interface SpooledVariant {
  /** Temporary file holding the compressed content. */
  file: string;
  size: number;
}

/** The compressed variants made of a file; a variant that did not pay is absent. */
export type SpooledVariants = Partial<Record<'gzip' | 'br', SpooledVariant>>;

export interface SpooledFile {
  /** Site path without leading slash, after unwrapping a lone top folder. */
  path: string;
  hash: string;
  size: number;
  /** Temporary file holding the content; one per distinct hash. */
  spool: string;
  /** Set once the variants are made (by the first file of a hash); unset, they are still to make. */
  variants?: SpooledVariants;
}

/** Files up to this size are handled whole, in memory; larger ones are streamed. */
export const WHOLE_FILE_BYTES = 1024 * 1024;

export interface SpoolTask {
  /** Content to write to `file`, a range of the job's slab; without it `file` is read (it is on disk). */
  body?: { offset: number; length: number };
  file: string;
  /** Variants go to `<variantsAt>.gz` and `.br`; without it none are made. */
  variantsAt?: string;
}

/** Sizes of the variants worth keeping (the others are not written). */
export type SpoolTaskResult = Partial<Record<'gzip' | 'br', number>>;

export interface SpoolJob {
  id: number;
  slab?: ArrayBuffer | undefined;
  tasks: SpoolTask[];
}

interface SpoolError {
  message: string;
  code?: string | undefined;
  syscall?: string | undefined;
}

/** The slab comes back with the answer, success or not. */
export type SpoolReply = { id: number; slab?: ArrayBuffer | undefined } & (
  { results: SpoolTaskResult[] } | { error: SpoolError }
);

/** The worker's heap holds little but messages: contents live outside it, in the slabs. */
const WORKER_LIMITS: ResourceLimits = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 64 };

function startWorker(): Worker {
  const entry = siblingModule(import.meta.url, 'spool-worker');
  if (entry.endsWith('.js')) return new Worker(entry, { resourceLimits: WORKER_LIMITS });
  // Under tsx the entry is TypeScript, and Node 20 does not hand tsx's loader to worker threads.
  const bootstrap = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(pathToFileURL(entry).href)}); })`;
  return new Worker(bootstrap, { eval: true, resourceLimits: WORKER_LIMITS });
}

interface PendingJob {
  resolve(answer: { results: SpoolTaskResult[]; slab: ArrayBuffer | undefined }): void;
  reject(error: Error): void;
}

/** One spool worker, started on first use; it holds the process open only while busy. */
class SpoolThread {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, PendingJob>();
  private nextId = 1;

  run(tasks: SpoolTask[], slab?: ArrayBuffer): Promise<{ results: SpoolTaskResult[]; slab: ArrayBuffer | undefined }> {
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage({ id, slab, tasks } satisfies SpoolJob, slab ? [slab] : []);
    });
  }

  private start(): Worker {
    const worker = startWorker();
    worker.on('message', (reply: SpoolReply) => {
      const job = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      if ('error' in reply)
        job?.reject(
          Object.assign(new Error(reply.error.message), { code: reply.error.code, syscall: reply.error.syscall }),
        );
      else job?.resolve({ results: reply.results, slab: reply.slab });
    });
    const fail = (error: Error): void => {
      if (this.worker === worker) this.worker = undefined;
      for (const job of this.pending.values()) job.reject(error);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the spool worker stopped (exit code ${code})`)));
    worker.unref();
    this.worker = worker;
    return worker;
  }
}

/** Two workers: compression and file creation then use both cores of a small machine. */
const threads = Array.from({ length: Math.min(2, availableParallelism()) }, () => new SpoolThread());

function spooledVariants(variantsAt: string, result: SpoolTaskResult): SpooledVariants {
  const variants: SpooledVariants = {};
  for (const variant of COMPRESSED_VARIANTS) {
    const size = result[variant];
    if (size !== undefined) variants[variant] = { file: variantsAt + variantSuffix(variant), size };
  }
  return variants;
}

export interface VariantOptions {
  /** Hashes among these that need no variants (stored already); asked once per batch. */
  stored(hashes: string[]): Promise<Set<string>>;
}

/** A batch is one slab (room for at least one whole file), one message to a worker and one lookup of stored hashes. */
const SLAB_BYTES = 2 * 1024 * 1024;
const BATCH_FILES = 256;
/** Slabs of one writer: what may be in flight at once. */
const MAX_SLABS = 4;

interface Batch {
  lane: number;
  slab: ArrayBuffer;
  used: number;
  files: { file: SpooledFile; offset: number }[];
}

/**
 * Writes whole files (and, with `variants`, their variants) into `dir` in batches, at most 8 MiB in
 * flight. It names the spool files: `<dir>/lane-<worker>/<n>`.
 */
export class SpoolWriter {
  private batch: Batch | undefined;
  private readonly freeSlabs: ArrayBuffer[] = [];
  private slabs = 0;
  private nextLane = 0;
  private written = 0;
  private readonly inFlight = new Set<Promise<void>>();
  /** The first error of a write (or of `stored`); every later call throws it. */
  failure: unknown;

  constructor(
    private readonly dir: string,
    private readonly variants?: VariantOptions,
  ) {}

  /** Queues this content (at most WHOLE_FILE_BYTES) and sets `file.spool`; waits for a free slab when all are out. */
  async add(file: SpooledFile, chunks: Buffer[]): Promise<void> {
    if (this.failure) throw this.failure;
    if (file.size > WHOLE_FILE_BYTES) throw new Error(`${file.path} is too large to spool whole (${file.size} bytes)`);
    if (this.batch && (this.batch.used + file.size > SLAB_BYTES || this.batch.files.length >= BATCH_FILES))
      this.flush();
    if (!this.batch) {
      const slab = await this.takeSlab();
      this.batch = { lane: this.nextLane++ % threads.length, slab, used: 0, files: [] };
    }
    const batch = this.batch;
    const target = Buffer.from(batch.slab, batch.used, file.size);
    let offset = 0;
    for (const chunk of chunks) offset += chunk.copy(target, offset);
    file.spool = path.join(this.dir, `lane-${batch.lane}`, String(this.written++));
    batch.files.push({ file, offset: batch.used });
    batch.used += file.size;
  }

  /** Waits for everything queued; throws the first failure. */
  async drain(): Promise<void> {
    this.flush();
    await Promise.all(this.inFlight);
    if (this.failure) throw this.failure;
  }

  /** Drops what is not sent yet and waits for what is, so the folder can be removed after. */
  async abandon(): Promise<void> {
    this.batch = undefined;
    await Promise.all(this.inFlight);
  }

  private async takeSlab(): Promise<ArrayBuffer> {
    for (;;) {
      const free = this.freeSlabs.pop();
      if (free) return free;
      if (this.slabs < MAX_SLABS || this.inFlight.size === 0) {
        this.slabs++;
        return new ArrayBuffer(SLAB_BYTES);
      }
      await Promise.race(this.inFlight);
      if (this.failure) throw this.failure;
    }
  }

  private flush(): void {
    const batch = this.batch;
    this.batch = undefined;
    if (!batch || batch.files.length === 0) return;
    const job: Promise<void> = this.write(batch)
      .catch((error: unknown) => {
        this.failure ??= error;
      })
      .finally(() => this.inFlight.delete(job));
    this.inFlight.add(job);
  }

  private async write(batch: Batch): Promise<void> {
    const wants = ({ file }: { file: SpooledFile }): boolean =>
      this.variants !== undefined && wantsVariants(file.path, file.size);
    const wanted = batch.files.filter(wants).map(({ file }) => file.hash);
    const stored = wanted.length > 0 ? await this.variants!.stored(wanted) : new Set<string>();
    const tasks = batch.files.map((entry): SpoolTask => {
      const { file, offset } = entry;
      const variantsAt = wants(entry) && !stored.has(file.hash) ? file.spool : undefined;
      return { file: file.spool, body: { offset, length: file.size }, ...(variantsAt ? { variantsAt } : {}) };
    });
    const { results, slab } = await threads[batch.lane]!.run(tasks, batch.slab);
    if (slab) this.freeSlabs.push(slab);
    else this.slabs--;
    results.forEach((result, i) => {
      const variantsAt = tasks[i]!.variantsAt;
      if (variantsAt !== undefined) batch.files[i]!.file.variants = spooledVariants(variantsAt, result);
    });
  }
}

/** Makes the variants of files on disk (up to WHOLE_FILE_BYTES each) as `<scratch>/lane-<worker>/<n>.gz|.br`. */
export async function compressSpooled(files: SpooledFile[], scratchDir: string): Promise<void> {
  const batches: SpooledFile[][] = [];
  for (let start = 0; start < files.length; start += BATCH_FILES) batches.push(files.slice(start, start + BATCH_FILES));
  let next = 0;
  await Promise.all(
    threads.map(async (thread, lane) => {
      for (let batch = batches.shift(); batch; batch = batches.shift()) {
        const tasks = batch.map((file): SpoolTask => ({
          file: file.spool,
          variantsAt: path.join(scratchDir, `lane-${lane}`, String(next++)),
        }));
        const { results } = await thread.run(tasks);
        results.forEach((result, i) => {
          batch[i]!.variants = spooledVariants(tasks[i]!.variantsAt!, result);
        });
      }
    }),
  );
}
