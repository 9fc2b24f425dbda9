// Scratch entries under `<data dir>/tmp`: spooled uploads (`ingest-`), uploaded build sources
// (`source-`), compressed variants (`variants-`) and build folders (`build-`). Each name carries the
// host and pid of the process that made it, so a starting server can tell what a dead process left
// even when other nodes share the data directory, and remove exactly that. Every path that makes
// one removes it when it ends, failed or not; the sweep is for processes that died (kill -9, OOM).
import { readdir, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { isProcessAlive } from '../db/lock.js';
import { randomAlnum } from '../lib/ids.js';

type TempKind = 'ingest' | 'source' | 'variants' | 'build';

const host = (): string => hostname().replace(/[^A-Za-z0-9-]/g, '_');
const OWNED = /^(?:ingest|source|variants|build)-([A-Za-z0-9_-]+)\.(\d+)-/;
const ANY_KIND = /^(?:ingest|source|variants|build)-/;

/** `<kind>-<host>.<pid>-`: the start of a scratch name of this process (mkdtemp adds the rest). */
export function tempPrefix(kind: TempKind): string {
  return `${kind}-${host()}.${process.pid}-`;
}

/** A fresh scratch name of this process. */
export function tempName(kind: TempKind): string {
  return `${tempPrefix(kind)}${randomAlnum(12)}`;
}

/**
 * Removes scratch entries whose process is gone: made on this host by a pid that no longer runs.
 * With `owner: true` (this process holds the data directory's lock, so nobody else writes there)
 * every scratch entry goes. Answers the names removed.
 */
export async function sweepTempDir(tmpDir: string, options: { owner: boolean }): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(tmpDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const thisHost = host();
  const stale = names.filter((name) => {
    if (options.owner) return ANY_KIND.test(name);
    const match = OWNED.exec(name);
    return (
      match !== null && match[1] === thisHost && Number(match[2]) !== process.pid && !isProcessAlive(Number(match[2]))
    );
  });
  for (const name of stale) await rm(path.join(tmpDir, name), { recursive: true, force: true });
  return stale;
}
