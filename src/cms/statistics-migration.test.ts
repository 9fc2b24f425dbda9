// Migration cms_field_statistics (decision 0060): the field indexes of types made before it get their
// statistics objects, on the same expressions, and lose them with the type as new ones do.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestDatabase, testDatabases } from '../../test/helpers/databases.js';
import { migrateUpTo } from '../../test/helpers/migrations.js';
import { queryRows } from '../db/client.js';
import { runMigrations } from '../db/migrate.js';
import { deleteType } from './content-types.js';

for (const database of testDatabases) {
  describe(`content field statistics migration [${database}]`, () => {
    it('makes a statistics object beside every field index of the existing types', async () => {
      const db = await createTestDatabase(database, { migrate: false });
      try {
        const later = await migrateUpTo(db.handle, '_cms_field_statistics');
        const run = (query: string) => db.handle.db.execute(sql.raw(query));
        await run(`insert into sites (id, kind, plan) values ('club', 'community', 'pro')`);
        await run(`insert into cms_content_types (id, site_id, slug, name, fields) values ('t1', 'club', 'books', 'Books',
          '[{"name":"isbn","type":"text","unique":true},{"name":"pages","type":"number"},{"name":"notes","type":"markdown"}]')`);
        // As content-types.ts made them before the migration.
        await run(`create unique index cmsu_t1_isbn on cms_entries ((data ->> 'isbn')) where type_id = 't1'`);
        await run(`create index cmsx_t1_pages on cms_entries (((data ->> 'pages')::numeric), id) where type_id = 't1'`);
        assert.equal(await runMigrations(db.handle), later);
        const statistics = () =>
          queryRows<{ stxname: string; definition: string }>(
            db.handle.db,
            sql`select stxname, pg_get_statisticsobjdef(oid) as definition from pg_statistic_ext order by stxname`,
          );
        const made = await statistics();
        assert.deepEqual(
          made.map((s) => s.stxname),
          ['cmss_t1_isbn', 'cmss_t1_pages'],
        );
        assert.match(made[1]!.definition, /ON type_id, \(\(data ->> 'pages'::text\)::numeric\) FROM cms_entries/);
        await deleteType(db.handle.db, 'club', 'books');
        assert.deepEqual(await statistics(), []);
      } finally {
        await db.drop();
      }
    });
  });
}
