// "Apply and restart" on the admin page converges every node: settings saved and applied on one
// node are what the other node's next Forum API request obeys (anonymous reads and CORS).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { communityHost, forumApi, makeCommunity } from '../../../../test/factories/forum.js';
import { buildTwoNodes, caughtUp, signIn, type TestApp } from '../../../../test/helpers/app.js';
import { testDatabases } from '../../../../test/helpers/databases.js';
import { UiClient } from '../../../../test/helpers/forum-ui.js';

const redis = Boolean(process.env.TEST_REDIS_URL);

for (const database of testDatabases) {
  describe(
    `admin settings on two nodes [${database}]`,
    { skip: redis ? false : 'cross-node invalidation needs TEST_REDIS_URL' },
    () => {
      let close: () => Promise<void>;
      let a: TestApp;
      let b: TestApp;
      let admin: UiClient;
      const origin = 'https://app.example.com';
      const guestRead = () =>
        forumApi(b.app, 'club', undefined, { method: 'GET', path: '/forums', headers: { origin } });

      before(async () => {
        ({ a, b, close } = await buildTwoNodes(database));
        const owner = await signIn(a.app, 'owner');
        await makeCommunity(a.app, owner, 'club');
        admin = new UiClient(a.app, communityHost('club'));
        assert.equal((await admin.login('owner', owner.password)).statusCode, 303);
      });
      after(async () => {
        await close();
      });

      it('applies saved settings on the other node at its next request', async () => {
        assert.equal((await guestRead()).statusCode, 401);
        await admin.get('/admin/settings');
        assert.equal(
          (await admin.post('/admin/settings', { FORUM_API_PUBLIC_READ: 'true', API_CORS_ORIGINS: origin })).statusCode,
          303,
        );
        assert.equal((await guestRead()).statusCode, 401, 'saved is not applied');
        assert.equal((await admin.post('/admin/settings/restart', {})).statusCode, 303);
        // Node B is told before the restart answers; here, in one process, let it read the message
        // before the request (its CORS hook and its access check would otherwise straddle it).
        await caughtUp(b.cache);
        const read = await guestRead();
        assert.equal(read.statusCode, 200, read.body);
        assert.equal(read.headers['access-control-allow-origin'], origin);
      });
    },
  );
}
