// The edge's per-node memory of blob bytes. Blobs are content-addressed and never change, so a copy
// in memory never goes stale; answering from a Buffer saves the open/read/close and the stream
// machinery that cost a small static request more than everything else together (bench/edge.ts).
// Small and medium blobs only, least recently used out first, bounded in total.
import type { BlobStore } from '../adapters/blobs/index.js';
import { WeightedLru } from '../lib/lru.js';

interface EdgeBytesLimits {
  /** Blobs larger than this are streamed from the store every time. */
  maxEntryBytes: number;
  /** Total bytes kept; the least recently used blobs are dropped past it. */
  maxTotalBytes: number;
}

const DEFAULT_EDGE_BYTES_LIMITS: EdgeBytesLimits = { maxEntryBytes: 1024 * 1024, maxTotalBytes: 64 * 1024 * 1024 };

export class EdgeBytes {
  private readonly entries: WeightedLru<string, Buffer>;

  constructor(
    private readonly blobs: BlobStore,
    private readonly limits: EdgeBytesLimits = DEFAULT_EDGE_BYTES_LIMITS,
  ) {
    this.entries = new WeightedLru(limits.maxTotalBytes, (bytes) => bytes.length);
  }

  /** Whether a blob of this size is kept in memory (else the caller streams it). */
  fits(size: number): boolean {
    return size <= this.limits.maxEntryBytes;
  }

  /** The bytes of a blob that `fits`; concurrent first reads share one load. */
  get(key: string): Buffer | Promise<Buffer | undefined> {
    return this.entries.getOrLoad(
      key,
      () => this.blobs.read(key),
      (bytes) => this.fits(bytes.length),
    );
  }
}
