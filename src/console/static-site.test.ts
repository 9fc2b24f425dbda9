// A static site run from the console without JavaScript, as a browser posts its forms: upload a folder,
// preview it with the password the page reveals, promote and roll back after confirmations naming the
// release, stage and unstage, mint and revoke deploy tokens, connect a repository, build Markdown and
// follow its log. Every refusal (no CSRF token, a stale confirmation, a preview-only release, a
// suspended site) is shown in words and changes nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { updateSite } from '../core/sites/service.js';
import { siteArchive, tarball } from '../../test/helpers/archives.js';
import { buildTestApp, signIn, PORTAL_HOST, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { basicAuth, deployApi, edge } from '../../test/helpers/deploy.js';
import { pageText, UiClient } from '../../test/helpers/forum-ui.js';
import { releases } from '../deploy/tables.js';
import { eq } from 'drizzle-orm';

interface Overview {
  releases: { id: string; promotable: boolean }[];
  aliases: { live: string | null; stage: string | null; auth: string };
}

for (const database of testDatabases) {
  describe(`console: a static site [${database}]`, () => {
    let t: TestApp;
    let ui: UiClient;

    /** Uploads a folder the way a folder picker sends it: one part per file, named by its path. */
    const uploadFolder = async (files: Record<string, string>, mode = 'files') => {
      await ui.get('/sites/shop');
      return ui.postMultipart('/sites/shop/upload', [
        { name: 'mode', value: mode },
        ...Object.entries(files).map(([filename, content]) => ({ name: 'files', filename, content })),
      ]);
    };
    const releaseOf = (response: { headers: Record<string, unknown> }) =>
      /release=([a-z0-9]+)/.exec(String(response.headers.location))?.[1];
    /** The deploy API's view, through a token minted in the console. */
    let token: string;
    const overview = async () => (await deployApi(t.app, token, 'GET', '/api/deploy/shop/releases')).json() as Overview;

    before(async () => {
      t = await buildTestApp({ database, env: { BLUME_RATE_LOGIN_PER_MINUTE: '100' } });
      const dana = await signIn(t.app, 'dana');
      ui = new UiClient(t.app, PORTAL_HOST);
      assert.equal((await ui.login(dana.user.username, dana.password)).statusCode, 303);
      await ui.get('/sites/new');
      assert.equal((await ui.post('/sites', { id: 'shop', kind: 'static' })).statusCode, 303);
    });
    after(() => t.close());

    it('mints a deploy token shown once, lists it with its last use and revokes it', async () => {
      const page = await ui.get('/sites/shop');
      assert.match(pageText(page.body), /No deploy tokens/);
      const minted = await ui.post('/sites/shop/tokens', { name: 'ci' });
      assert.equal(minted.statusCode, 201);
      token = /id="new-token" class="secret">(dpl_[^<]+)</.exec(minted.body)![1]!;
      assert.match(pageText(minted.body), /Copy it now: it is not shown again/);
      assert.equal((await deployApi(t.app, token, 'GET', '/api/deploy/token')).statusCode, 200);
      let again = await ui.get('/sites/shop');
      assert.doesNotMatch(again.body, new RegExp(token.split('.')[1]!), 'the secret is shown only once');
      const lastUse = (name: string) =>
        new RegExp(`<td>${name}</td><td><time[^>]*>[^<]*</time></td><td>(never|<time)`).exec(again.body)?.[1];
      const spare = /id="new-token" class="secret">(dpl_[^<]+)</.exec(
        (await ui.post('/sites/shop/tokens', { name: 'spare' })).body,
      )![1]!;
      again = await ui.get('/sites/shop');
      assert.equal(lastUse('ci'), '<time', 'the token was used, so its last use shows');
      assert.equal(lastUse('spare'), 'never');
      const spareId = spare.slice(4, spare.indexOf('.'));
      const revoked = await ui.post(`/sites/shop/tokens/${spareId}/revoke`, {});
      assert.equal(revoked.statusCode, 303);
      assert.equal((await deployApi(t.app, spare, 'GET', '/api/deploy/token')).statusCode, 401);
      assert.match(pageText((await ui.get(String(revoked.headers.location))).body), /was revoked/);
      assert.equal((await ui.post('/sites/shop/tokens', { name: '  ' })).statusCode, 422);
    });

    it('refuses an upload without its CSRF token, or with a path leaving the folder, and keeps nothing', async () => {
      const forged = await ui.postMultipart(
        '/sites/shop/upload',
        [{ name: 'files', filename: 'site/index.html', content: '<h1>forged</h1>' }],
        { csrf: false },
      );
      assert.equal(forged.statusCode, 403);
      const traversal = await uploadFolder({ 'site/index.html': 'x', 'site/../../etc/passwd': 'y' });
      assert.equal(traversal.statusCode, 422);
      assert.match(pageText(traversal.body), /Nothing was uploaded: The path .* contains a .*\.\..* segment/);
      assert.equal((await overview()).releases.length, 0);
      assert.deepEqual(await t.app.deps.database.db.select().from(releases).where(eq(releases.siteId, 'shop')), []);
    });

    it('uploads a folder as a release, reveals the preview password on demand and promotes after a confirmation', async () => {
      const uploaded = await uploadFolder({
        'site/index.html': '<h1>one</h1>',
        'site/about/index.html': '<h1>about</h1>',
      });
      assert.equal(uploaded.statusCode, 303, uploaded.body);
      const first = releaseOf(uploaded)!;
      const page = await ui.get(String(uploaded.headers.location));
      assert.match(pageText(page.body), new RegExp(`Release ${first} was uploaded`));
      assert.match(page.body, new RegExp(`href="http://r-${first}--shop\\.[^"]+"`), 'the release links its preview');
      const { aliases } = await overview();
      assert.doesNotMatch(page.body, new RegExp(aliases.auth), 'the password stays hidden until asked for');
      const shown = await ui.get('/sites/shop?password=show');
      assert.match(shown.body, new RegExp(`id="preview-password">${aliases.auth}<`));
      const preview = await edge(t.app, `r-${first}--shop.blume.test`, '/about/', {
        authorization: basicAuth(aliases.auth),
      });
      assert.equal(preview.body, '<h1>about</h1>', 'the lone top folder is the site root');

      const confirm = await ui.get(`/sites/shop/releases/${first}/promote`);
      assert.match(pageText(confirm.body), new RegExp(`Promote ${first}\\?`));
      assert.match(pageText(confirm.body), new RegExp(`Release ${first} becomes live`));
      const promoted = await ui.post(`/sites/shop/releases/${first}/promote`, { live: 'none' });
      assert.equal(promoted.statusCode, 303);
      assert.equal((await overview()).aliases.live, first);
      assert.equal((await edge(t.app, 'shop.blume.test', '/')).body, '<h1>one</h1>');
      assert.match(
        pageText((await ui.get(String(promoted.headers.location))).body),
        new RegExp(`Release ${first} is live`),
      );
      const list = await ui.get('/');
      assert.match(
        list.body,
        new RegExp(
          `<a href="/sites/shop">shop</a></td><td>static</td><td>free</td><td><code>${first}</code></td><td><time`,
        ),
        'the sites list shows the live release and the last deploy',
      );
    });

    it('refuses a promote confirmed against another live release, and rolls back to the release before', async () => {
      const first = (await overview()).aliases.live!;
      const second = releaseOf(await uploadFolder({ 'index.html': '<h1>two</h1>' }))!;
      await ui.get(`/sites/shop/releases/${second}/promote`);
      // Someone else promotes meanwhile: the page confirmed against `first` no longer holds.
      const third = releaseOf(await uploadFolder({ 'index.html': '<h1>three</h1>' }))!;
      assert.equal(
        (await deployApi(t.app, token, 'POST', '/api/deploy/shop/promote', { release: third })).statusCode,
        200,
      );
      const stale = await ui.post(`/sites/shop/releases/${second}/promote`, { live: first });
      assert.equal(stale.statusCode, 412);
      assert.match(pageText(stale.body), /Nothing changed: The live release is now/);
      assert.equal((await overview()).aliases.live, third);

      const confirm = await ui.get('/sites/shop/rollback');
      assert.match(pageText(confirm.body), new RegExp(`Roll back to ${first}\\?`));
      const rolled = await ui.post('/sites/shop/rollback', { live: third });
      assert.equal(rolled.statusCode, 303);
      assert.equal((await overview()).aliases.live, first);
      assert.equal((await edge(t.app, 'shop.blume.test', '/')).body, '<h1>one</h1>');
      assert.match(
        pageText((await ui.get(String(rolled.headers.location))).body),
        new RegExp(`release ${first} is live again`),
      );
    });

    it('stages and unstages a release after confirmations', async () => {
      const { releases: list } = await overview();
      const target = list[0]!.id;
      assert.match(
        pageText((await ui.get(`/sites/shop/releases/${target}/stage`)).body),
        new RegExp(`Stage ${target}\\?`),
      );
      assert.equal((await ui.post(`/sites/shop/releases/${target}/stage`, {})).statusCode, 303);
      assert.equal((await overview()).aliases.stage, target);
      assert.match(pageText((await ui.get('/sites/shop/unstage')).body), new RegExp(`Unstage ${target}\\?`));
      assert.equal((await ui.post('/sites/shop/unstage', {})).statusCode, 303);
      assert.equal((await overview()).aliases.stage, null);
    });

    it('refuses to promote a preview-only release and changes nothing', async () => {
      const preview = releaseOf(await uploadFolder({ 'index.html': '<h1>branch</h1>' }))!;
      await t.app.deps.database.db.update(releases).set({ promotable: false }).where(eq(releases.id, preview));
      const page = await ui.get('/sites/shop');
      assert.doesNotMatch(page.body, new RegExp(`/releases/${preview}/promote`), 'no promote action is offered');
      const live = (await overview()).aliases.live;
      const refused = await ui.post(`/sites/shop/releases/${preview}/promote`, { live: live ?? 'none' });
      assert.equal(refused.statusCode, 409);
      assert.match(pageText(refused.body), /Nothing changed: .*preview-only/);
      assert.equal((await overview()).aliases.live, live);
    });

    it('connects a repository with its webhook secret shown once, and refuses a malformed one', async () => {
      const bad = await ui.post('/sites/shop/repository', {
        repository: 'not a repo',
        branch: 'main',
        path: '',
        kind: 'static',
      });
      assert.equal(bad.statusCode, 400);
      assert.match(pageText(bad.body), /The repository was not connected: The repository must be written owner\/name/);
      assert.equal((await deployApi(t.app, token, 'GET', '/api/deploy/shop/github')).statusCode, 404);
      const connected = await ui.post('/sites/shop/repository', {
        repository: 'dana/shop',
        branch: 'main',
        path: 'public',
        kind: 'static',
      });
      assert.equal(connected.statusCode, 201);
      assert.match(connected.body, /id="webhook-secret" class="secret">[0-9a-f]{64}</);
      assert.match(pageText(connected.body), /\/api\/deploy\/shop\/github\/webhook/);
      assert.equal(
        ((await deployApi(t.app, token, 'GET', '/api/deploy/shop/github')).json() as { repository: string }).repository,
        'dana/shop',
      );
      assert.equal((await ui.post('/sites/shop/repository/disconnect', {})).statusCode, 303);
      assert.equal((await deployApi(t.app, token, 'GET', '/api/deploy/shop/github')).statusCode, 404);
    });

    it('builds uploaded Markdown and shows the build with its log, following it while it runs', async () => {
      const queued = await uploadFolder(
        { 'docs/index.md': '# Handbook\n\nHello.\n', 'docs/guide.md': '# Guide\n' },
        'markdown',
      );
      assert.equal(queued.statusCode, 303, queued.body);
      const buildUrl = String(queued.headers.location);
      assert.match(buildUrl, /^\/sites\/shop\/builds\/[a-z0-9]{16}$/);
      const waiting = await ui.get(buildUrl);
      assert.match(waiting.body, /<meta http-equiv="refresh" content="2">/);
      await t.app.deploy.builds.runNext();
      const done = await ui.get(buildUrl);
      assert.match(pageText(done.body), /State: succeeded/);
      assert.doesNotMatch(done.body, /http-equiv="refresh"/);
      assert.match(done.body, /found 2 Markdown files/);
      assert.match(pageText((await ui.get('/sites/shop')).body), /succeeded upload/);

      const archive = await tarball([{ name: 'index.md', content: '# From a tar\n' }]);
      await ui.get('/sites/shop');
      const fromTar = await ui.postMultipart('/sites/shop/upload', [
        { name: 'mode', value: 'markdown' },
        { name: 'files', filename: 'docs.tar', content: archive },
      ]);
      assert.equal(fromTar.statusCode, 303, fromTar.body);
      assert.match(String(fromTar.headers.location), /\/builds\//);
    });

    it('takes a tar.gz archive as the release', async () => {
      await ui.get('/sites/shop');
      const response = await ui.postMultipart('/sites/shop/upload', [
        { name: 'mode', value: 'files' },
        { name: 'files', filename: 'site.tar.gz', content: await siteArchive({ 'index.html': '<h1>tarred</h1>' }) },
      ]);
      assert.equal(response.statusCode, 303, response.body);
      const release = releaseOf(response)!;
      const { aliases } = await overview();
      assert.equal(
        (await edge(t.app, `r-${release}--shop.blume.test`, '/', { authorization: basicAuth(aliases.auth) })).body,
        '<h1>tarred</h1>',
      );
    });

    it('answers a suspended site with 503 in words and takes no upload', async () => {
      const db = t.app.deps.database.db;
      const count = async () => (await db.select().from(releases).where(eq(releases.siteId, 'shop'))).length;
      const before = await count();
      await ui.get('/sites/shop');
      await updateSite(db, 'shop', { status: 'suspended' });
      await t.app.services.epochs.announce();
      const refused = await ui.postMultipart('/sites/shop/upload', [
        { name: 'mode', value: 'files' },
        { name: 'files', filename: 'index.html', content: 'x' },
      ]);
      assert.equal(refused.statusCode, 503);
      assert.match(pageText(refused.body), /suspended; it takes no deploys/);
      await updateSite(db, 'shop', { status: 'active' });
      await t.app.services.epochs.announce();
      assert.equal(await count(), before);
    });
  });
}
