// A community site run from the console without JavaScript: links into the instance, the settings
// editor (typed inputs, secrets never sent back, pending changes until the restart applies them) and
// API keys with scopes. Refusals are shown in words and change nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SETTING_NAMES } from '../core/settings/allowlist.js';
import { loadSettings, openSetting } from '../core/settings/service.js';
import { updateSite } from '../core/sites/service.js';
import { cmsApi } from '../../test/factories/cms.js';
import { communityHost } from '../../test/factories/forum.js';
import { buildTestApp, signIn, PORTAL_HOST, portal, type Actor, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { pageText, UiClient } from '../../test/helpers/forum-ui.js';

for (const database of testDatabases) {
  describe(`console: a community site [${database}]`, () => {
    let t: TestApp;
    let ui: UiClient;
    let gina: Actor;
    /** The settings form as the page sends it: every allowlisted name, as shown. */
    let form: Record<string, string>;

    const readForm = (body: string): Record<string, string> => {
      const values: Record<string, string> = {};
      for (const [tag] of body.matchAll(/<input id="setting-[A-Z_]+"[^>]*>/g))
        values[/name="([A-Z_]+)"/.exec(tag)![1]!] = / value="([^"]*)"/.exec(tag)?.[1] ?? '';
      for (const [, name, options] of body.matchAll(
        /<select id="setting-[A-Z_]+" name="([A-Z_]+)"[^>]*>(.*?)<\/select>/g,
      ))
        values[name!] = /<option selected>([^<]*)</.exec(options!)?.[1] ?? '';
      return values;
    };
    const env = async () => await portal(t.app, gina, { method: 'GET', url: '/api/instances/club/env' });

    before(async () => {
      t = await buildTestApp({ database, env: { BLUME_RATE_LOGIN_PER_MINUTE: '100' } });
      gina = await signIn(t.app, 'gina');
      ui = new UiClient(t.app, PORTAL_HOST);
      await ui.login(gina.user.username, gina.password);
      await ui.get('/sites/new');
      assert.equal((await ui.post('/sites', { id: 'club', kind: 'community' })).statusCode, 303);
      // The Content API comes with the pro plan.
      await updateSite(t.app.deps.database.db, 'club', { plan: 'pro' });
      await t.app.services.epochs.announce();
    });
    after(() => t.close());

    it('links into the forum, its administration, the content editor and the help desk inbox', async () => {
      const page = await ui.get('/sites/club');
      for (const path of ['/', '/admin', '/admin/content', '/desk', '/support'])
        assert.match(page.body, new RegExp(`href="http://club\\.blume\\.test${path}"`));
      assert.match(pageText(page.body), /Every saved setting is applied/);
      form = readForm(page.body);
      assert.deepEqual(Object.keys(form).sort(), SETTING_NAMES, 'every allowlisted setting has an input');
    });

    it('saves typed settings with the secret kept out of the page, shows them pending and applies them at restart', async () => {
      const saved = await ui.post('/sites/club/settings', {
        ...form,
        FORUM_TITLE: 'The Club',
        REGISTRATION_OPEN: 'false',
        AI_API_KEY: 'sk-very-secret',
        MAIL_PORT: '2525',
      });
      assert.equal(saved.statusCode, 303);
      const page = await ui.get(String(saved.headers.location));
      assert.match(pageText(page.body), /The settings were saved/);
      assert.match(
        pageText(page.body),
        /Saved but not applied yet: AI_API_KEY added FORUM_TITLE added MAIL_PORT added REGISTRATION_OPEN added/,
      );
      assert.doesNotMatch(page.body, /sk-very-secret/);
      assert.match(page.body, /name="AI_API_KEY" type="password"[^>]*placeholder="set; type to replace"/);
      assert.equal((await env()).headers['x-settings-pending'], 'true');

      // Saving again with the secret's field empty keeps it.
      form = readForm(page.body);
      assert.equal(form.FORUM_TITLE, 'The Club');
      assert.equal(form.REGISTRATION_OPEN, 'false');
      assert.equal((await ui.post('/sites/club/settings', { ...form, FORUM_TITLE: 'The Club House' })).statusCode, 303);
      const row = await loadSettings(t.app.deps.database.db, 'club');
      assert.equal(openSetting(row.desired, 'AI_API_KEY', t.config.secretKey), 'sk-very-secret');

      const restarted = await ui.post('/sites/club/settings/restart', {});
      assert.equal(restarted.statusCode, 303);
      assert.match(
        pageText((await ui.get(String(restarted.headers.location))).body),
        /Restarted: 4 changes applied on every node/,
      );
      assert.equal((await env()).headers['x-settings-pending'], 'false');
      const forum = await t.app.inject({ method: 'GET', url: '/', headers: { host: communityHost('club') } });
      assert.match(forum.body, /The Club House/);
    });

    it('refuses a value that does not fit its type, or a form without its CSRF token, and saves nothing', async () => {
      const before = (await env()).json();
      const refused = await ui.post('/sites/club/settings', { ...form, API_CORS_ORIGINS: 'not an origin' });
      assert.equal(refused.statusCode, 422);
      assert.match(pageText(refused.body), /Nothing was saved: API_CORS_ORIGINS/);
      const forged = await ui.post('/sites/club/settings', { ...form, FORUM_TITLE: 'Forged' }, { csrf: false });
      assert.equal(forged.statusCode, 403);
      assert.deepEqual((await env()).json(), before);
    });

    it('removes a secret only when its box is ticked', async () => {
      const page = await ui.get('/sites/club');
      assert.equal(
        (await ui.post('/sites/club/settings', { ...readForm(page.body), 'clear:AI_API_KEY': '1' })).statusCode,
        303,
      );
      assert.equal((await env()).json<Record<string, string>>().AI_API_KEY, undefined);
    });

    it('mints an API key with the chosen scopes, shown once, and revokes it', async () => {
      await ui.get('/sites/club');
      const none = await ui.post('/sites/club/api-keys', { name: 'site' });
      assert.equal(none.statusCode, 422);
      assert.match(pageText(none.body), /Choose at least one scope/);
      const minted = await ui.post('/sites/club/api-keys', { name: 'website', 'scope:cms-read': '1' });
      assert.equal(minted.statusCode, 201);
      const key = /id="new-key" class="secret">([^<]+)</.exec(minted.body)![1]!;
      assert.match(pageText(minted.body), /API key (&quot;|")website(&quot;|") \(cms-read\) was minted/);
      assert.equal((await cmsApi(t.app, 'club', key, { method: 'GET', path: '/content-types' })).statusCode, 200);
      assert.equal(
        (
          await cmsApi(t.app, 'club', key, {
            method: 'POST',
            path: '/content-types',
            payload: { slug: 'books', name: 'Books', fields: [{ name: 'title', type: 'text' }] },
          })
        ).statusCode,
        403,
        'cms-read does not change the model',
      );
      const page = await ui.get('/sites/club');
      assert.doesNotMatch(page.body, new RegExp(key.split('.')[1]!));
      const id = /action="\/sites\/club\/api-keys\/([^/]+)\/revoke"/.exec(page.body)![1]!;
      assert.equal((await ui.post(`/sites/club/api-keys/${id}/revoke`, {})).statusCode, 303);
      assert.equal((await cmsApi(t.app, 'club', key, { method: 'GET', path: '/content-types' })).statusCode, 401);
    });

    it('keeps settings and API keys to community sites', async () => {
      await ui.get('/sites/new');
      await ui.post('/sites', { id: 'brochure', kind: 'static' });
      await ui.get('/sites/brochure');
      const refused = await ui.post('/sites/brochure/settings', { FORUM_TITLE: 'x' });
      assert.equal(refused.statusCode, 422);
      assert.match(pageText(refused.body), /instance settings and API keys belong to community sites/);
    });
  });
}
