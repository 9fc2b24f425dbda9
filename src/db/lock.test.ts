import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { acquireDataDirLock, DataDirBusyError, isProcessAlive, lockFilePath, lockOwner } from './lock.js';

/**
 * A real zombie: `sh` starts a short sleep in the background and becomes a long sleep, which never
 * collects its child, so the short one stays a zombie (state Z) until the long one ends.
 */
async function withZombie(use: (pid: number) => Promise<void>): Promise<void> {
  const parent = spawn('sh', ['-c', 'sleep 0.05 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const pid = Number((await new Promise<Buffer>((resolve) => parent.stdout.once('data', resolve))).toString().trim());
    for (let i = 0; i < 100; i++) {
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) break;
      await sleep(20);
    }
    await use(pid);
  } finally {
    parent.kill('SIGKILL');
  }
}

describe('data directory lock', () => {
  let dataDir: string;
  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'blume-lock-'));
  });
  after(() => rm(dataDir, { recursive: true, force: true }));

  it('counts a zombie as dead, so a restart right after kill -9 takes the lock over', async () => {
    await withZombie(async (zombie) => {
      // The kernel still answers signals for it, which is what made the old check call it alive.
      assert.doesNotThrow(() => process.kill(zombie, 0));
      assert.equal(isProcessAlive(zombie), false);
      await writeFile(lockFilePath(dataDir), `${zombie}\n`);
      assert.equal(lockOwner(dataDir), undefined);
      const lock = acquireDataDirLock(dataDir, path.join(dataDir, 'db'));
      assert.equal(lockOwner(dataDir), process.pid);
      lock.release();
    });
  });

  it('refuses while the owner runs', async () => {
    const owner = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      await writeFile(lockFilePath(dataDir), `${owner.pid}\n`);
      assert.equal(isProcessAlive(owner.pid!), true);
      assert.throws(
        () => acquireDataDirLock(dataDir, path.join(dataDir, 'db')),
        (error: unknown) => error instanceof DataDirBusyError && error.pid === owner.pid,
      );
    } finally {
      owner.kill('SIGKILL');
      await rm(lockFilePath(dataDir), { force: true });
    }
  });
});
