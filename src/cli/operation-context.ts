// What every operator command (operations.ts) gets and answers with, apart from the commands
// themselves, so that command modules and the registry do not import each other.
import type { BlobStore } from '../adapters/blobs/index.js';
import type { CacheEpochs } from '../adapters/cache/epochs.js';
import type { DatabaseHandle } from '../db/client.js';
import type { EdgeCache } from '../deploy/edge-cache.js';

export interface OperationContext {
  database: DatabaseHandle;
  /** The community instance id in single mode; undefined on a platform. */
  singleSite?: string | undefined;
  blobs: BlobStore;
  /** Tells the edge of every node about deleted releases. */
  edge: EdgeCache;
  /** Tells every node what a command changed, once it did (triggers moved the cache epochs). */
  epochs: CacheEpochs;
  /** Seals secret instance settings. */
  secretKey: string;
}

export type OperationArgs = Record<string, string | undefined>;

export class OperationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OperationError';
  }
}
