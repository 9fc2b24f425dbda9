import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, json, signIn, type TestApp } from '../../test/helpers/app.js';
import { siteArchive } from '../../test/helpers/archives.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { basicAuth, createStaticSite, deployApi, deployRelease, edge } from '../../test/helpers/deploy.js';

interface Overview {
  releases: { id: string; preview_url: string }[];
  aliases: { live: string | null; stage: string | null; auth: string };
  urls: { production: string; stage: string };
}

for (const database of testDatabases) {
  describe(`releases and aliases [${database}]`, () => {
    let t: TestApp;
    let token: string;
    let otherToken: string;
    const ids: string[] = [];

    before(async () => {
      t = await buildTestApp({ database });
      const alice = await signIn(t.app, 'alice');
      token = await createStaticSite(t.app, alice, 'shop');
      otherToken = await createStaticSite(t.app, alice, 'blog');
      for (const version of ['one', 'two', 'three'])
        ids.push(await deployRelease(t.app, token, 'shop', await siteArchive({ 'index.html': `<h1>${version}</h1>` })));
    });
    after(() => t.close());

    const overview = async (): Promise<Overview> =>
      json<Overview>(await deployApi(t.app, token, 'GET', '/api/deploy/shop/releases'));
    const live = async (): Promise<string> => (await edge(t.app, 'shop.blume.test', '/')).body;

    it('lists releases newest first with aliases and URLs; nothing is live before promote', async () => {
      const body = await overview();
      assert.deepEqual(
        body.releases.map((r) => r.id),
        [...ids].reverse(),
      );
      assert.equal(body.aliases.live, null);
      assert.equal(body.aliases.stage, null);
      assert.match(body.aliases.auth, /^[a-z0-9]{24}$/);
      assert.deepEqual(body.urls, { production: 'http://shop.blume.test', stage: 'http://stage--shop.blume.test' });
      const response = await edge(t.app, 'shop.blume.test', '/');
      assert.equal(response.statusCode, 404);
      assert.equal(json(response).code, 'no_live_release');
    });

    it('promotes, rolls back step by step, and refuses when there is nothing earlier', async () => {
      for (const id of ids) {
        const response = await deployApi(t.app, token, 'POST', '/api/deploy/shop/promote', { release: id });
        assert.equal(response.statusCode, 200, response.body);
        assert.equal(json<{ aliases: { live: string } }>(response).aliases.live, id);
      }
      assert.equal(await live(), '<h1>three</h1>');
      // Promoting what is live is a no-op and adds no rollback step.
      await deployApi(t.app, token, 'POST', '/api/deploy/shop/promote', { release: ids[2] });
      const first = await deployApi(t.app, token, 'POST', '/api/deploy/shop/rollback');
      assert.equal(first.statusCode, 200, first.body);
      assert.equal(json<{ release: { id: string } }>(first).release.id, ids[1]);
      assert.equal(await live(), '<h1>two</h1>');
      await deployApi(t.app, token, 'POST', '/api/deploy/shop/rollback');
      assert.equal(await live(), '<h1>one</h1>');
      const none = await deployApi(t.app, token, 'POST', '/api/deploy/shop/rollback');
      assert.equal(none.statusCode, 409);
      assert.equal(json(none).code, 'no_previous_release');
      // A promote after rollbacks starts a new step back to where rollback left live.
      await deployApi(t.app, token, 'POST', '/api/deploy/shop/promote', { release: ids[2] });
      await deployApi(t.app, token, 'POST', '/api/deploy/shop/rollback');
      assert.equal(await live(), '<h1>one</h1>');
    });

    it('refuses releases of other sites and unknown ids', async () => {
      const foreign = await deployRelease(t.app, otherToken, 'blog', await siteArchive({ 'index.html': 'blog' }));
      const response = await deployApi(t.app, token, 'POST', '/api/deploy/shop/promote', { release: foreign });
      assert.equal(response.statusCode, 404);
      assert.equal(json(response).code, 'release_not_found');
      const bad = await deployApi(t.app, token, 'POST', '/api/deploy/shop/promote', { release: 'NOT-AN-ID' });
      assert.equal(bad.statusCode, 400);
      assert.equal(json(bad).code, 'validation_failed');
      const cross = await deployApi(t.app, otherToken, 'POST', '/api/deploy/shop/promote', { release: ids[0] });
      assert.equal(cross.statusCode, 403);
      assert.equal(json(cross).code, 'token_site_mismatch');
      // The foreign release is not reachable on this site's preview host either.
      const { aliases } = await overview();
      const preview = await edge(t.app, `r-${foreign}--shop.blume.test`, '/', {
        authorization: basicAuth(aliases.auth),
      });
      assert.equal(preview.statusCode, 404);
    });

    it('sets and clears the stage alias, protected by basic auth', async () => {
      const stageHost = 'stage--shop.blume.test';
      const put = await deployApi(t.app, token, 'PUT', '/api/deploy/shop/stage', { release: ids[1] });
      assert.equal(put.statusCode, 200, put.body);
      const { aliases } = await overview();
      assert.equal(aliases.stage, ids[1]);
      const anonymous = await edge(t.app, stageHost, '/');
      assert.equal(anonymous.statusCode, 401);
      assert.match(String(anonymous.headers['www-authenticate']), /^Basic realm=/);
      assert.equal(json(anonymous).code, 'preview_auth_required');
      assert.equal(
        anonymous.headers['x-robots-tag'],
        'noindex',
        'a refusal on a stage host is kept out of indexes too',
      );
      assert.equal((await edge(t.app, stageHost, '/', { authorization: basicAuth('wrong') })).statusCode, 401);
      assert.equal(
        (await edge(t.app, stageHost, '/', { authorization: basicAuth(aliases.auth, 'admin') })).statusCode,
        401,
      );
      const ok = await edge(t.app, stageHost, '/', { authorization: basicAuth(aliases.auth) });
      assert.equal(ok.statusCode, 200);
      assert.equal(ok.body, '<h1>two</h1>');
      assert.equal(ok.headers['x-robots-tag'], 'noindex');
      const cleared = await deployApi(t.app, token, 'DELETE', '/api/deploy/shop/stage');
      assert.equal(cleared.statusCode, 200);
      assert.equal(json<{ aliases: { stage: null } }>(cleared).aliases.stage, null);
      const gone = await edge(t.app, stageHost, '/', { authorization: basicAuth(aliases.auth) });
      assert.equal(gone.statusCode, 404);
      assert.equal(json(gone).code, 'no_stage_release');
    });

    it('serves each release on its preview host behind basic auth; production needs none', async () => {
      const { aliases, releases } = await overview();
      const host = new URL(releases.at(-1)!.preview_url).host;
      const refused = await edge(t.app, host, '/');
      assert.equal(refused.statusCode, 401);
      assert.equal(refused.headers['x-robots-tag'], 'noindex');
      const ok = await edge(t.app, host, '/', { authorization: basicAuth(aliases.auth) });
      assert.equal(ok.statusCode, 200);
      assert.equal(ok.body, '<h1>one</h1>');
      assert.equal(ok.headers['x-robots-tag'], 'noindex');
      const production = await edge(t.app, 'shop.blume.test', '/');
      assert.equal(production.statusCode, 200);
      assert.equal(production.headers['x-robots-tag'], undefined);
    });

    it('applies concurrent promotes one at a time, leaving a consistent rollback chain', async () => {
      const responses = await Promise.all(
        ids.map((id) => deployApi(t.app, token, 'POST', '/api/deploy/shop/promote', { release: id })),
      );
      for (const response of responses) assert.equal(response.statusCode, 200, response.body);
      const { aliases } = await overview();
      assert.ok(ids.includes(aliases.live!));
      const rolled = await deployApi(t.app, token, 'POST', '/api/deploy/shop/rollback');
      assert.equal(rolled.statusCode, 200);
      assert.notEqual(json<{ aliases: { live: string } }>(rolled).aliases.live, aliases.live);
    });
  });
}
