// The cache seam (docs/decisions/0111-cache-seam.md) on two nodes sharing one database and nothing
// else: each node has its own in-memory bus, so no message from one ever reaches the other, as with
// pub/sub lost, Redis partitioned or never configured. Every change made on node A, with SQL behind
// both nodes or by the CLI in another process shows on node B within the bound, by B's poll alone.
// And a read racing its invalidation never stores what it read.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { CacheEpochs } from '../src/adapters/cache/epochs.js';
import { createMemoryCache } from '../src/adapters/cache/memory.js';
import { siteScope } from '../src/core/sites/directory.js';
import { makeCommunity, communityHost } from './factories/forum.js';
import { buildTestApp, portal, signIn, type Actor, type TestApp } from './helpers/app.js';
import { createTestDatabase, testDatabases, type TestDatabase } from './helpers/databases.js';
import { eventually } from './helpers/eventually.js';
import { runBlume } from './helpers/process.js';

/** How long a copy may stay stale on a node no message reaches (docs/scaling.md). */
const BOUND_MS = 2_000;
const SITE = 'seam';
const ORIGIN = 'https://app.example';

for (const database of testDatabases) {
  describe(`cache seam on two nodes without a bus between them [${database}]`, () => {
    let shared: TestDatabase;
    let a: TestApp;
    let b: TestApp;
    let owner: Actor;
    const run = (statement: ReturnType<typeof sql>) => shared.handle.db.execute(statement);
    /** A guest's read of the community's forums on `node`, from a web app's origin. */
    const guestRead = (node: TestApp) =>
      node.app.inject({
        method: 'GET',
        url: '/api/forum/v1/forums',
        headers: { host: communityHost(SITE), origin: ORIGIN },
      });
    const code = (response: LightMyRequestResponse) => (response.json() as { code?: string }).code;
    /** Resolves once `node`'s guest read answers `expected` (a status, or a problem code), within the bound. */
    const answersOn = (node: TestApp, expected: number | string, what: string) =>
      eventually(
        what,
        async () => {
          const response = await guestRead(node);
          const got = typeof expected === 'number' ? response.statusCode : code(response);
          return got === expected ? true : undefined;
        },
        BOUND_MS,
      );

    before(async () => {
      shared = await createTestDatabase(database);
      a = await buildTestApp({ database, sharedDatabase: shared });
      b = await buildTestApp({ database, sharedDatabase: shared });
      owner = await signIn(a.app, 'owner');
      await makeCommunity(a.app, owner, SITE, 'pro');
    });
    after(async () => {
      await a.close();
      await b.close();
      await shared.drop();
    });

    it('keeps the site on node B until it moves, and shows it suspended and resumed with SQL within the bound', async () => {
      assert.equal((await guestRead(b)).statusCode, 401, 'a guest may not read: the site is active');
      assert.ok(b.app.services.sites.peek(SITE), 'node B keeps the site');
      await run(sql`update sites set status = 'suspended' where id = ${SITE}`);
      await answersOn(b, 'site_suspended', 'node B to answer 503 site_suspended');
      await answersOn(a, 'site_suspended', 'node A too');
      await run(sql`update sites set status = 'active' where id = ${SITE}`);
      await answersOn(b, 401, 'node B to serve the resumed site');
    });

    it('shows a plan change, and a change of the plan matrix, made with SQL on node B within the bound', async () => {
      await answersOn(b, 401, 'the site to be served');
      await run(sql`update sites set plan = 'free' where id = ${SITE}`);
      await answersOn(b, 'plan_required', 'node B to refuse the forum API on the free plan');
      await run(sql`update sites set plan = 'pro' where id = ${SITE}`);
      await answersOn(b, 401, 'node B to serve the pro plan');
      await run(sql`update plan_features set plans = '{business}' where feature = 'forum_api'`);
      await answersOn(b, 'plan_required', 'node B to obey the new matrix');
      await run(sql`update plan_features set plans = '{pro,business}' where feature = 'forum_api'`);
      await answersOn(b, 401, 'node B to obey the matrix restored');
    });

    it('applies instance settings saved and applied through node A on node B within the bound', async () => {
      await answersOn(b, 401, 'a guest to be refused');
      const env = await portal(a.app, owner, {
        method: 'PUT',
        url: `/api/instances/${SITE}/env`,
        payload: { FORUM_API_PUBLIC_READ: 'True', API_CORS_ORIGINS: ORIGIN },
      });
      assert.equal(env.statusCode, 200, env.body);
      const restart = await portal(a.app, owner, { method: 'POST', url: `/api/instances/${SITE}/restart` });
      assert.equal(restart.statusCode, 200, restart.body);
      assert.equal((await guestRead(a)).statusCode, 200, 'node A at once');
      await answersOn(b, 200, 'node B to let a guest read');
      await run(sql`update site_settings set applied = '{}'::jsonb where site_id = ${SITE}`);
      await answersOn(b, 401, 'node B to obey settings reset with SQL');
      await answersOn(a, 401, 'node A too');
    });

    it(
      'applies settings set and applied by the CLI in another process without Redis on node B within the bound',
      { skip: database === 'postgres' ? false : 'the CLI reaches an embedded database through its server' },
      async () => {
        await answersOn(b, 401, 'a guest to be refused');
        const dataDir = await mkdtemp(path.join(tmpdir(), 'blume-cli-'));
        try {
          const env = {
            DATABASE_URL: shared.url!,
            BLUME_DATA_DIR: dataDir,
            SECRET_KEY: a.config.secretKey,
            BLUME_AUTO_MIGRATE: 'False',
          };
          const saved = await runBlume(
            ['settings', 'set', '--site', SITE, 'FORUM_API_PUBLIC_READ=true', `API_CORS_ORIGINS=${ORIGIN}`],
            env,
          );
          assert.equal(saved.status, 0, saved.stderr);
          const applied = await runBlume(['settings', 'apply', '--site', SITE], env);
          assert.equal(applied.status, 0, applied.stderr);
          await answersOn(b, 200, 'node B to let a guest read');
          await answersOn(a, 200, 'node A too');
        } finally {
          await rm(dataDir, { recursive: true, force: true });
          await run(sql`update site_settings set applied = '{}'::jsonb where site_id = ${SITE}`);
        }
      },
    );

    it('never stores a site read that raced a change of the site', async () => {
      // A node of its own on the shared database, whose loads the test holds until a change committed
      // and the node learned of it: the read saw the site active, the site is suspended now.
      const bus = createMemoryCache();
      const epochs = new CacheEpochs(shared.handle.db, bus.pubsub, { answers: true, pollMs: 60_000 });
      await epochs.start();
      try {
        const statuses = epochs.cache<string>({ name: 'statuses', kind: 'directory', maxBytes: 1024 });
        const read = async () =>
          String(
            ((await run(sql`select status from sites where id = ${SITE}`)) as unknown as { rows: [{ status: string }] })
              .rows[0].status,
          );
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        let loaded!: () => void;
        const readDone = new Promise<void>((resolve) => (loaded = resolve));
        const racing = statuses.cached(siteScope(SITE), SITE, async () => {
          const status = await read();
          loaded();
          await held;
          return status;
        });
        await readDone;
        await run(sql`update sites set status = 'suspended' where id = ${SITE}`);
        assert.ok((await epochs.poll()).includes(siteScope(SITE)), 'the node learns the site moved');
        release();
        assert.equal(await racing, 'active', 'the racing read answers what it read');
        assert.equal(statuses.peek(siteScope(SITE), SITE), undefined, 'and is not kept');
        assert.equal(await statuses.cached(siteScope(SITE), SITE, read), 'suspended', 'the next read loads anew');
        assert.equal(statuses.peek(siteScope(SITE), SITE), 'suspended', 'and is kept');
      } finally {
        await run(sql`update sites set status = 'active' where id = ${SITE}`);
        await epochs.stop();
        await bus.close();
      }
    });
  });
}
