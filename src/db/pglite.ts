// The embedded database's settings, and the creation of a new data folder. See
// docs/decisions/0019-ingest-memory.md for the measurements behind both.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { PGliteOptions } from '@electric-sql/pglite';
import { siblingModule } from '../lib/sibling-module.js';

/**
 * PostgreSQL's default 128 MB of shared buffers are all touched at start inside PGlite's WebAssembly
 * memory, which made them most of the server's resident memory. The data files stay in the page
 * cache of the operating system, so a miss here costs a read from memory, not from disk.
 */
const SHARED_BUFFERS = '16MB';

export async function pgliteOptions(): Promise<PGliteOptions> {
  const { PGlite } = await import('@electric-sql/pglite');
  return { startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${SHARED_BUFFERS}`] };
}

/** Node flags of this process that must not reach a child (a second inspector or profile). */
const PRIVATE_FLAGS = /^--(inspect|cpu-prof|heap-prof|prof)/;

/**
 * Creates the data folder when it holds no database yet. PGlite's initdb runs a second PostgreSQL
 * and peaks near 850 MiB; in a child process that memory goes back with the child, instead of
 * staying the server's high-water mark for its life. With `migrate` the child also applies the
 * migrations: running every one of them leaves ~45 MiB of compiled database code behind. A folder
 * that does not exist yet is made beside it and renamed into place when complete, so a crash never
 * leaves a half-made database; an existing empty folder (it may be a mount point, which cannot be
 * replaced) is filled in place, as PGlite did itself.
 */
export async function ensurePgliteDir(dir: string, options: { migrate: boolean }): Promise<void> {
  if (existsSync(path.join(dir, 'PG_VERSION'))) return;
  if (existsSync(dir)) {
    if (readdirSync(dir).length > 0)
      throw new Error(
        `${dir} holds files but no database (PG_VERSION is missing); move it away to start a new database`,
      );
    await runInitdb(dir, options.migrate);
    return;
  }
  const fresh = `${dir}.initdb-${process.pid}`;
  await rm(fresh, { recursive: true, force: true });
  try {
    await runInitdb(fresh, options.migrate);
    await rename(fresh, dir);
  } finally {
    await rm(fresh, { recursive: true, force: true });
  }
}

function runInitdb(dir: string, migrate: boolean): Promise<void> {
  const entry = siblingModule(import.meta.url, 'pglite-initdb');
  const flags = process.execArgv.filter((flag) => !PRIVATE_FLAGS.test(flag));
  const child = spawn(process.execPath, [...flags, entry, dir, ...(migrate ? ['--migrate'] : [])], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) resolve();
      else
        reject(
          new Error(`creating the embedded database in ${dir} failed (${signal ?? `exit ${code}`}): ${stderr.trim()}`),
        );
    });
  });
}
