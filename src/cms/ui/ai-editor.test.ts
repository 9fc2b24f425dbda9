// AI drafting in the CMS editor over HTTP, on both databases, against the test provider: no prompt
// box until the site turns AI on; "Draft with AI" posts the form back with the drafted values filled
// in and nothing saved (the script's JSON answer carries the same values); a provider failure is
// shown beside the prompt with the typed values kept.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cmsApi, mintApiKey } from '../../../test/factories/cms.js';
import { communityHost, makeCommunity } from '../../../test/factories/forum.js';
import { buildTestApp, json, portal, signIn, type TestApp } from '../../../test/helpers/app.js';
import {
  aiSettings,
  AI_PROVIDER_ENV,
  startAiProvider,
  type AiProviderServer,
} from '../../../test/helpers/ai-provider.js';
import { testDatabases } from '../../../test/helpers/databases.js';
import { pageText, UiClient } from '../../../test/helpers/forum-ui.js';

for (const database of testDatabases) {
  describe(`CMS editor AI drafting [${database}]`, () => {
    let t: TestApp;
    let server: AiProviderServer;
    let admin: UiClient;
    let key: string;
    const host = communityHost('biz');

    before(async () => {
      server = await startAiProvider();
      t = await buildTestApp({ database, env: { ...AI_PROVIDER_ENV, BLUME_RATE_LOGIN_PER_MINUTE: '1000' } });
      const owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'biz', 'business');
      key = await mintApiKey(t.app, owner, 'biz', ['admin']);
      const type = await cmsApi(t.app, 'biz', key, {
        method: 'POST',
        path: '/content-types',
        payload: {
          slug: 'recipes',
          name: 'Recipes',
          fields: [
            { name: 'title', type: 'text', required: true },
            { name: 'method', type: 'markdown' },
            { name: 'minutes', type: 'number' },
            { name: 'course', type: 'enum', options: { values: ['starter', 'main'] } },
          ],
        },
      });
      assert.equal(type.statusCode, 201, type.body);
      admin = new UiClient(t.app, host);
      assert.equal((await admin.login('owner', owner.password)).statusCode, 303);
      const page = await admin.get('/admin/content/recipes/new');
      assert.doesNotMatch(page.body, /Draft with AI/, 'no prompt box while AI is off');
      const put = await portal(t.app, owner, {
        method: 'PUT',
        url: '/api/instances/biz/env',
        payload: {
          ...aiSettings(server, 'chef-1'),
        },
      });
      assert.equal(put.statusCode, 200, put.body);
      await portal(t.app, owner, { method: 'POST', url: '/api/instances/biz/restart' });
    });
    after(async () => {
      await t.close();
      await server.close();
    });

    const count = async () =>
      json<unknown[]>(await cmsApi(t.app, 'biz', key, { method: 'GET', path: '/entries/recipes?status=any' })).length;

    it('fills the form from the prompt without saving; the editor then saves', async () => {
      server.answer = '{"title":"Leek soup","method":"Melt **butter**.","minutes":30,"course":"starter"}';
      const form = await admin.get('/admin/content/recipes/new');
      assert.match(form.body, /Draft with AI/);
      const drafted = await admin.post('/admin/content/recipes/new', {
        ai_prompt: 'A winter soup',
        data_title: '',
        status: 'draft',
        action: 'ai',
      });
      assert.equal(drafted.statusCode, 200, drafted.body);
      assert.match(pageText(drafted.body), /AI filled 4 fields\. Review them, then Save: nothing is saved yet\./);
      assert.match(drafted.body, /name="data_title"[^>]*value="Leek soup"/);
      assert.match(drafted.body, /<textarea[^>]*name="data_method"[^>]*>Melt \*\*butter\*\*\.<\/textarea>/);
      assert.match(drafted.body, /value="starter" checked/);
      assert.match(drafted.body, /A winter soup<\/textarea>/, 'the prompt stays');
      assert.equal(await count(), 0, 'nothing saved');
      const sent = JSON.stringify(server.calls.at(-1)!.body);
      assert.match(sent, /A winter soup/);
      const saved = await admin.post('/admin/content/recipes/new', {
        data_title: 'Leek soup',
        data_method: 'Melt **butter**.',
        data_minutes: '30',
        data_course: 'starter',
        status: 'draft',
        action: 'save',
      });
      assert.equal(saved.statusCode, 303, saved.body);
      assert.equal(await count(), 1);
    });

    it('answers the script with the drafted values as the form names them', async () => {
      server.answer = '{"title":"Pea soup","minutes":20}';
      await admin.get('/admin/content/recipes/new');
      const answer = await admin.post('/admin/content/recipes/ai-draft', { ai_prompt: 'Green' });
      assert.equal(answer.statusCode, 200, answer.body);
      assert.deepEqual(json(answer), { values: { data_title: 'Pea soup', data_minutes: '20' }, filled: 2 });
      const empty = await admin.post('/admin/content/recipes/ai-draft', { ai_prompt: ' ' });
      assert.equal(empty.statusCode, 422);
      const noToken = await admin.post('/admin/content/recipes/ai-draft', { ai_prompt: 'x' }, { csrf: false });
      assert.equal(noToken.statusCode, 403);
    });

    it('shows a provider failure beside the prompt and keeps what was typed', async () => {
      await admin.get('/admin/content/recipes/new');
      const failed = await admin.post('/admin/content/recipes/new', {
        ai_prompt: 'scenario:overloaded please',
        data_title: 'Typed by hand',
        status: 'draft',
        action: 'ai',
      });
      assert.ok(failed.statusCode >= 500 && failed.statusCode < 600, String(failed.statusCode));
      assert.match(failed.body, /id="ai-prompt-error"/);
      assert.match(failed.body, /name="data_title"[^>]*value="Typed by hand"/);
      assert.doesNotMatch(failed.body, new RegExp(server.apiKey));
    });
  });
}
