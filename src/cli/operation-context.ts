// What every operator command (operations.ts) gets and answers with, apart from the commands
// themselves, so that command modules and the registry do not import each other.
import type { BlobStore } from '../adapters/blobs/index.js';
import type { PlanMatrix } from '../core/plans/matrix.js';
import type { SiteDirectory } from '../core/sites/directory.js';
import type { SettingsDirectory } from '../core/settings/directory.js';
import type { DatabaseHandle } from '../db/client.js';
import type { EdgeCache } from '../deploy/edge-cache.js';

export interface OperationContext {
  database: DatabaseHandle;
  /** The community instance id in single mode; undefined on a platform. */
  singleSite?: string | undefined;
  blobs: BlobStore;
  /** Tells the edge of every node about deleted releases. */
  edge: EdgeCache;
  /** Tells every node about a changed plan matrix. */
  plans: PlanMatrix;
  /** Tells every node about a changed site (its plan). */
  sites: SiteDirectory;
  /** Tells every node about applied instance settings. */
  settings: SettingsDirectory;
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
