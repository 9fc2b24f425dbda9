// Many creates with one Idempotency-Key at the same time: one workspace, one owner account, every
// answer the same 201 and none a 5xx. On PostgreSQL the race is forced: the idempotency table is
// locked from another connection until every request has passed the replay check and waits inside
// its transaction, so all of them race for the key at once. PGlite runs one transaction at a time;
// there the requests are merely concurrent.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import pg from 'pg';
import { buildTestApp, json, portal, signIn, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { eventually } from '../../test/helpers/eventually.js';
import { users } from '../core/accounts/tables.js';
import { sites } from '../core/sites/tables.js';
import { purchaseWorkspaces } from './tables.js';

const BASE = '/api/purchase/v1';

for (const database of testDatabases) {
  describe(`purchase idempotency under a race [${database}]`, () => {
    let t: TestApp;
    let key: string;

    before(async () => {
      t = await buildTestApp({ database });
      const root = await signIn(t.app, 'root', { admin: true });
      const minted = await portal(t.app, root, {
        method: 'POST',
        url: '/api/admin/purchase-keys',
        payload: { name: 'billing' },
      });
      key = json<{ token: string }>(minted).token;
    });
    after(() => t.close());

    const create = (siteId: string) =>
      portal(t.app, undefined, {
        method: 'POST',
        url: `${BASE}/workspaces`,
        headers: { authorization: `Bearer ${key}`, 'idempotency-key': `order-${siteId}` },
        payload: { site_id: siteId, kind: 'static', plan: 'pro', owner_email: `${siteId}@example.test` },
      });

    async function assertOneWorkspace(siteId: string, answers: Awaited<ReturnType<typeof create>>[]) {
      for (const answer of answers) assert.equal(answer.statusCode, 201, answer.body);
      const bodies = new Set(answers.map((answer) => answer.body));
      assert.equal(bodies.size, 1, 'every answer is the first call’s');
      assert.equal(answers.filter((answer) => answer.headers['idempotent-replayed'] !== 'true').length, 1);
      const db = t.deps.database.db;
      assert.equal((await db.select().from(sites).where(eq(sites.id, siteId))).length, 1);
      assert.equal((await db.select().from(purchaseWorkspaces).where(eq(purchaseWorkspaces.siteId, siteId))).length, 1);
      assert.equal(
        (
          await db
            .select()
            .from(users)
            .where(eq(users.email, `${siteId}@example.test`))
        ).length,
        1,
      );
    }

    it('answers concurrent creates with one key by one workspace and the same 201', async () => {
      await assertOneWorkspace('burst', await Promise.all(Array.from({ length: 12 }, () => create('burst'))));
    });

    it(
      'holds when every request has passed the replay check before any commits',
      { skip: database === 'pglite' ? 'PGlite runs one transaction at a time' : false },
      async () => {
        // The app's pool has 5 connections: 4 requests wait in their transactions, one is spare.
        const racers = 4;
        const side = new pg.Client({ connectionString: t.testDatabase.url });
        await side.connect();
        try {
          await side.query('begin');
          await side.query('lock table purchase_idempotency in exclusive mode');
          const answers = Promise.all(Array.from({ length: racers }, () => create('race')));
          await eventually('every request waiting on the idempotency table', async () => {
            // The side transaction would otherwise read one snapshot of the activity view.
            await side.query('select pg_stat_clear_snapshot()');
            const { rows } = await side.query<{ n: number }>(
              `select count(*)::int as n from pg_stat_activity
               where datname = current_database() and wait_event_type = 'Lock' and query ilike '%purchase_idempotency%'`,
            );
            return rows[0]!.n === racers ? true : undefined;
          });
          await side.query('commit');
          await assertOneWorkspace('race', await answers);
        } finally {
          await side.end();
        }
      },
    );
  });
}
