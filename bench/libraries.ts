// Benchmark: hand-written code against the maintained library that does the same job, in the same
// run (issue #14, decisions 0041 and 0071). Prints each ratio, library over Blume's own:
// - lib/lru.ts (`WeightedLru`, the edge's manifest and blob-byte caches) against `lru-cache` with
//   `maxSize`: gets on a hot set (what a static request does) and a Zipf mix of gets and sets on
//   blob hashes that overflows the bound (misses, loads, evictions), with each one's hit ratio;
// - the spool workers (deploy/spool-writer.ts) against `piscina` with the same two threads,
//   resource limits, batches and returned slabs, running the same task (deploy/spool-task.ts):
//   spooling an upload's small files, half text with gzip and brotli variants, half random bytes.
//   npm run bench:libraries [-- files KiB-per-file rounds]
// `lru-cache` is a dev dependency. `piscina` is not one (its optional native
// dependency, @napi-rs/nice, is a prebuilt binary): install it elsewhere, without optional
// dependencies, and name the folder: `npm install --prefix /tmp/pool --omit=optional piscina`,
// then `BENCH_PISCINA_DIR=/tmp/pool npm run bench:libraries`. Without it the pool row is skipped.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { LRUCache } from 'lru-cache';
import {
  SpoolWriter,
  WHOLE_FILE_BYTES,
  type SpooledFile,
  type SpoolTask,
  type SpoolTaskResult,
} from '../src/deploy/spool-writer.js';
import { WeightedLru } from '../src/lib/lru.js';
import { machineLine } from './lib/blume.js';
import { recordRun } from './lib/history.js';

recordRun('libraries');

const FILES = Number(process.argv[2] ?? 2000);
const KIB_PER_FILE = Number(process.argv[3] ?? 16);
const ROUNDS = Number(process.argv[4] ?? 5);

interface ByteCache {
  get(key: string): Buffer | undefined;
  set(key: string, value: Buffer): void;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const ratio = (value: number): string => `${value.toFixed(2)}x`;

/** A deterministic sequence in [0, 1). */
function* uniform(seed: number): Generator<number> {
  let state = seed >>> 0;
  for (;;) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    yield state / 2 ** 32;
  }
}

// --- LRU -------------------------------------------------------------------------------------

const caches: Record<string, (maxBytes: number) => ByteCache> = {
  WeightedLru: (maxBytes) => new WeightedLru<string, Buffer>(maxBytes, (bytes) => bytes.length),
  'lru-cache': (maxBytes) =>
    new LRUCache<string, Buffer>({ maxSize: maxBytes, sizeCalculation: (bytes) => bytes.length }),
};

const hashKey = (i: number): string => createHash('sha256').update(String(i)).digest('hex');

/** Gets of a few hot entries, as the edge serves a site's pages: nothing is evicted. */
function hotGets(
  make: (maxBytes: number) => ByteCache,
  keys: string[],
  bytes: Buffer[],
  gets: number,
): { opsPerSecond: number; hitRatio: number } {
  const cache = make(64 * 1024 * 1024);
  keys.forEach((key, i) => cache.set(key, bytes[i]!));
  let hits = 0;
  const started = performance.now();
  for (let i = 0; i < gets; i += 1) if (cache.get(keys[i % keys.length]!) !== undefined) hits += 1;
  return { opsPerSecond: gets / ((performance.now() - started) / 1000), hitRatio: hits / gets };
}

/** Zipf-distributed gets over more bytes than the bound; a miss stores the value (a load). */
function zipfMix(
  make: (maxBytes: number) => ByteCache,
  sequence: number[],
  keys: string[],
  bytes: Buffer[],
  maxBytes: number,
): { opsPerSecond: number; hitRatio: number } {
  const cache = make(maxBytes);
  let hits = 0;
  const started = performance.now();
  for (const index of sequence) {
    const key = keys[index]!;
    if (cache.get(key) !== undefined) hits += 1;
    else cache.set(key, bytes[index]!);
  }
  return { opsPerSecond: sequence.length / ((performance.now() - started) / 1000), hitRatio: hits / sequence.length };
}

function benchLru(): void {
  const distinct = 20_000;
  const keys = Array.from({ length: distinct }, (_, i) => hashKey(i));
  // Sizes from 1 to 64 KiB, views of one buffer: the values cost no memory of their own.
  const backing = Buffer.alloc(64 * 1024);
  const random = uniform(7);
  const bytes = keys.map(() => backing.subarray(0, 1024 + Math.floor(random.next().value * 63 * 1024)));
  const totalBytes = bytes.reduce((sum, value) => sum + value.length, 0);
  // Zipf (s = 1) by inverse CDF over the distinct keys, one million accesses.
  const weights = Array.from({ length: distinct }, (_, i) => 1 / (i + 1));
  const cumulative: number[] = [];
  weights.reduce((sum, weight, i) => (cumulative[i] = sum + weight), 0);
  const total = cumulative[distinct - 1]!;
  const pick = (u: number): number => {
    let low = 0;
    let high = distinct - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (cumulative[middle]! / total < u) low = middle + 1;
      else high = middle;
    }
    return low;
  };
  const sequence = Array.from({ length: 1_000_000 }, () => pick(random.next().value));

  const rows: {
    workload: string;
    measure: (make: (maxBytes: number) => ByteCache) => { opsPerSecond: number; hitRatio: number };
  }[] = [
    {
      workload: 'hot gets (8 entries, 5M gets)',
      measure: (make) => hotGets(make, keys.slice(0, 8), bytes.slice(0, 8), 5_000_000),
    },
    {
      workload: 'Zipf gets + sets (20k keys, bound 10% of bytes, 1M ops)',
      measure: (make) => zipfMix(make, sequence, keys, bytes, Math.floor(totalBytes / 10)),
    },
  ];
  console.log(
    '\n| LRU workload | WeightedLru ops/s (hit ratio) | lru-cache ops/s (hit ratio) | lru-cache / WeightedLru |',
  );
  console.log('| --- | --- | --- | --- |');
  for (const row of rows) {
    const runs: Record<string, { opsPerSecond: number; hitRatio: number }[]> = { WeightedLru: [], 'lru-cache': [] };
    // A warm-up round each, then rounds alternating which goes first.
    for (const make of Object.values(caches)) row.measure(make);
    for (let round = 0; round < ROUNDS; round += 1) {
      const order = round % 2 === 0 ? ['WeightedLru', 'lru-cache'] : ['lru-cache', 'WeightedLru'];
      for (const name of order) runs[name]!.push(row.measure(caches[name]!));
    }
    const ours = median(runs.WeightedLru!.map((run) => run.opsPerSecond));
    const theirs = median(runs['lru-cache']!.map((run) => run.opsPerSecond));
    const hitsOf = (name: string): string => `${(runs[name]![0]!.hitRatio * 100).toFixed(1)}%`;
    console.log(
      `| ${row.workload} | ${(ours / 1e6).toFixed(2)}M (${hitsOf('WeightedLru')}) | ${(theirs / 1e6).toFixed(2)}M (${hitsOf('lru-cache')}) | ${ratio(theirs / ours)} |`,
    );
  }
}

// --- spool pool ------------------------------------------------------------------------------

interface SpoolInput {
  path: string;
  hash: string;
  body: Buffer;
}

function spoolInputs(): SpoolInput[] {
  const words = [
    'static',
    'site',
    'release',
    '<div class="card">',
    '</div>',
    'function',
    'return',
    'margin: 0 auto;',
    'lorem',
    'ipsum',
    '\n',
  ];
  const random = uniform(11);
  return Array.from({ length: FILES }, (_, i) => {
    const size = Math.min(WHOLE_FILE_BYTES, Math.max(300, Math.floor(KIB_PER_FILE * 1024 * 2 * random.next().value)));
    let body: Buffer;
    if (i % 2 === 0) {
      const parts: string[] = [];
      for (let length = 0; length < size;) {
        const word = words[Math.floor(random.next().value * words.length)]!;
        parts.push(word);
        length += word.length + 1;
      }
      body = Buffer.from(parts.join(' ').slice(0, size));
    } else {
      body = randomBytes(size);
    }
    return {
      path: `f${i}.${i % 2 === 0 ? 'html' : 'png'}`,
      hash: createHash('sha256').update(body).digest('hex'),
      body,
    };
  });
}

/** Blume's spool workers, through the writer ingest uses. */
async function spoolWithWriter(inputs: SpoolInput[], dir: string): Promise<void> {
  const writer = new SpoolWriter(dir, { stored: () => Promise.resolve(new Set()) });
  for (const input of inputs) {
    const file: SpooledFile = { path: input.path, hash: input.hash, size: input.body.length, spool: '' };
    await writer.add(file, [input.body]);
  }
  await writer.drain();
}

interface PiscinaPool {
  run(
    task: unknown,
    options?: { transferList?: ArrayBuffer[] },
  ): Promise<{ results: SpoolTaskResult[]; slab: ArrayBuffer }>;
  destroy(): Promise<void>;
}

/** The same batches (2 MiB slab or 256 files, at most 4 slabs out) through a piscina pool. */
async function spoolWithPiscina(pool: PiscinaPool, inputs: SpoolInput[], dir: string): Promise<void> {
  const SLAB_BYTES = 2 * 1024 * 1024;
  const freeSlabs: ArrayBuffer[] = [];
  let slabs = 0;
  const inFlight = new Set<Promise<void>>();
  let batch: { slab: ArrayBuffer; used: number; tasks: SpoolTask[] } | undefined;
  let written = 0;
  let lane = 0;
  const flush = (): void => {
    if (!batch) return;
    const { slab, tasks } = batch;
    batch = undefined;
    const job: Promise<void> = pool
      .run({ tasks, slab }, { transferList: [slab] })
      .then((answer) => {
        freeSlabs.push(answer.slab);
      })
      .finally(() => inFlight.delete(job));
    inFlight.add(job);
  };
  for (const input of inputs) {
    const size = input.body.length;
    if (batch && (batch.used + size > SLAB_BYTES || batch.tasks.length >= 256)) flush();
    if (!batch) {
      while (freeSlabs.length === 0 && slabs >= 4) await Promise.race(inFlight);
      const slab = freeSlabs.pop() ?? (slabs++, new ArrayBuffer(SLAB_BYTES));
      batch = { slab, used: 0, tasks: [] };
      lane = (lane + 1) % 2;
    }
    input.body.copy(Buffer.from(batch.slab, batch.used, size));
    const file = path.join(dir, `lane-${lane}`, String(written++));
    batch.tasks.push({
      file,
      body: { offset: batch.used, length: size },
      ...(input.path.endsWith('.html') ? { variantsAt: file } : {}),
    });
    batch.used += size;
  }
  flush();
  await Promise.all(inFlight);
}

async function timed(run: () => Promise<void>): Promise<{ wallMs: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await run();
  const used = process.cpuUsage(cpu);
  return { wallMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000 };
}

async function benchPool(): Promise<void> {
  const piscinaDir = process.env.BENCH_PISCINA_DIR;
  if (!piscinaDir) {
    console.log(
      '\nspool pool: skipped (set BENCH_PISCINA_DIR to a folder where piscina is installed, see the top of bench/libraries.ts)',
    );
    return;
  }
  const { Piscina } = createRequire(path.join(piscinaDir, 'package.json'))('piscina') as {
    Piscina: new (options: Record<string, unknown>) => PiscinaPool;
  };
  const pool = new Piscina({
    filename: fileURLToPath(new URL('./lib/spool-pool-task.mjs', import.meta.url)),
    minThreads: 2,
    maxThreads: 2,
    resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 64 },
  });
  const inputs = spoolInputs();
  const megabytes = inputs.reduce((sum, input) => sum + input.body.length, 0) / 1024 / 1024;
  const runs: Record<string, { wallMs: number; cpuMs: number }[]> = { 'spool workers': [], piscina: [] };
  const scratch = await mkdtemp(path.join(tmpdir(), 'blume-bench-pool-'));
  try {
    const once = async (name: string, round: string): Promise<{ wallMs: number; cpuMs: number }> => {
      const dir = path.join(scratch, `${name === 'piscina' ? 'p' : 's'}-${round}`);
      const result = await timed(() =>
        name === 'piscina' ? spoolWithPiscina(pool, inputs, dir) : spoolWithWriter(inputs, dir),
      );
      await rm(dir, { recursive: true, force: true });
      return result;
    };
    // Warm-up (threads started, tsx compiled), then rounds alternating which goes first.
    await once('spool workers', 'warm');
    await once('piscina', 'warm');
    for (let round = 0; round < ROUNDS; round += 1) {
      const order = round % 2 === 0 ? ['spool workers', 'piscina'] : ['piscina', 'spool workers'];
      for (const name of order) runs[name]!.push(await once(name, String(round)));
    }
  } finally {
    await pool.destroy();
    await rm(scratch, { recursive: true, force: true });
  }
  const wall = (name: string): number => median(runs[name]!.map((run) => run.wallMs));
  const cpu = (name: string): number => median(runs[name]!.map((run) => run.cpuMs));
  console.log(
    `\n| Spool ${inputs.length} files, ${megabytes.toFixed(1)} MiB (half text with variants) | wall ms (median of ${ROUNDS}) | CPU ms, all threads | MiB/s |`,
  );
  console.log('| --- | --- | --- | --- |');
  for (const name of ['spool workers', 'piscina'])
    console.log(
      `| ${name} | ${wall(name).toFixed(0)} | ${cpu(name).toFixed(0)} | ${(megabytes / (wall(name) / 1000)).toFixed(1)} |`,
    );
  console.log(
    `piscina / spool workers: wall ${ratio(wall('piscina') / wall('spool workers'))}, CPU ${ratio(cpu('piscina') / cpu('spool workers'))} (below 1x: piscina faster)`,
  );
}

console.log(machineLine());
benchLru();
await benchPool();
