// `_blume.json` site options: validated at ingest, then the edge's SPA fallback and trailing-slash
// forms (DESIGN section 5: explicit options, never a silent SPA fallback).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, json, signIn, type TestApp } from '../../test/helpers/app.js';
import { siteArchive } from '../../test/helpers/archives.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { createStaticSite, deployApi, deployRelease, edge, upload } from '../../test/helpers/deploy.js';

const files = {
  'index.html': 'home',
  'about.html': 'about',
  'docs/index.html': 'docs',
  'app.js': 'console.log(1)',
  '404.html': 'not found',
};

for (const database of testDatabases) {
  describe(`site options [${database}]`, () => {
    let t: TestApp;
    let token: string;

    /** Deploys the files with these options to a fresh site, promoted; answers its host. */
    const siteWith = async (id: string, options: unknown): Promise<string> => {
      const tokenFor = await createStaticSite(t.app, await signIn(t.app, `${id}-owner`), id);
      const release = await deployRelease(
        t.app,
        tokenFor,
        id,
        await siteArchive({ ...files, '_blume.json': JSON.stringify(options) }),
      );
      await deployApi(t.app, tokenFor, 'POST', `/api/deploy/${id}/promote`, { release });
      return `${id}.blume.test`;
    };

    before(async () => {
      t = await buildTestApp({ database });
      token = await createStaticSite(t.app, await signIn(t.app, 'alice'), 'plain');
      const release = await deployRelease(t.app, token, 'plain', await siteArchive(files));
      await deployApi(t.app, token, 'POST', '/api/deploy/plain/promote', { release });
    });
    after(() => t.close());

    it('rejects an invalid _blume.json with 422 and stores nothing', async () => {
      for (const [body, detail] of [
        ['{"spa": "yes"}', /"spa" must be true or false/],
        ['{"trailing_slash": "sometimes"}', /"trailing_slash" must be one of/],
        ['{"fallback": "index.html"}', /unknown option "fallback"/],
        ['[1]', /must be a JSON object/],
        ['{spa: true}', /not valid JSON/],
      ] as const) {
        const response = await upload(t.app, token, 'plain', await siteArchive({ ...files, '_blume.json': body }));
        assert.equal(response.statusCode, 422, body);
        const problem = json<{ code: string; detail: string }>(response);
        assert.equal(problem.code, 'invalid_blume_json');
        assert.match(problem.detail, detail);
      }
      const listed = json<{ releases: unknown[] }>(await deployApi(t.app, token, 'GET', '/api/deploy/plain/releases'));
      assert.equal(listed.releases.length, 1);
    });

    it('has no SPA fallback unless asked: misses answer the 404 page', async () => {
      const miss = await edge(t.app, 'plain.blume.test', '/dashboard/settings');
      assert.equal(miss.statusCode, 404);
      assert.equal(miss.body, 'not found');
      // _blume.json is configuration, not content.
      assert.equal((await edge(t.app, 'plain.blume.test', '/_blume.json')).statusCode, 404);
    });

    it('with "spa": true serves index.html for route-like misses, and 404 for file-like ones', async () => {
      const host = await siteWith('spa', { spa: true });
      const route = await edge(t.app, host, '/dashboard/settings?tab=2');
      assert.equal(route.statusCode, 200);
      assert.equal(route.body, 'home');
      assert.equal(route.headers['content-type'], 'text/html; charset=utf-8');
      assert.equal((await edge(t.app, host, '/about')).body, 'about');
      const asset = await edge(t.app, host, '/missing.js');
      assert.equal(asset.statusCode, 404);
      assert.equal(asset.body, 'not found');
    });

    it('with "trailing_slash": "always" redirects pages to their slash form', async () => {
      const host = await siteWith('always', { trailing_slash: 'always' });
      const about = await edge(t.app, host, '/about?x=1');
      assert.equal(about.statusCode, 301);
      assert.equal(about.headers.location, '/about/?x=1');
      assert.equal((await edge(t.app, host, '/about/')).body, 'about');
      assert.equal((await edge(t.app, host, '/docs')).headers.location, '/docs/');
      assert.equal((await edge(t.app, host, '/docs/')).body, 'docs');
      assert.equal((await edge(t.app, host, '/app.js')).body, 'console.log(1)');
      assert.equal((await edge(t.app, host, '/')).body, 'home');
    });

    it('with "trailing_slash": "never" redirects slash forms away and serves folders without one', async () => {
      const host = await siteWith('never', { trailing_slash: 'never' });
      const docs = await edge(t.app, host, '/docs/');
      assert.equal(docs.statusCode, 301);
      assert.equal(docs.headers.location, '/docs');
      assert.equal((await edge(t.app, host, '/docs')).body, 'docs');
      assert.equal((await edge(t.app, host, '/about/')).headers.location, '/about');
      assert.equal((await edge(t.app, host, '/about')).body, 'about');
      assert.equal((await edge(t.app, host, '/')).body, 'home');
      assert.equal((await edge(t.app, host, '/nothing/')).statusCode, 404);
    });

    it('keeps the default behaviour with "trailing_slash": "auto"', async () => {
      const host = await siteWith('auto', { trailing_slash: 'auto', spa: false });
      assert.equal((await edge(t.app, host, '/docs')).headers.location, '/docs/');
      assert.equal((await edge(t.app, host, '/about')).body, 'about');
      assert.equal((await edge(t.app, host, '/about/')).statusCode, 404);
    });
  });
}
