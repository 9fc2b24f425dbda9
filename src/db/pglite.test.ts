import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { openDatabase, queryRows } from './client.js';
import { migrationStatus } from './migrate.js';

describe('embedded database folder', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'blume-pglite-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('is created in a child process, complete or not at all, and opened with small shared buffers', async () => {
    const dbDir = path.join(dir, 'db');
    const handle = await openDatabase({ pgliteDir: dbDir });
    try {
      const [row] = await queryRows<{ shared_buffers: string }>(handle.db, sql`show shared_buffers`);
      assert.equal(row?.shared_buffers, '16MB');
      assert.equal((await migrationStatus(handle)).applied, 0, 'migrations are left to the caller unless asked for');
    } finally {
      await handle.close();
    }
    assert.ok(existsSync(path.join(dbDir, 'PG_VERSION')));
    assert.deepEqual(await readdir(dir), ['db'], 'no half-made folder is left beside it');
    // Opening it again finds the database and keeps it.
    const again = await openDatabase({ pgliteDir: dbDir });
    await again.close();
  });

  it('applies the migrations in the child when asked to', async () => {
    const handle = await openDatabase({ pgliteDir: path.join(dir, 'migrated'), migrateNewPglite: true });
    try {
      assert.equal((await migrationStatus(handle)).pending, 0);
    } finally {
      await handle.close();
    }
  });

  it('takes an empty folder and refuses one that holds files but no database', async () => {
    const empty = path.join(dir, 'empty');
    await mkdir(empty);
    const handle = await openDatabase({ pgliteDir: empty });
    await handle.close();
    assert.ok(existsSync(path.join(empty, 'PG_VERSION')));

    const stray = path.join(dir, 'stray');
    await mkdir(stray);
    await writeFile(path.join(stray, 'notes.txt'), 'not a database');
    await assert.rejects(() => openDatabase({ pgliteDir: stray }), /holds files but no database/);
    assert.deepEqual(await readdir(stray), ['notes.txt']);
  });
});
