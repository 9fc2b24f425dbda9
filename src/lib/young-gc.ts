// A scavenge (V8's young-generation collection) on demand, for code that streams short-lived
// Buffers. A Buffer is a small object on V8's heap holding its bytes outside it, in the C allocator:
// an upload hands ~150 MiB of socket reads and gunzip output through JavaScript in small objects,
// so the young generation fills slowly while the dead bytes pile up, and V8 only collects for
// outside memory once ~64 MiB of it has grown. The allocator keeps what it grew to, which is what a
// container limit sees. A scavenge takes well under a millisecond when little is alive.
// See docs/decisions/0019-ingest-memory.md for the measurements.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { isMainThread } from 'node:worker_threads';

type Collect = (options: { type: 'minor' }) => void;

let exposed = false;
let collect: Collect | undefined;

/**
 * Gives contexts made from now on V8's `gc()`: worker threads started after this have it as a
 * global. The flag is process-wide and another thread may be reading it, so it is set once, from
 * the main thread, and left on (it only adds that global to new contexts).
 */
export function exposeGarbageCollector(): void {
  if (exposed || !isMainThread) return;
  setFlagsFromString('--expose-gc');
  exposed = true;
}

function collector(): Collect {
  const global = (globalThis as { gc?: Collect }).gc;
  if (global) return global;
  if (!isMainThread) return () => {};
  exposeGarbageCollector();
  return runInNewContext('gc') as Collect;
}

/** Collects the young generation now, freeing the outside memory of the Buffers that died there. */
export function collectYoungGeneration(): void {
  collect ??= collector();
  collect({ type: 'minor' });
}
