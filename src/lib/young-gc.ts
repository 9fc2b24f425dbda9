// A scavenge (V8's young-generation collection) on demand, for code that streams short-lived
// Buffers. A Buffer is a small object on V8's heap holding its bytes outside it, in the C allocator:
// an upload hands ~150 MiB of socket reads and gunzip output through JavaScript in small objects,
// so the young generation fills slowly while the dead bytes pile up, and V8 only collects for
// outside memory once ~64 MiB of it has grown. The allocator keeps what it grew to, which is what a
// container limit sees. A scavenge takes well under a millisecond when little is alive.
// See docs/decisions/0019-ingest-memory.md.
//
// V8's `gc()` exists when node started with `--expose-gc`, as `npm start` and the image start it
// (worker threads then have it too). Flags are not changed at run time, which Node documents as
// unsafe: started without it, the scavenges are left to V8.

type Collect = (options: { type: 'minor' }) => void;

const collect = (globalThis as { gc?: Collect }).gc;

/** Whether this process can scavenge on demand (it was started with `--expose-gc`). */
export const canCollectYoungGeneration = collect !== undefined;

/** Collects the young generation now, freeing the outside memory of the Buffers that died there. */
export function collectYoungGeneration(): void {
  collect?.({ type: 'minor' });
}
