// Blume's own lock on an embedded data directory. PGlite is single-process: two processes on one
// directory corrupt it, and a killed process leaves a stale `postmaster.pid` that makes the next open
// hang forever. The lock file names the owner's pid; a stale PGlite file is cleared only when that
// owner is provably dead.
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';

export interface DataDirLock {
  release(): void;
}

export class DataDirBusyError extends Error {
  constructor(readonly pid: number) {
    super(`the data directory is in use by process ${pid}`);
    this.name = 'DataDirBusyError';
  }
}

export function lockFilePath(dataDir: string): string {
  return path.join(dataDir, 'blume.lock');
}

/**
 * Whether a process runs. A zombie (it ended, its parent has not collected it yet, as happens for a
 * second after a `kill -9`) still answers signals but is dead: it holds no file and runs no code.
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM means it exists but belongs to someone else.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !isZombie(pid);
}

/** True when /proc says the process has ended (state Z or X); false where /proc cannot tell. */
function isZombie(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (error) {
    // Gone between the two looks; elsewhere than Linux there is no /proc to ask.
    return (error as NodeJS.ErrnoException).code === 'ENOENT' && existsSync('/proc/self/stat');
  }
  // "pid (command) state ...": the command may hold spaces and parentheses, so read after the last ')'.
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state === 'Z' || state === 'X';
}

/** The pid of a live process holding the data directory, if any. */
export function lockOwner(dataDir: string): number | undefined {
  const file = lockFilePath(dataDir);
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  if (pid === process.pid) return pid;
  return isProcessAlive(pid) ? pid : undefined;
}

/**
 * Takes the lock or throws DataDirBusyError naming the live owner. A lock left by a dead process
 * is taken over, and PGlite's stale pid file in `dbDir` removed with it.
 */
export function acquireDataDirLock(dataDir: string, dbDir: string): DataDirLock {
  const file = lockFilePath(dataDir);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      // Nobody opens the directory without this lock, so a PGlite pid file found now is stale.
      rmSync(path.join(dbDir, 'postmaster.pid'), { force: true });
      return {
        release: () => {
          if (lockOwner(dataDir) === process.pid) rmSync(file, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = lockOwner(dataDir);
      if (owner !== undefined && owner !== process.pid) throw new DataDirBusyError(owner);
      // The owner is dead (or the file is garbage): take the lock over.
      rmSync(file, { force: true });
    }
  }
  throw new Error(`could not take the lock ${file}`);
}
