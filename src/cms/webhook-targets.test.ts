// Webhook targets: by default a subscription to a private, loopback or link-local address is refused,
// and a delivery to a name that now resolves to one (DNS rebinding) reaches nothing.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { cmsApi, mintApiKey } from '../../test/factories/cms.js';
import { makeCommunity } from '../../test/factories/forum.js';
import { buildTestApp, json, signIn, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { createWebhook } from './webhooks.js';

for (const database of testDatabases) {
  describe(`Webhook targets with private targets refused [${database}]`, () => {
    let t: TestApp;
    let receiver: Server;
    let port: number;
    let hits = 0;
    let admin: string;
    let write: string;

    before(async () => {
      receiver = createServer((request, response) => {
        hits++;
        request.resume();
        response.writeHead(204).end();
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      port = (receiver.address() as AddressInfo).port;
      t = await buildTestApp({ database });
      const owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'blog');
      admin = await mintApiKey(t.app, owner, 'blog', ['admin']);
      write = await mintApiKey(t.app, owner, 'blog', ['cms-write']);
    });
    after(async () => {
      await t.close();
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    });

    const api = (key: string, method: string, path: string, payload?: object) =>
      cmsApi(t.app, 'blog', key, { method: method as 'GET', path, ...(payload ? { payload } : {}) });

    it('refuses subscriptions whose host is or resolves to a non-public address, and stores nothing', async () => {
      for (const url of [
        `http://127.0.0.1:${port}/hook`,
        `http://localhost:${port}/hook`,
        'http://[::1]/hook',
        'http://169.254.169.254/latest',
        'http://10.0.0.7/hook',
        'http://[::ffff:127.0.0.1]/hook',
        'http://[::127.0.0.1]/hook',
        'http://[::ffff:0:10.0.0.1]/hook',
        'http://[2002:a9fe:a9fe::1]/latest',
        'http://2130706433/hook',
        'http://0x7f.1/hook',
      ]) {
        const response = await api(admin, 'POST', '/webhooks', { url, events: ['entry.published'] });
        assert.equal(response.statusCode, 422, `${url}: ${response.body}`);
        assert.equal(json(response).code, 'webhook_target_refused', url);
      }
      assert.deepEqual(json(await api(admin, 'GET', '/webhooks')), []);
    });

    it('checks again at delivery: a name that now resolves to loopback reaches nothing', async () => {
      // As if `localhost` had resolved to a public address when the subscription was made.
      const { row } = await createWebhook(
        t.app.deps.database.db,
        'blog',
        t.config.secretKey,
        { url: `http://localhost:${port}/hook`, events: ['entry.published'] },
        true,
      );
      await api(write, 'POST', '/entries/articles', { slug: 'hello', status: 'published', data: { title: 'Hello' } });
      await t.app.cms.webhooks.idle();
      const [delivery] = json<Array<{ status: string; attempts: number; last_error: string }>>(
        await api(admin, 'GET', `/webhooks/${row.id}/deliveries`),
      );
      assert.equal(delivery!.attempts, 1);
      assert.equal(delivery!.status, 'pending');
      assert.match(delivery!.last_error, /private, loopback or link-local/);
      assert.equal(hits, 0);
    });
  });
}
