// Migration cms_paired_indexes (decision 0130): types made before it get the paired indexes
// content-types.ts makes for new types, under the same names, on the same expressions, and lose
// them with the type as new ones do.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestDatabase, testDatabases } from '../../test/helpers/databases.js';
import { migrateUpTo } from '../../test/helpers/migrations.js';
import { queryRows } from '../db/client.js';
import { runMigrations } from '../db/migrate.js';
import { deleteType, pairedIndexName } from './content-types.js';

for (const database of testDatabases) {
  describe(`content paired indexes migration [${database}]`, () => {
    it('pairs each enum or boolean field with the other indexed fields of the existing types', async () => {
      const db = await createTestDatabase(database, { migrate: false });
      try {
        const later = await migrateUpTo(db.handle, '_cms_paired_indexes');
        const run = (query: string) => db.handle.db.execute(sql.raw(query));
        await run(`insert into sites (id, kind, plan) values ('club', 'community', 'pro')`);
        await run(`insert into cms_content_types (id, site_id, slug, name, fields) values ('t1', 'club', 'books', 'Books',
          '[{"name":"pages","type":"number"},{"name":"genre","type":"enum","options":{"values":["a","b"]}},
            {"name":"notes","type":"markdown"},{"name":"isbn","type":"text","unique":true}]')`);
        // As content-types.ts made them before the migration: one index per indexed field.
        await run(`create index cmsx_t1_pages on cms_entries (((data ->> 'pages')::numeric), id) where type_id = 't1'`);
        await run(`create index cmsx_t1_genre on cms_entries ((data ->> 'genre'), id) where type_id = 't1'`);
        await run(`create unique index cmsu_t1_isbn on cms_entries ((data ->> 'isbn')) where type_id = 't1'`);
        assert.equal(await runMigrations(db.handle), later);
        const paired = () =>
          queryRows<{ indexname: string; indexdef: string }>(
            db.handle.db,
            sql`select indexname, indexdef from pg_indexes where indexname like 'cmsc%' order by indexname`,
          );
        const made = await paired();
        assert.deepEqual(
          made.map((index) => index.indexname),
          [pairedIndexName('t1', 'genre', 'pages'), pairedIndexName('t1', 'genre', 'isbn')].sort(),
        );
        const pages = made.find((index) => index.indexname === pairedIndexName('t1', 'genre', 'pages'))!;
        assert.match(
          pages.indexdef,
          /\(\(data ->> 'genre'::text\)\), \(\(\(data ->> 'pages'::text\)\)::numeric\), id\) WHERE \(type_id = 't1'::text\)/,
        );
        await deleteType(db.handle.db, 'club', 'books');
        assert.deepEqual(await paired(), []);
      } finally {
        await db.drop();
      }
    });
  });
}
