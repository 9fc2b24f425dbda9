import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, json, signIn, type TestApp } from '../../test/helpers/app.js';
import { siteArchive } from '../../test/helpers/archives.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { basicAuth, createStaticSite, deployApi, deployRelease, edge } from '../../test/helpers/deploy.js';
import { blobKey } from './blobs.js';
import { pruneReleases } from './prune.js';

for (const database of testDatabases) {
  describe(`release retention [${database}]`, () => {
    let t: TestApp;
    let token: string;
    const ids: string[] = [];

    before(async () => {
      t = await buildTestApp({ database });
      const alice = await signIn(t.app, 'alice');
      token = await createStaticSite(t.app, alice, 'keep');
      for (const n of [1, 2, 3, 4, 5])
        ids.push(
          await deployRelease(
            t.app,
            token,
            'keep',
            await siteArchive({ 'index.html': `release ${n}`, 'common.txt': 'shared by all' }),
          ),
        );
      await deployApi(t.app, token, 'POST', '/api/deploy/keep/promote', { release: ids[0] });
      await deployApi(t.app, token, 'POST', '/api/deploy/keep/promote', { release: ids[1] });
      await deployApi(t.app, token, 'PUT', '/api/deploy/keep/stage', { release: ids[2] });
    });
    after(() => t.close());

    it('keeps the newest, live, stage and rollback chain, and removes only blobs nobody uses', async () => {
      const auth = json<{ aliases: { auth: string } }>(
        await deployApi(t.app, token, 'GET', '/api/deploy/keep/releases'),
      ).aliases.auth;
      const doomedHost = `r-${ids[3]}--keep.blume.test`;
      assert.equal((await edge(t.app, doomedHost, '/', { authorization: basicAuth(auth) })).body, 'release 4');
      const hashOf = (text: string) => createHash('sha256').update(text).digest('hex');

      const outcome = await pruneReleases(t.deps.database.db, t.deps.blobs, t.app.deploy.cache, 'keep', 1);
      assert.deepEqual(outcome.deletedReleases, [ids[3]]);
      assert.equal(outcome.deletedBlobs, 1);
      assert.equal(await t.deps.blobs.has(blobKey(hashOf('release 4'))), false);
      assert.equal(await t.deps.blobs.has(blobKey(hashOf('shared by all'))), true);
      assert.equal((await edge(t.app, doomedHost, '/', { authorization: basicAuth(auth) })).statusCode, 404);
      // Rollback still reaches the protected chain.
      await deployApi(t.app, token, 'POST', '/api/deploy/keep/rollback');
      assert.equal((await edge(t.app, 'keep.blume.test', '/')).body, 'release 1');
    });
  });
}
