// Migration purchase_workspaces (decision 0118): workspaces provisioned before keys were scoped stay
// with the key whose create the audit log recorded; console-made sites and a site made again under
// a purged workspace's id belong to no key.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestDatabase, testDatabases } from '../../test/helpers/databases.js';
import { migrateUpTo } from '../../test/helpers/migrations.js';
import { queryRows } from '../db/client.js';
import { runMigrations } from '../db/migrate.js';

for (const database of testDatabases) {
  describe(`purchase workspaces migration [${database}]`, () => {
    it('gives each earlier workspace to the key that provisioned it', async () => {
      const db = await createTestDatabase(database, { migrate: false });
      try {
        const later = await migrateUpTo(db.handle, '_purchase_workspaces');
        const run = (query: string) => db.handle.db.execute(sql.raw(query));
        await run(`insert into sites (id, kind, plan, created_at) values
          ('bought', 'static', 'pro', now() - interval '2 days'),
          ('handmade', 'static', 'free', now() - interval '2 days'),
          ('reused', 'static', 'free', now() - interval '1 hour')`);
        const create = `'POST', '/api/purchase/v1/workspaces'`;
        await run(`insert into audit_log (id, credential_id, method, path, target, status, created_at) values
          ('a1', 'key-a', ${create}, 'bought', 201, now() - interval '2 days' + interval '1 second'),
          ('a2', 'key-b', ${create}, 'bought', 409, now() - interval '1 day'),
          ('a3', 'key-a', 'GET', '/api/purchase/v1/workspaces/handmade', 'handmade', 200, now()),
          ('a4', 'key-b', ${create}, 'reused', 201, now() - interval '3 days')`);
        assert.equal(await runMigrations(db.handle), later);
        assert.deepEqual(
          await queryRows<{ site_id: string; credential_id: string }>(
            db.handle.db,
            sql`select site_id, credential_id from purchase_workspaces order by site_id`,
          ),
          [{ site_id: 'bought', credential_id: 'key-a' }],
        );
      } finally {
        await db.drop();
      }
    });
  });
}
