// A scavenge (V8's young-generation collection) on demand, for code that streams short-lived
// Buffers. A Buffer is a small object on V8's heap holding its bytes outside it, in the C allocator:
// an upload hands ~150 MiB of socket reads and gunzip output through JavaScript in small objects,
// so the young generation fills slowly while the dead bytes pile up, and V8 only collects for
// outside memory once ~64 MiB of it has grown. The allocator keeps what it grew to for good, which
// is what a container limit sees. A scavenge takes well under a millisecond with little alive.
// See docs/decisions/0019-ingest-memory.md for the measurements.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Collect = (options: { type: 'minor' }) => void;

let collect: Collect | undefined;

/** V8's own `gc()`: exposed to one new context only, then the flag is put back. */
function collector(): Collect {
  const exposed = (globalThis as { gc?: Collect }).gc;
  if (exposed) return exposed;
  setFlagsFromString('--expose-gc');
  try {
    return runInNewContext('gc') as Collect;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

/** Collects the young generation now, freeing the outside memory of the Buffers that died there. */
export function collectYoungGeneration(): void {
  collect ??= collector();
  collect({ type: 'minor' });
}
