// Owner settings on a platform (decision 0116): the AI provider, the help desk's inbound secrets and
// the site's SMTP server are changed by the site's owner only. Another admin of the community sees
// them without fields on /admin/settings; a post that carries one is refused and saves nothing, and
// saving the rest keeps them as the owner left them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addMember, communityHost, makeCommunity, type ForumActor } from '../../../../test/factories/forum.js';
import { buildTestApp, portal, signIn, type Actor, type TestApp } from '../../../../test/helpers/app.js';
import { testDatabases } from '../../../../test/helpers/databases.js';
import { UiClient } from '../../../../test/helpers/forum-ui.js';
import { loadSettings } from '../../../core/settings/service.js';

const OWNER_VALUES = {
  AI_PROVIDER: 'openai',
  AI_BASE_URL: 'https://models.example.com/v1',
  AI_MODEL: 'helper-1',
  AI_API_KEY: 'sk-owner-key-0123456789',
  HELPDESK_INBOUND_SECRET: 'owner-inbound-secret',
  MAIL_SERVER: 'smtp.example.com',
};

for (const database of testDatabases) {
  describe(`Owner settings on a platform [${database}]`, () => {
    let t: TestApp;
    let owner: Actor;
    let ann: ForumActor;

    before(async () => {
      t = await buildTestApp({ database, env: { BLUME_RATE_LOGIN_PER_MINUTE: '1000' } });
      owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'club', 'business');
      const put = await portal(t.app, owner, { method: 'PUT', url: '/api/instances/club/env', payload: OWNER_VALUES });
      assert.equal(put.statusCode, 200, put.body);
      ann = await addMember(t.app, 'club', 'ann', 'admin');
    });
    after(() => t.close());

    const desired = async () => (await loadSettings(t.app.deps.database.db, 'club')).desired;
    const adminAs = async (login: string, password: string) => {
      const client = new UiClient(t.app, communityHost('club'));
      assert.equal((await client.login(login, password)).statusCode, 303);
      return client;
    };

    it("shows another admin the owner's settings without fields", async () => {
      const client = await adminAs('ann', ann.password);
      const page = await client.get('/admin/settings');
      assert.equal(page.statusCode, 200);
      for (const name of ['AI_BASE_URL', 'AI_API_KEY', 'AI_PROVIDER', 'HELPDESK_INBOUND_SECRET', 'MAIL_SERVER'])
        assert.doesNotMatch(page.body, new RegExp(`name="${name}"`), name);
      assert.match(page.body, /name="FORUM_TITLE"/);
      assert.match(page.body, /https:\/\/models\.example\.com\/v1/);
      assert.doesNotMatch(page.body, /owner-inbound-secret|sk-owner-key/);
    });

    it('refuses a post that carries one, and saves nothing', async () => {
      const before = await desired();
      const client = await adminAs('ann', ann.password);
      await client.get('/admin/settings');
      const attempts: Array<Record<string, string>> = [
        { FORUM_TITLE: 'Club', AI_BASE_URL: 'http://attacker.example/v1' },
        { FORUM_TITLE: 'Club', HELPDESK_INBOUND_SECRET: 'known-to-ann' },
        { FORUM_TITLE: 'Club', clear_AI_API_KEY: 'on' },
      ];
      for (const fields of attempts) {
        const refused = await client.post('/admin/settings', fields);
        assert.equal(refused.statusCode, 403, JSON.stringify(fields));
      }
      assert.deepEqual(await desired(), before);
    });

    it('keeps them as the owner left them when another admin saves the rest', async () => {
      const before = await desired();
      const client = await adminAs('ann', ann.password);
      await client.get('/admin/settings');
      assert.equal((await client.post('/admin/settings', { FORUM_TITLE: 'The club' })).statusCode, 303);
      const after = await desired();
      assert.equal(after.FORUM_TITLE, 'The club');
      for (const name of Object.keys(OWNER_VALUES).filter((name) => name !== 'AI_MODEL'))
        assert.equal(after[name], before[name], name);
    });

    it("lets the owner's own member change them", async () => {
      const client = await adminAs(owner.user.username, owner.password);
      const page = await client.get('/admin/settings');
      assert.match(page.body, /name="AI_BASE_URL"/);
      const saved = await client.post('/admin/settings', {
        FORUM_TITLE: 'The club',
        AI_PROVIDER: 'openai',
        AI_BASE_URL: 'https://other-models.example.com/v1',
        AI_MODEL: 'helper-2',
        MAIL_SERVER: 'smtp.example.com',
      });
      assert.equal(saved.statusCode, 303);
      const after = await desired();
      assert.equal(after.AI_BASE_URL, 'https://other-models.example.com/v1');
      assert.ok(after.AI_API_KEY && after.HELPDESK_INBOUND_SECRET, 'untouched secrets are kept');
    });
  });
}
