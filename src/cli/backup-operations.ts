// `blume backup <dir>` (an operation: inside the running server when it owns the embedded database)
// and `blume restore <dir>` (never inside a server: it makes a fresh install). See decision 0088.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { backupTo } from '../backup/backup.js';
import { BackupError, SECRET_KEY_FILE, type BackupManifest } from '../backup/format.js';
import { restoreFrom } from '../backup/restore.js';
import type { Config } from '../config/index.js';
import type { RunMode } from '../core/installation/service.js';
import { lockOwner } from '../db/lock.js';
import { openRuntime } from '../runtime.js';
import { OperationError, type OperationArgs, type OperationContext } from './operation-context.js';

function describeBackup(manifest: BackupManifest): string {
  const rows = manifest.tables.reduce((sum, table) => sum + table.rows, 0);
  return `${manifest.tables.length} tables (${rows} rows) and ${manifest.blobs.length} blob(s)`;
}

export async function backupOperation(ctx: OperationContext, args: OperationArgs): Promise<string> {
  const dir = args.dir;
  if (!dir || !path.isAbsolute(dir)) throw new OperationError('backup needs the folder to write the backup to.');
  try {
    const { manifest, bytes } = await backupTo(ctx, dir);
    return `Backed up ${describeBackup(manifest)}, ${bytes} blob bytes, to ${dir} (schema at ${manifest.migrations.last}).`;
  } catch (error) {
    if (error instanceof BackupError) throw new OperationError(error.message);
    throw error;
  }
}

/**
 * Restores into the configured database and blob store, which must hold no data yet. The backup's
 * secret key becomes this install's, unless SECRET_KEY is set: then it must be the same key.
 */
export async function restoreCommand(
  config: Config,
  env: Record<string, string | undefined>,
  mode: RunMode,
  dir: string,
): Promise<string> {
  let backupKey: string;
  try {
    backupKey = (await readFile(path.join(dir, SECRET_KEY_FILE), 'utf8')).trim();
  } catch {
    throw new OperationError(`${dir} is not a complete Blume backup: ${SECRET_KEY_FILE} cannot be read.`);
  }
  const keyFromEnv = env.SECRET_KEY !== undefined && env.SECRET_KEY !== '';
  if (keyFromEnv && env.SECRET_KEY !== backupKey) {
    throw new OperationError(
      `SECRET_KEY is not the backed-up installation's key: set it to the value in ${path.join(dir, SECRET_KEY_FILE)} (sealed settings and signed links depend on it).`,
    );
  }
  // A server on this data directory would have blobs and its secret key changed under it, whatever
  // the database: the restore is refused before anything is opened or written.
  const owner = lockOwner(config.dataDir);
  if (owner !== undefined && owner !== process.pid) {
    throw new OperationError(
      `A Blume server (pid ${owner}) is running on ${config.dataDir}, which this restore would write into: stop it first, or restore into a fresh install (a new BLUME_DATA_DIR).`,
    );
  }
  const runtime = await openRuntime(config, { migrations: 'skip', seed: false, mode });
  try {
    const { manifest, laterMigrations } = await restoreFrom(
      { database: runtime.database, blobs: runtime.blobs, mode },
      dir,
    );
    if (!keyFromEnv) await writeFile(path.join(config.dataDir, SECRET_KEY_FILE), `${backupKey}\n`, { mode: 0o600 });
    const target = `${runtime.database.driver === 'postgres' ? 'PostgreSQL' : `the embedded database in ${config.dataDir}`} and the ${runtime.blobs.driver} blob store`;
    const lines = [
      `Restored ${describeBackup(manifest)} from ${dir} (made by Blume ${manifest.blume} at ${manifest.createdAt}) into ${target}.`,
    ];
    if (laterMigrations > 0) lines.push(`Applied ${laterMigrations} later migration(s) to the restored data.`);
    return lines.join('\n');
  } catch (error) {
    if (error instanceof BackupError) throw new OperationError(error.message);
    throw error;
  } finally {
    await runtime.close();
  }
}
