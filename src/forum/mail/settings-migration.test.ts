// Migration 0029 (decision 0098): the one `notify_replies` switch becomes per-kind settings. A member
// who had turned reply mail off gets no notification mail at all; everyone's first digest counts
// from the migration's hour, not from the day they joined.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestDatabase, testDatabases } from '../../../test/helpers/databases.js';
import { migrateUpTo } from '../../../test/helpers/migrations.js';
import { queryRows } from '../../db/client.js';
import { runMigrations } from '../../db/migrate.js';

type Row = Record<string, unknown>;

for (const database of testDatabases) {
  describe(`mail settings migration [${database}]`, () => {
    it('carries notify_replies over to the per-kind settings and starts every digest clock now', async () => {
      const db = await createTestDatabase(database, { migrate: false });
      try {
        const later = await migrateUpTo(db.handle, '_forum_mail_settings');
        const run = (query: string) => db.handle.db.execute(sql.raw(query));
        await run(`insert into sites (id, kind, plan) values ('club', 'community', 'pro')`);
        await run(`insert into forum_members (id, site_id, username, email, notify_replies, created_at) values
          ('m-on', 'club', 'on', 'on@example.test', true, now() - interval '1 year'),
          ('m-off', 'club', 'off', 'off@example.test', false, now() - interval '1 year')`);
        assert.equal(await runMigrations(db.handle), later);
        const rows = await queryRows<Row>(
          db.handle.db,
          sql`select id, mail_reply, mail_mention, mail_like, digest, (last_digest_at = date_trunc('hour', \
last_digest_at) and now() - last_digest_at < interval '2 hours') as clock_now from forum_members order by id`,
        );
        assert.deepEqual(rows, [
          {
            id: 'm-off',
            mail_reply: 'never',
            mail_mention: 'never',
            mail_like: 'never',
            digest: 'never',
            clock_now: true,
          },
          {
            id: 'm-on',
            mail_reply: 'immediately',
            mail_mention: 'immediately',
            mail_like: 'digest',
            digest: 'weekly',
            clock_now: true,
          },
        ]);
        const columns = await queryRows<Row>(
          db.handle.db,
          sql`select column_name from information_schema.columns where table_name = 'forum_members' and column_name = \
'notify_replies'`,
        );
        assert.deepEqual(columns, [], 'the old switch is gone');
      } finally {
        await db.drop();
      }
    });
  });
}
