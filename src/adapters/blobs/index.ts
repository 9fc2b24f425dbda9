import type { BlobsConfig } from '../../config/index.js';
import { createLocalBlobStore } from './local.js';
import { createS3BlobStore } from './s3.js';
import type { BlobStore } from './types.js';

export type { BlobStore } from './types.js';

export async function createBlobStore(config: BlobsConfig): Promise<BlobStore> {
  return config.driver === 's3' ? createS3BlobStore(config.s3) : createLocalBlobStore(config.dir);
}
