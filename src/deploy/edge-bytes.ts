// The edge's per-node memory of blob bytes. Blobs are content-addressed and never change, so a copy
// in memory never goes stale; answering from a Buffer saves the open/read/close and the stream
// machinery that cost a small static request more than everything else together (bench/edge.ts).
// Small and medium blobs only, least recently used out first, bounded in total.
import type { BlobStore } from '../adapters/blobs/index.js';

export interface EdgeBytesLimits {
  /** Blobs larger than this are streamed from the store every time. */
  maxEntryBytes: number;
  /** Total bytes kept; the least recently used blobs are dropped past it. */
  maxTotalBytes: number;
}

export const DEFAULT_EDGE_BYTES_LIMITS: EdgeBytesLimits = { maxEntryBytes: 1024 * 1024, maxTotalBytes: 64 * 1024 * 1024 };

export class EdgeBytes {
  private readonly entries = new Map<string, Buffer>();
  private readonly loading = new Map<string, Promise<Buffer | undefined>>();
  private totalBytes = 0;

  constructor(
    private readonly blobs: BlobStore,
    private readonly limits: EdgeBytesLimits = DEFAULT_EDGE_BYTES_LIMITS,
  ) {}

  /** Whether a blob of this size is kept in memory (else the caller streams it). */
  fits(size: number): boolean {
    return size <= this.limits.maxEntryBytes;
  }

  /** The bytes of a blob that `fits`; concurrent first reads share one load. */
  get(key: string): Buffer | Promise<Buffer | undefined> {
    const cached = this.entries.get(key);
    if (cached) {
      // Re-insert to keep the map in least-recently-used order.
      this.entries.delete(key);
      this.entries.set(key, cached);
      return cached;
    }
    let pending = this.loading.get(key);
    if (!pending) {
      pending = this.load(key).finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
    }
    return pending;
  }

  private async load(key: string): Promise<Buffer | undefined> {
    const bytes = await this.blobs.read(key);
    if (!bytes || !this.fits(bytes.length)) return bytes;
    this.entries.set(key, bytes);
    this.totalBytes += bytes.length;
    while (this.totalBytes > this.limits.maxTotalBytes && this.entries.size > 1) {
      const [oldestKey, oldest] = this.entries.entries().next().value!;
      this.entries.delete(oldestKey);
      this.totalBytes -= oldest.length;
    }
    return bytes;
  }
}
