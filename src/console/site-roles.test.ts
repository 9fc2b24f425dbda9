// A site's console page shows each member of its team what their role lets them do, on both
// databases: a viewer reads releases and builds (previews too) with no deploy, share, token or
// repository forms and no danger zone; a developer gets those forms but not the danger zone; on a
// community site only owners see the settings and API keys. The forms' routes refuse the weaker
// roles whatever the page shows (src/portal/team.test.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { siteMembers } from '../core/sites/tables.js';
import { buildTestApp, signIn, PORTAL_HOST, type Actor, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { pageText, UiClient } from '../../test/helpers/forum-ui.js';

for (const database of testDatabases) {
  describe(`console site page by role [${database}]`, () => {
    let t: TestApp;
    const people: Record<string, Actor> = {};

    const consoleAs = async (name: string): Promise<UiClient> => {
      const ui = new UiClient(t.app, PORTAL_HOST);
      assert.equal((await ui.login(people[name]!.user.username, people[name]!.password)).statusCode, 303);
      return ui;
    };

    before(async () => {
      t = await buildTestApp({ database, env: { BLUME_RATE_LOGIN_PER_MINUTE: '100' } });
      for (const name of ['olive', 'dev', 'vic']) people[name] = await signIn(t.app, name);
      const owner = await consoleAs('olive');
      await owner.get('/sites/new');
      assert.equal((await owner.post('/sites', { id: 'atlas', kind: 'static' })).statusCode, 303);
      await owner.get('/sites/new');
      assert.equal((await owner.post('/sites', { id: 'club', kind: 'community' })).statusCode, 303);
      await owner.get('/sites/atlas');
      const uploaded = await owner.postMultipart('/sites/atlas/upload', [
        { name: 'mode', value: 'files' },
        { name: 'files', filename: 'index.html', content: '<h1>Atlas</h1>' },
      ]);
      assert.equal(uploaded.statusCode, 303, uploaded.body);
      await t.app.deps.database.db.insert(siteMembers).values([
        { siteId: 'atlas', userId: people.dev!.user.id, role: 'developer' },
        { siteId: 'atlas', userId: people.vic!.user.id, role: 'viewer' },
        { siteId: 'club', userId: people.dev!.user.id, role: 'developer' },
      ]);
    });
    after(() => t.close());

    it('shows a viewer the releases and builds, and no form that changes the site', async () => {
      const page = await (await consoleAs('vic')).get('/sites/atlas');
      assert.equal(page.statusCode, 200);
      const text = pageText(page.body);
      assert.match(text, /Releases/);
      assert.match(text, /Builds/);
      assert.match(page.body, /<a href="[^"]+">Preview<span class="sr-only">/);
      for (const absent of [
        'action="/sites/atlas/upload"',
        'action="/sites/atlas/tokens"',
        'action="/sites/atlas/repository"',
        'action="/sites/atlas/preview-links"',
        'action="/sites/atlas/preview-password"',
        'action="/sites/atlas/delete"',
        '/promote"',
        '/stage"',
        'Danger zone',
      ])
        assert.ok(!page.body.includes(absent), `a viewer's page has no ${absent}`);
    });

    it('lets a developer change the preview password, and refuses a viewer', async () => {
      const viewer = await consoleAs('vic');
      await viewer.get('/sites/atlas');
      assert.equal((await viewer.post('/sites/atlas/preview-password', {})).statusCode, 403);
      const developer = await consoleAs('dev');
      const before = await developer.get('/sites/atlas?password=show');
      const changed = await developer.post('/sites/atlas/preview-password', {});
      assert.equal(changed.statusCode, 303);
      assert.equal(changed.headers.location, '/sites/atlas?done=preview-password&password=show#releases-h');
      const after = await developer.get('/sites/atlas?done=preview-password&password=show');
      const password = (body: string) => /id="preview-password">([A-Za-z0-9]+)</.exec(body)?.[1];
      assert.ok(password(before.body) && password(after.body));
      assert.notEqual(password(after.body), password(before.body));
      assert.match(pageText(after.body), /The preview password changed/);
    });

    it('gives a developer the deploy forms but not the danger zone', async () => {
      const page = await (await consoleAs('dev')).get('/sites/atlas');
      for (const present of [
        'action="/sites/atlas/upload"',
        'action="/sites/atlas/tokens"',
        'action="/sites/atlas/repository"',
        'action="/sites/atlas/preview-links"',
        'action="/sites/atlas/preview-password"',
        '/promote"',
      ])
        assert.ok(page.body.includes(present), `a developer's page has ${present}`);
      assert.ok(!page.body.includes('action="/sites/atlas/delete"'));
      const owner = await (await consoleAs('olive')).get('/sites/atlas');
      assert.ok(owner.body.includes('action="/sites/atlas/delete"'), "the owner's page has the danger zone");
    });

    it("keeps a community site's settings and API keys for its owners", async () => {
      const page = await (await consoleAs('dev')).get('/sites/club');
      assert.equal(page.statusCode, 200);
      assert.match(pageText(page.body), /The settings and API keys are for the site's owners\./);
      assert.ok(!page.body.includes('action="/sites/club/settings"'));
      assert.ok(!page.body.includes('action="/sites/club/api-keys"'));
      const owner = await (await consoleAs('olive')).get('/sites/club');
      assert.ok(owner.body.includes('action="/sites/club/settings"'));
    });
  });
}
