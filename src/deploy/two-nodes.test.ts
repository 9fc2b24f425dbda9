// Two app nodes on one database and one Redis: a promote, or a new preview password, answered by
// one node is served by the other on its very next request (the alias broadcast is heard before the
// change answers). Without Redis, the other node's copy heals from the pointer epoch within 2 s.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, buildTwoNodes, signIn, type TestApp } from '../../test/helpers/app.js';
import { siteArchive } from '../../test/helpers/archives.js';
import { createTestDatabase, testDatabases, type TestDatabase } from '../../test/helpers/databases.js';
import { basicAuth, createStaticSite, deployApi, deployRelease, edge } from '../../test/helpers/deploy.js';
import { eventually } from '../../test/helpers/eventually.js';

const redis = Boolean(process.env.TEST_REDIS_URL);

const basic = (password: string) => ({ authorization: basicAuth(password) });

/**
 * The preview password node B serves `host` with (checked), then a new one made on node A: both,
 * for the test to ask node B with.
 */
async function newPreviewPassword(a: TestApp, b: TestApp, token: string, host: string) {
  const listed = await deployApi(b.app, token, 'GET', '/api/deploy/news/releases');
  const before = (JSON.parse(listed.body) as { aliases: { auth: string } }).aliases.auth;
  assert.equal((await edge(b.app, host, '/', basic(before))).body, 'monday', 'node B keeps the old password');
  const changed = await deployApi(a.app, token, 'POST', '/api/deploy/news/preview-password');
  assert.equal(changed.statusCode, 200, changed.body);
  const after = (JSON.parse(changed.body) as { aliases: { auth: string } }).aliases.auth;
  return { before, after };
}

for (const database of testDatabases) {
  describe(`two nodes [${database}]`, { skip: redis ? false : 'cross-node invalidation needs TEST_REDIS_URL' }, () => {
    let close: () => Promise<void>;
    let a: TestApp;
    let b: TestApp;
    let token: string;
    let dataDir: string;
    const releases: string[] = [];

    before(async () => {
      // Nodes share the blob store as they would share a bucket or a volume in production.
      dataDir = await mkdtemp(path.join(tmpdir(), 'blume-nodes-'));
      const env = { BLUME_DATA_DIR: dataDir };
      ({ a, b, close } = await buildTwoNodes(database, env));
      const alice = await signIn(a.app, 'alice');
      token = await createStaticSite(a.app, alice, 'news');
      for (const edition of ['monday', 'tuesday', 'wednesday'])
        releases.push(await deployRelease(a.app, token, 'news', await siteArchive({ 'index.html': edition })));
    });
    after(async () => {
      await close();
      await rm(dataDir, { recursive: true, force: true });
    });

    it('serves each promote and rollback made on one node from the other at once', async () => {
      // The other node reads and caches the pointers before every change.
      for (const release of releases) {
        await edge(b.app, 'news.blume.test', '/');
        const promoted = await deployApi(a.app, token, 'POST', '/api/deploy/news/promote', { release });
        assert.equal(promoted.statusCode, 200, promoted.body);
        assert.equal(
          (await edge(b.app, 'news.blume.test', '/')).body,
          ['monday', 'tuesday', 'wednesday'][releases.indexOf(release)],
        );
      }
      const rolled = await deployApi(b.app, token, 'POST', '/api/deploy/news/rollback');
      assert.equal(rolled.statusCode, 200, rolled.body);
      assert.equal((await edge(a.app, 'news.blume.test', '/')).body, 'tuesday');
      assert.equal((await edge(b.app, 'news.blume.test', '/')).body, 'tuesday');
    });

    it('refuses the old preview password on the other node as soon as one node changed it', async () => {
      const host = `r-${releases[0]}--news.blume.test`;
      const { before, after } = await newPreviewPassword(a, b, token, host);
      assert.equal((await edge(b.app, host, '/', basic(before))).statusCode, 401);
      assert.equal((await edge(b.app, host, '/', basic(after))).body, 'monday');
    });
  });
}

for (const database of testDatabases) {
  describe(`two nodes without Redis [${database}]`, () => {
    let shared: TestDatabase;
    let a: TestApp;
    let b: TestApp;
    let token: string;
    let release: string;
    let dataDir: string;

    before(async () => {
      dataDir = await mkdtemp(path.join(tmpdir(), 'blume-nodes-'));
      shared = await createTestDatabase(database);
      const options = { database, sharedDatabase: shared, env: { BLUME_DATA_DIR: dataDir } };
      a = await buildTestApp(options);
      b = await buildTestApp(options);
      token = await createStaticSite(a.app, await signIn(a.app, 'alice'), 'news');
      release = await deployRelease(a.app, token, 'news', await siteArchive({ 'index.html': 'monday' }));
    });
    after(async () => {
      await a.close();
      await b.close();
      await shared.drop();
      await rm(dataDir, { recursive: true, force: true });
    });

    it('refuses the old preview password on the other node within 2 s of a new one', async () => {
      const host = `r-${release}--news.blume.test`;
      const { before, after } = await newPreviewPassword(a, b, token, host);
      await eventually(
        'node B to refuse the old password',
        async () => ((await edge(b.app, host, '/', basic(before))).statusCode === 401 ? true : undefined),
        2_000,
      );
      assert.equal((await edge(b.app, host, '/', basic(after))).body, 'monday');
    });
  });
}
