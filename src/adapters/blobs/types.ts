import type { Readable } from 'node:stream';

/** Content store keyed by opaque strings of `[a-z0-9/._-]` (callers use content hashes). */
export interface BlobStore {
  driver: 'local' | 's3';
  /** Stores a blob; `size` is required for streams on stores that need a length up front. */
  put(key: string, body: Buffer | Readable, size?: number): Promise<void>;
  /** A stream of the blob, or undefined when absent. */
  get(key: string): Promise<Readable | undefined>;
  /** The whole blob, or undefined when absent. */
  read(key: string): Promise<Buffer | undefined>;
  has(key: string): Promise<boolean>;
  delete(key: string): Promise<void>;
  list(prefix?: string): AsyncIterable<string>;
  /** Resolves when the store answers (the health check); rejects otherwise. */
  ping(): Promise<void>;
  /** Moves a file of this machine into the store (the file is gone after); stores on disk rename it. */
  moveIn?(key: string, file: string): Promise<void>;
  /** A local file path for the blob when the store keeps files on this machine (fast serving). */
  localPath?(key: string): string;
}

const KEY = /^[a-z0-9][a-z0-9/._-]{0,511}$/;

export function assertBlobKey(key: string): void {
  if (!KEY.test(key) || key.includes('..') || key.includes('//')) throw new Error(`invalid blob key: ${key}`);
}
