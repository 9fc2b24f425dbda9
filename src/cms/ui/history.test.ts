// An entry's history and shared preview in the CMS editor over HTTP, on both databases: saves in the
// form are revisions named by the member, the history shows each change by label (before, after),
// a restore saves an old revision as the newest and refuses a stale page; a preview link opens the
// draft without signing in, out of search engines, and nothing once tampered with or expired.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cmsApi, mintApiKey } from '../../../test/factories/cms.js';
import { communityHost, makeCommunity } from '../../../test/factories/forum.js';
import { buildTestApp, json, signIn, type TestApp } from '../../../test/helpers/app.js';
import { testDatabases } from '../../../test/helpers/databases.js';
import { pageText, UiClient } from '../../../test/helpers/forum-ui.js';
import { previewPath } from '../preview-links.js';
import type { EntryOut } from '../schemas.js';

for (const database of testDatabases) {
  describe(`CMS editor history and preview links [${database}]`, () => {
    let t: TestApp;
    let admin: UiClient;
    let entry: EntryOut;
    const host = communityHost('club');

    before(async () => {
      t = await buildTestApp({ database, env: { BLUME_RATE_LOGIN_PER_MINUTE: '1000' } });
      const owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'club');
      const key = await mintApiKey(t.app, owner, 'club', ['admin']);
      const type = await cmsApi(t.app, 'club', key, {
        method: 'POST',
        path: '/content-types',
        payload: {
          slug: 'films',
          name: 'Films',
          fields: [
            { name: 'title', type: 'text', required: true },
            { name: 'released_on', type: 'datetime' },
            { name: 'review', type: 'markdown' },
          ],
        },
      });
      assert.equal(type.statusCode, 201, type.body);
      admin = new UiClient(t.app, host);
      assert.equal((await admin.login('owner', owner.password)).statusCode, 303);
      const created = await admin.submit('/admin/content/films/new', '/admin/content/films/new', {
        data_title: 'Alien',
        data_review: 'Scary *ship*.',
        status: 'draft',
        action: 'save',
      });
      assert.equal(created.statusCode, 303, created.body);
      const id = String(created.headers.location).split('/')[4]!.split('?')[0]!;
      entry = json<EntryOut>(
        await cmsApi(t.app, 'club', key, { method: 'GET', path: `/entries/films/${id}?status=any` }),
      );
      const page = await admin.get(`/admin/content/films/${id}`);
      const version = /name="version" value="([^"]+)"/.exec(page.body)![1]!.replaceAll('&quot;', '"');
      const saved = await admin.post(`/admin/content/films/${id}`, {
        version,
        data_title: 'Aliens',
        data_released_on: '1986-07-18T00:00',
        data_review: 'Scary *ship*.',
        status: 'draft',
        action: 'save',
      });
      assert.equal(saved.statusCode, 303, saved.body);
    });
    after(() => t.close());

    it('shows each revision with its author and the changed fields by label, before and after', async () => {
      const form = await admin.get(`/admin/content/films/${entry.id}`);
      assert.match(form.body, new RegExp(`href="/admin/content/films/${entry.id}/revisions"`));
      const history = await admin.get(`/admin/content/films/${entry.id}/revisions`);
      assert.equal(history.statusCode, 200);
      const text = pageText(history.body);
      assert.match(text, /Revision 2 \(current\) Saved by owner/);
      assert.match(text, /Title Alien Aliens/);
      assert.match(text, /Released on \(empty\) 1986-07-18T00:00:00\.000Z/);
      assert.doesNotMatch(text, /Review Scary/, 'an unchanged field is not listed');
      assert.match(text, /Revision 1 Saved by owner, .* The oldest revision kept/);
      assert.match(history.body, /Restore revision 1/);
      assert.doesNotMatch(history.body, /Restore revision 2/, 'the current revision has nothing to restore');
    });

    it('restores a revision as a new one, and refuses a restore from a stale page', async () => {
      await admin.get(`/admin/content/films/${entry.id}/revisions`);
      const etag = /name="version" value="([^"]+)"/.exec(
        (await admin.get(`/admin/content/films/${entry.id}/revisions`)).body,
      )![1]!;
      const stale = await admin.post(`/admin/content/films/${entry.id}/revisions/1/restore`, {
        version: `"${entry.id}.1"`,
      });
      assert.equal(stale.statusCode, 412);
      assert.match(pageText(stale.body), /Someone saved this entry since the history was shown/);
      const restored = await admin.post(`/admin/content/films/${entry.id}/revisions/1/restore`, {
        version: etag.replaceAll('&quot;', '"'),
      });
      assert.equal(restored.statusCode, 303, restored.body);
      assert.equal(restored.headers.location, `/admin/content/films/${entry.id}?restored=1`);
      const form = await admin.get(String(restored.headers.location));
      assert.match(pageText(form.body), /Restored revision 1 as a new revision/);
      assert.match(form.body, /name="data_title"[^>]*value="Alien"/);
      const history = pageText((await admin.get(`/admin/content/films/${entry.id}/revisions`)).body);
      assert.match(history, /Revision 3 \(current\) Saved by owner, .* restored revision 1 .*Title Aliens Alien/);
    });

    it('makes a preview link that opens the draft without signing in, marked noindex', async () => {
      await admin.get(`/admin/content/films/${entry.id}`);
      const made = await admin.post(`/admin/content/films/${entry.id}/share`, { hours: '1' });
      assert.equal(made.statusCode, 200, made.body);
      const url = /id="preview-link" readonly value="([^"]+)"/.exec(made.body)![1]!.replaceAll('&amp;', '&');
      assert.match(url, new RegExp(`^http://${host}/preview/films/${entry.id}\\?expires=\\d+&sig=[\\w-]{43}$`));
      const path = url.slice(`http://${host}`.length);
      const guest = new UiClient(t.app, host);
      const opened = await guest.get(path);
      assert.equal(opened.statusCode, 200, opened.body);
      assert.equal(opened.headers['x-robots-tag'], 'noindex, nofollow');
      assert.equal(opened.headers['cache-control'], 'no-store');
      assert.match(opened.body, /<meta name="robots" content="noindex, nofollow">/);
      assert.match(
        pageText(opened.body),
        /Preview of a draft Films entry, read-only\..* Alien Title Alien .*Review Scary ship \./,
      );
      assert.match(opened.body, /<em>ship<\/em>/, 'Markdown as the site serves it');
      const tampered = await guest.get(path.replace(/sig=./, (m) => (m.endsWith('A') ? 'sig=B' : 'sig=A')));
      assert.equal(tampered.statusCode, 404);
      assert.equal(tampered.headers['x-robots-tag'], 'noindex, nofollow');
      const otherEntry = await guest.get(path.replace(entry.id, 'x'.repeat(entry.id.length)));
      assert.equal(otherEntry.statusCode, 404, 'a link names its one entry');
      const past = new Date(Date.now() - 1000);
      const expired = await guest.get(previewPath(t.config.secretKey, 'club', 'films', entry.id, past));
      assert.equal(expired.statusCode, 404);
      assert.match(pageText(expired.body), /wrong or has expired/);
      const signedElsewhere = await guest.get(
        previewPath('another-secret-key-of-32-characters!', 'club', 'films', entry.id, new Date(Date.now() + 60_000)),
      );
      assert.equal(signedElsewhere.statusCode, 404, 'rotating SECRET_KEY revokes every link');
    });
  });
}
