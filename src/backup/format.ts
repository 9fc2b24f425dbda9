// The backup folder, the same whichever database and blob store made it (decision 0088):
//   manifest.json         what the folder holds, with a checksum of every file; written last
//   tables/<name>.ndjson  one row a line (the row as PostgreSQL's to_jsonb writes it), parents first
//   blobs/<key>           every blob the rows refer to, under its blob store key
//   secret_key            the key sealed settings and signed links depend on
import { createHash } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { RunMode } from '../core/installation/service.js';

export const BACKUP_FORMAT = 'blume-backup';
export const BACKUP_VERSION = 1;

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  version: typeof BACKUP_VERSION;
  /** The Blume version that made it. */
  blume: string;
  createdAt: string;
  source: { database: 'pglite' | 'postgres'; blobs: 'local' | 's3' };
  /** The schema the rows are in: how many migrations were applied, and the last one's tag. */
  migrations: { applied: number; last: string };
  /** The installation's mode; a restore must run as the same mode. */
  installation: RunMode | null;
  tables: Array<{ name: string; file: string; rows: number; sha256: string }>;
  /** Sequence positions at the snapshot: `value` as text (bigint), `called` as setval takes it. */
  sequences: Array<{ name: string; value: string; called: boolean }>;
  blobs: Array<{ key: string; size: number; sha256: string }>;
}

export const MANIFEST_FILE = 'manifest.json';
export const SECRET_KEY_FILE = 'secret_key';

export function tableFile(name: string): string {
  return path.join('tables', `${name}.ndjson`);
}

export function blobFile(key: string): string {
  return path.join('blobs', key);
}

export function blumeVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupError';
  }
}

async function sha256OfFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The manifest of the backup in `dir`, after checking that every file it lists is there unchanged. */
export async function readVerifiedManifest(dir: string): Promise<BackupManifest> {
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(await readFile(path.join(dir, MANIFEST_FILE), 'utf8')) as BackupManifest;
  } catch (error) {
    throw new BackupError(
      `${dir} is not a complete Blume backup: ${MANIFEST_FILE} cannot be read (${(error as Error).message}).`,
    );
  }
  if (manifest.format !== BACKUP_FORMAT)
    throw new BackupError(`${dir}/${MANIFEST_FILE} is not a Blume backup manifest.`);
  if (manifest.version !== BACKUP_VERSION)
    throw new BackupError(
      `The backup is in format version ${manifest.version}; this Blume reads version ${BACKUP_VERSION}.`,
    );
  const files = [
    ...manifest.tables.map((t) => ({ file: t.file, sha256: t.sha256 })),
    ...manifest.blobs.map((b) => ({ file: blobFile(b.key), sha256: b.sha256 })),
  ];
  for (const { file, sha256 } of files) {
    let actual: string;
    try {
      actual = await sha256OfFile(path.join(dir, file));
    } catch {
      throw new BackupError(`The backup is damaged: ${file} is missing.`);
    }
    if (actual !== sha256)
      throw new BackupError(`The backup is damaged: ${file} does not match its checksum in ${MANIFEST_FILE}.`);
  }
  return manifest;
}
