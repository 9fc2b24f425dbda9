import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestDatabase, testDatabases } from '../../test/helpers/databases.js';
import { migrateUpTo } from '../../test/helpers/migrations.js';
import { queryRows } from '../db/client.js';
import { runMigrations } from '../db/migrate.js';
import { claimBuild } from '../deploy/builds/queue.js';

type Row = Record<string, unknown>;

for (const database of testDatabases) {
  describe(`jobs migration [${database}]`, () => {
    it('moves waiting and running builds and unsent forum mail onto the job queue', async () => {
      const db = await createTestDatabase(database, { migrate: false });
      try {
        const later = await migrateUpTo(db.handle, '_jobs');
        const run = (query: string) => db.handle.db.execute(sql.raw(query));
        await run(`insert into sites (id, kind, plan) values ('club', 'community', 'pro')`);
        await run(`insert into deploy_builds (id, site_id, state, trigger, kind, attempts, lease_owner, lease_expires_at, created_at) values
          ('b-queued', 'club', 'queued', 'upload', 'markdown', 0, null, null, now() - interval '2 minutes'),
          ('b-running', 'club', 'running', 'upload', 'markdown', 1, 'old-worker', now() - interval '1 minute', now() - interval '3 minutes'),
          ('b-done', 'club', 'succeeded', 'upload', 'markdown', 1, null, null, now() - interval '4 minutes')`);
        await run(`insert into forum_mail_outbox (id, site_id, kind, message, attempts, next_attempt_at, last_error) values
          ('m-new', 'club', 'reply', '{"to":"a@example.test","subject":"Hi","text":"Hi"}', 0, now(), null),
          ('m-retry', 'club', 'reset', '{"to":"b@example.test","subject":"Reset","text":"Reset"}', 2, now() + interval '1 hour', 'connection refused'),
          ('m-spent', 'club', 'confirm', '{"to":"c@example.test","subject":"Confirm","text":"Confirm"}', 6, now(), 'mailbox unavailable')`);
        assert.equal(await runMigrations(db.handle), later);

        const rows = await queryRows<Row>(
          db.handle.db,
          sql`select id, kind, state, attempts, max_attempts, lease_owner, last_error, payload->>'kind' as mail_kind, payload->'message'->>'to' as mail_to, run_at > now() as later from jobs order by id`,
        );
        assert.deepEqual(rows, [
          {
            id: 'b-queued',
            kind: 'deploy.build',
            state: 'queued',
            attempts: 0,
            max_attempts: 1,
            lease_owner: null,
            last_error: null,
            mail_kind: null,
            mail_to: null,
            later: false,
          },
          {
            id: 'b-running',
            kind: 'deploy.build',
            state: 'running',
            attempts: 1,
            max_attempts: 1,
            lease_owner: 'old-worker',
            last_error: null,
            mail_kind: null,
            mail_to: null,
            later: false,
          },
          {
            id: 'm-new',
            kind: 'forum.mail',
            state: 'queued',
            attempts: 0,
            max_attempts: 6,
            lease_owner: null,
            last_error: null,
            mail_kind: 'reply',
            mail_to: 'a@example.test',
            later: false,
          },
          {
            id: 'm-retry',
            kind: 'forum.mail',
            state: 'queued',
            attempts: 2,
            max_attempts: 6,
            lease_owner: null,
            last_error: 'connection refused',
            mail_kind: 'reset',
            mail_to: 'b@example.test',
            later: true,
          },
          {
            id: 'm-spent',
            kind: 'forum.mail',
            state: 'failed',
            attempts: 6,
            max_attempts: 6,
            lease_owner: null,
            last_error: 'mailbox unavailable',
            mail_kind: 'confirm',
            mail_to: 'c@example.test',
            later: false,
          },
        ]);
        // The moved build is claimed like any other.
        assert.equal((await claimBuild(db.handle.db, 'new-worker', 60_000))?.id, 'b-queued');
      } finally {
        await db.drop();
      }
    });
  });
}
