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
import { cmsApi, mintApiKey } from './factories/cms.js';
import {
  addMember,
  communityHost,
  forumApi,
  makeCommunity,
  mintForumToken,
  type ForumActor,
} from './factories/forum.js';
import { helpdeskApi } from './factories/helpdesk.js';
import { buildTestApp, json, portal, signIn, type Actor, type TestApp } from './helpers/app.js';
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

for (const database of testDatabases) {
  describe(`forum, help desk and CMS copies on two nodes without a bus between them [${database}]`, () => {
    const SHOP = 'shop';
    let t: { a: TestApp; b: TestApp; shared: TestDatabase; admin: string };
    let ann: ForumActor;
    let key = '';
    let admin = '';
    const forumOn = (
      node: TestApp,
      token: string,
      method: 'GET' | 'POST' | 'PATCH' | 'PUT',
      path: string,
      payload?: object,
    ) => forumApi(node.app, SHOP, token, { method, path, ...(payload ? { payload } : {}) });
    const onA = async (method: 'POST' | 'PATCH' | 'PUT', path: string, payload: object) => {
      const response = await forumOn(t.a, t.admin, method, path, payload);
      assert.ok(response.statusCode < 300, response.body);
      return json<{ id: string }>(response);
    };
    /** Resolves once `probe` on node B answers true, within the bound. */
    const onB = (what: string, probe: () => Promise<boolean>) =>
      eventually(what, async () => ((await probe()) ? true : undefined), BOUND_MS);
    const titles = async (path: string, token = ann.token) => {
      const response = await forumOn(t.b, token, 'GET', path);
      return response.statusCode === 200 ? json<Array<{ title: string }>>(response).map((topic) => topic.title) : [];
    };

    before(async () => {
      const shared = await createTestDatabase(database);
      const a = await buildTestApp({ database, sharedDatabase: shared });
      const b = await buildTestApp({ database, sharedDatabase: shared });
      const owner = await signIn(a.app, 'shopkeeper');
      await makeCommunity(a.app, owner, SHOP, 'pro');
      t = { a, b, shared, admin: await mintForumToken(a.app, SHOP, 'shopkeeper', owner.password) };
      ann = await addMember(t.a.app, SHOP, 'ann');
      key = await mintApiKey(t.a.app, owner, SHOP, ['cms-read', 'cms-write', 'helpdesk-read', 'helpdesk-write']);
      admin = await mintApiKey(t.a.app, owner, SHOP, ['admin']);
    });
    after(async () => {
      await t.a.close();
      await t.b.close();
      await t.shared.drop();
    });

    it("shows a topic title changed with SQL, and a forum made staff-only, in a member's list on node B", async () => {
      await onA('POST', '/forums', { name: 'Lounge', slug: 'lounge' });
      const topic = await onA('POST', '/topics', { forum_id: 'lounge', title: 'Hello there', body: 'First' });
      await onB('the topic listed on node B', async () => (await titles('/topics')).includes('Hello there'));
      await t.shared.handle.db.execute(sql`update forum_topics set title = 'Renamed' where id = ${topic.id}`);
      await onB('the new title on node B', async () => (await titles('/topics')).includes('Renamed'));
      await onA('PATCH', '/forums/lounge', { visibility: 'staff' });
      await onB(
        'the staff forum gone from the list on node B',
        async () => !(await titles('/topics')).includes('Renamed'),
      );
    });

    it('lists the new forum on node B when a slug moved and was reused', async () => {
      await onA('POST', '/forums', { name: 'News', slug: 'news' });
      await onA('POST', '/topics', { forum_id: 'news', title: 'Old news', body: 'Then' });
      await onB('the old forum listed by slug', async () =>
        (await titles('/topics?forum_id=news')).includes('Old news'),
      );
      await onA('PATCH', '/forums/news', { slug: 'archive' });
      await onA('POST', '/forums', { name: 'News', slug: 'news' });
      await onA('POST', '/topics', { forum_id: 'news', title: 'Fresh news', body: 'Now' });
      await onB('the new forum listed by the reused slug', async () => {
        const listed = await titles('/topics?forum_id=news');
        return listed.includes('Fresh news') && !listed.includes('Old news');
      });
    });

    it('refuses a member suspended on node A on node B', async () => {
      const bob = await addMember(t.a.app, SHOP, 'bob');
      assert.equal((await forumOn(t.b, bob.token, 'GET', '/topics')).statusCode, 200);
      await onA('PUT', `/members/${bob.member.id}/suspension`, { reason: 'Spam' });
      await onB('node B to refuse the suspended member', async () => {
        const response = await forumOn(t.b, bob.token, 'GET', '/topics');
        return response.statusCode === 403;
      });
    });

    it('lists a ticket opened on node A on node B', async () => {
      const subjects = async () => {
        const response = await helpdeskApi(t.b.app, SHOP, { key }, { method: 'GET', path: '/tickets' });
        assert.equal(response.statusCode, 200, response.body);
        return json<Array<{ subject: string }>>(response).map((ticket) => ticket.subject);
      };
      assert.deepEqual(await subjects(), [], 'node B keeps the empty list');
      const opened = await helpdeskApi(
        t.a.app,
        SHOP,
        { key },
        {
          method: 'POST',
          path: '/tickets',
          payload: { subject: 'Broken', body: 'It broke', requester: { email: 'carol@example.test' } },
        },
      );
      assert.equal(opened.statusCode, 201, opened.body);
      await onB('the ticket listed on node B', async () => (await subjects()).includes('Broken'));
    });

    it('serves a CMS entry published and unpublished on node A on node B', async () => {
      const cms = (node: TestApp, method: 'GET' | 'POST' | 'PUT', path: string, payload?: object, as = key) =>
        cmsApi(node.app, SHOP, as, { method, path, ...(payload ? { payload } : {}) });
      const created = await cms(
        t.a,
        'POST',
        '/content-types',
        {
          slug: 'notes',
          name: 'Notes',
          fields: [{ name: 'title', type: 'text', required: true }],
        },
        admin,
      );
      assert.equal(created.statusCode, 201, created.body);
      const listed = async () =>
        json<Array<{ slug: string }>>(await cms(t.b, 'GET', '/entries/notes?status=published')).map((e) => e.slug);
      assert.deepEqual(await listed(), [], 'node B keeps the empty list');
      const entry = await cms(t.a, 'POST', '/entries/notes', {
        slug: 'hi',
        status: 'published',
        data: { title: 'Hi' },
      });
      assert.equal(entry.statusCode, 201, entry.body);
      await onB('the published entry on node B', async () => (await listed()).includes('hi'));
      const draft = await cms(t.a, 'PUT', `/entries/notes/${json<{ id: string }>(entry).id}`, {
        slug: 'hi',
        status: 'draft',
        data: { title: 'Hi' },
      });
      assert.equal(draft.statusCode, 200, draft.body);
      await onB('the unpublished entry gone on node B', async () => !(await listed()).includes('hi'));
    });
  });
}
