// Backup and restore across database kinds, in process: an installation with some of everything is
// backed up, restored into a fresh database of the other kind, and then answers every probe with the
// same bytes; a backup of the restored copy is the backup it came from, row for row, and values of
// every column type come back exactly. A restore refuses a database with data and a damaged backup.
import assert from 'node:assert/strict';
import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { createLocalBlobStore } from '../adapters/blobs/local.js';
import { queryRows, type Executor } from '../db/client.js';
import { askAll, fillInstance, type Probe } from '../../test/factories/instance.js';
import { buildTestApp, type TestApp } from '../../test/helpers/app.js';
import {
  createTestDatabase,
  testDatabases,
  type DatabaseKind,
  type TestDatabase,
} from '../../test/helpers/databases.js';
import { backupTo } from './backup.js';
import { MANIFEST_FILE, tableFile, type BackupManifest } from './format.js';
import { restoreFrom } from './restore.js';
import { installAndSeed } from '../runtime.js';

const PLATFORM = { mode: 'platform' } as const;

/** A table of the column types the schema has and may get: every value must come back as it was. */
async function createTypesTable(db: Executor): Promise<void> {
  await db.execute(sql`create table backup_types_probe (
    id integer primary key, raw bytea, doc jsonb, at timestamptz, local_at timestamp, tags text[], grid integer[][],
    amount numeric, ratio double precision, big bigint, flag boolean, note text, day date)`);
}

async function typesTable(db: Executor): Promise<string[]> {
  const rows = await queryRows<{ row: string }>(
    db,
    sql`select row(t.*)::text as row from backup_types_probe t order by id`,
  );
  return rows.map((r) => r.row);
}

/** The indexes and statistics content types made on their entries (DDL a restore must make again). */
async function typeIndexesOf(db: Executor): Promise<string[]> {
  const rows = await queryRows<{ name: string }>(
    db,
    sql`select indexname as name from pg_indexes where tablename = 'cms_entries' and indexname ~ '^cms[xuc]_'
        union all select stxname from pg_statistic_ext where stxname ~ '^cmss_' order by 1`,
  );
  return rows.map((row) => row.name);
}

function answerOf(app: TestApp['app']) {
  return async (probe: Probe) => {
    const response = await app.inject({
      method: 'GET',
      url: probe.url,
      headers: { host: probe.host, ...probe.headers },
    });
    return {
      status: response.statusCode,
      contentType: String(response.headers['content-type'] ?? ''),
      body: response.rawPayload,
    };
  };
}

const pairs: Array<[DatabaseKind, DatabaseKind]> = testDatabases.includes('postgres')
  ? [
      ['pglite', 'postgres'],
      ['postgres', 'pglite'],
    ]
  : [['pglite', 'pglite']];

for (const [from, to] of pairs) {
  describe(`backup on ${from}, restore on ${to}`, () => {
    let source: TestApp;
    let target: TestDatabase;
    let restored: TestApp | undefined;
    let scratch: string;
    let probes: Probe[];
    let manifest: BackupManifest;

    before(async () => {
      scratch = await mkdtemp(path.join(tmpdir(), 'blume-backup-'));
      source = await buildTestApp({ database: from });
      probes = await fillInstance(source.app);
      const db = source.deps.database.db;
      await createTypesTable(db);
      await db.execute(sql`insert into backup_types_probe values
        (1, '\\x00ff10'::bytea, '{"a": [1, 2.50, {"b": null}], "big": 12345678901234567890, "s": "é \\" \\\\ \\n"}', '2024-02-29 23:59:59.123456+05:30',
         '2024-01-01 00:00:00.000001', '{"a b","c,d","",NULL}', '{{1,2},{3,4}}', 123456789.000000001, 0.1, -9223372036854775808, true, E'tab\\tline\\nend', '0001-01-01'),
        (2, null, 'null', 'infinity', null, '{}', null, 'NaN', 'Infinity', 0, false, '', '9999-12-31')`);
      // Installed (migrated, seeded, its mode recorded) but unused: what a first start leaves.
      target = await createTestDatabase(to);
      await installAndSeed(target.handle);
      await createTypesTable(target.handle.db);
    });
    after(async () => {
      await restored?.close();
      await source.close();
      await target.drop();
      await rm(scratch, { recursive: true, force: true });
    });

    it('restores an installation that answers every probe with the same bytes', async () => {
      const dir = path.join(scratch, 'backup');
      ({ manifest } = await backupTo(
        { database: source.deps.database, blobs: source.deps.blobs, secretKey: source.config.secretKey },
        dir,
      ));
      assert.equal(manifest.source.database, from);
      assert.ok(
        manifest.blobs.some((b) => b.key.endsWith('.gz')) &&
          manifest.blobs.some((b) => b.key.startsWith('cms-media/')) &&
          manifest.blobs.some((b) => b.key.startsWith('forum-uploads/')),
      );
      const storeKeys: string[] = [];
      for await (const key of source.deps.blobs.list()) storeKeys.push(key);
      assert.deepEqual(
        manifest.blobs.map((b) => b.key),
        storeKeys.sort(),
        'every blob in the store is one the rows refer to',
      );
      assert.equal(manifest.tables.find((t) => t.name === 'forum_topics')?.rows, 3);
      assert.equal((await readFile(path.join(dir, 'secret_key'), 'utf8')).trim(), source.config.secretKey);
      const before = await askAll(probes, answerOf(source.app));

      const dataDir = path.join(scratch, 'restored');
      const summary = await restoreFrom(
        { database: target.handle, blobs: createLocalBlobStore(path.join(dataDir, 'blobs')), mode: PLATFORM },
        dir,
      );
      assert.equal(summary.laterMigrations, 0);
      restored = await buildTestApp({ database: to, sharedDatabase: target, env: { BLUME_DATA_DIR: dataDir } });
      const after = await askAll(probes, answerOf(restored.app));
      for (const [index, answer] of after.entries()) {
        assert.equal(answer.status, before[index]!.status, answer.probe);
        assert.ok(answer.status < 300, `${answer.probe}: ${answer.status} ${answer.body.toString()}`);
        assert.equal(answer.contentType, before[index]!.contentType, answer.probe);
        assert.equal(answer.body.toString('base64'), before[index]!.body.toString('base64'), answer.probe);
      }
      assert.deepEqual(await typesTable(target.handle.db), await typesTable(source.deps.database.db));
      const typeIndexes = await typeIndexesOf(source.deps.database.db);
      assert.ok(typeIndexes.length > 0, 'the instance has content types with indexed fields');
      assert.deepEqual(await typeIndexesOf(target.handle.db), typeIndexes, "the types' indexes are made again");
    });

    it('backs the restored copy up into the same rows, sequences and blobs', async () => {
      const again = (
        await backupTo(
          { database: target.handle, blobs: restored!.deps.blobs, secretKey: source.config.secretKey },
          path.join(scratch, 'again'),
        )
      ).manifest;
      assert.deepEqual(again.tables, manifest.tables);
      assert.deepEqual(again.sequences, manifest.sequences);
      assert.deepEqual(again.blobs, manifest.blobs);
      assert.equal(again.source.database, to);
    });

    it('fails a backup when a blob the rows refer to is gone', async () => {
      const media = manifest.blobs.find((b) => b.key.startsWith('cms-media/'))!;
      await source.deps.blobs.delete(media.key);
      const backup = backupTo(
        { database: source.deps.database, blobs: source.deps.blobs, secretKey: source.config.secretKey },
        path.join(scratch, 'holed'),
      );
      await assert.rejects(
        backup,
        new RegExp(
          `1 blob\\(s\\) the database refers to were deleted while the backup ran .* for example ${media.key}; run the backup again`,
        ),
      );
    });

    it('refuses a database that holds data, and a damaged backup', async () => {
      const dir = path.join(scratch, 'backup');
      const blobs = createLocalBlobStore(path.join(scratch, 'elsewhere'));
      await assert.rejects(
        restoreFrom({ database: target.handle, blobs, mode: PLATFORM }, dir),
        /already holds data \(in \w+/,
      );
      const fresh = await createTestDatabase(to, { migrate: false });
      try {
        // The intact backup, but a blob store with a blob of another install in it.
        const used = createLocalBlobStore(path.join(scratch, 'used-blobs'));
        await used.put('ab/cdef0123456789', Buffer.from('another install'));
        await assert.rejects(
          restoreFrom({ database: fresh.handle, blobs: used, mode: PLATFORM }, dir),
          /The local blob store already holds blobs this backup does not have \(ab\/cdef0123456789\); restore into an empty one/,
        );
        const kept: string[] = [];
        for await (const key of used.list()) kept.push(key);
        assert.deepEqual(kept, ['ab/cdef0123456789'], 'the refused restore copied no blob');
        await appendFile(path.join(dir, tableFile('forum_posts')), '{"id":"smuggled"}\n');
        await assert.rejects(
          restoreFrom({ database: fresh.handle, blobs, mode: PLATFORM }, dir),
          /damaged: tables\/forum_posts\.ndjson does not match/,
        );
        await rm(path.join(dir, MANIFEST_FILE));
        await assert.rejects(
          restoreFrom({ database: fresh.handle, blobs, mode: PLATFORM }, dir),
          /not a complete Blume backup/,
        );
        const [tables] = await queryRows<{ count: number }>(
          fresh.handle.db,
          sql`select count(*)::int as count from pg_tables where schemaname = 'public'`,
        );
        assert.equal(tables!.count, 0, 'a refused restore changes nothing');
      } finally {
        await fresh.drop();
      }
    });
  });
}
