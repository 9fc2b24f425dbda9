// Webhooks out end to end: a local receiver gets signed entry events after the writes that cause
// them commit; a failed delivery stays queued on the job runner and is retried; admins read the log.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../db/client.js';
import { cmsApi, mintApiKey } from '../../test/factories/cms.js';
import { makeCommunity } from '../../test/factories/forum.js';
import { buildTestApp, json, signIn, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

for (const database of testDatabases) {
  describe(`Content API webhooks [${database}]`, () => {
    let t: TestApp;
    let receiver: Server;
    let url: string;
    const received: Received[] = [];
    let failNext = 0;
    let admin: string;
    let write: string;
    let secret: string;
    let hookId: string;

    before(async () => {
      receiver = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
          if (failNext > 0) {
            failNext--;
            response.writeHead(500).end('down');
          } else response.writeHead(204).end();
        });
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/blume`;
      // The receiver listens on loopback: the instance allows private targets (decision 0047).
      t = await buildTestApp({ database, env: { BLUME_WEBHOOKS_ALLOW_PRIVATE: 'True' } });
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
    const settle = () => t.app.cms.webhooks.idle();
    const events = () =>
      received.map(
        (r) =>
          `${String(r.headers['x-blume-event'])}:${(JSON.parse(r.body) as { entry: { slug: string } }).entry.slug}`,
      );

    it('subscribes a URL as admin and shows the secret once', async () => {
      assert.equal((await api(write, 'POST', '/webhooks', { url, events: ['entry.published'] })).statusCode, 403);
      assert.equal(
        json(await api(admin, 'POST', '/webhooks', { url: 'ftp://x', events: ['entry.published'] })).code,
        'validation_failed',
      );
      const created = await api(admin, 'POST', '/webhooks', {
        url,
        events: ['entry.published', 'entry.updated', 'entry.deleted'],
      });
      assert.equal(created.statusCode, 201, created.body);
      ({ id: hookId, secret } = json<{ id: string; secret: string }>(created));
      assert.match(secret, /^whsec_/);
      assert.doesNotMatch((await api(admin, 'GET', '/webhooks')).body, new RegExp(secret));
    });

    it('fires a signed entry.published after a publish commits; drafts stay private', async () => {
      await api(write, 'POST', '/entries/articles', { slug: 'draft', data: { title: 'Draft' } });
      await api(write, 'POST', '/entries/articles', { slug: 'hello', status: 'published', data: { title: 'Hello' } });
      await settle();
      assert.deepEqual(events(), ['entry.published:hello']);
      const [delivery] = received;
      const signature = String(delivery!.headers['x-blume-signature']);
      const [, timestamp, digest] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(signature)!;
      assert.equal(digest, createHmac('sha256', secret).update(`${timestamp}.${delivery!.body}`).digest('hex'));
      const payload = JSON.parse(delivery!.body) as {
        event: string;
        site: string;
        type: string;
        entry: { data: { title: string }; status: string };
      };
      assert.deepEqual(
        [payload.event, payload.site, payload.type, payload.entry.status, payload.entry.data.title],
        ['entry.published', 'blog', 'articles', 'published', 'Hello'],
      );
      assert.equal(delivery!.headers['x-blume-delivery'], (payload as unknown as { id: string }).id);
    });

    it('fires entry.published when a draft is published, entry.updated and entry.deleted after', async () => {
      const draft = await api(write, 'GET', '/entries/articles/draft?status=any');
      const id = json<{ id: string }>(draft).id;
      await api(write, 'PUT', `/entries/articles/${id}`, { data: { title: 'Draft edited' } });
      await api(write, 'PUT', `/entries/articles/${id}`, { status: 'published', data: { title: 'Now live' } });
      await api(write, 'PUT', `/entries/articles/${id}`, { data: { title: 'Live, edited' } });
      await api(write, 'DELETE', `/entries/articles/${id}`);
      await settle();
      // Two deliveries run at once, so arrival order is not promised; receivers order by `created_at`.
      assert.deepEqual(events().slice(1).sort(), [
        'entry.deleted:draft',
        'entry.published:draft',
        'entry.updated:draft',
      ]);
    });

    it('holds a scheduled publish back until the entry goes live', async () => {
      const before = received.length;
      await api(write, 'POST', '/entries/articles', {
        slug: 'later',
        status: 'published',
        published_at: '2999-01-01T00:00:00Z',
        data: { title: 'Later' },
      });
      await settle();
      assert.equal(received.length, before);
      const [job] = await queryRows<{ run_at: string | Date }>(
        t.app.deps.database.db,
        sql`select run_at from jobs where kind = 'cms.webhook'`,
      );
      const due = new Date(job!.run_at).getTime() - Date.parse('2999-01-01T00:00:00Z');
      assert.ok(due >= 0 && due < 5000, `the job is due at ${new Date(job!.run_at).toISOString()}`);
    });

    it('keeps a failed delivery queued and delivers it on the retry; admins read the log', async () => {
      failNext = 1;
      await api(write, 'POST', '/entries/articles', { slug: 'retry', status: 'published', data: { title: 'Retry' } });
      await settle();
      let log = json<
        Array<{ status: string; attempts: number; last_status: number | null; payload: { entry: { slug: string } } }>
      >(await api(admin, 'GET', `/webhooks/${hookId}/deliveries`));
      const pending = log.find((d) => d.payload.entry.slug === 'retry')!;
      assert.deepEqual([pending.status, pending.attempts, pending.last_status], ['pending', 1, 500]);
      // The back-off has not passed: make the retry due now, as time would.
      await t.app.deps.database.db.execute(
        sql`update jobs set run_at = now() where kind = 'cms.webhook' and state = 'queued' and run_at < now() + interval '1 day'`,
      );
      t.app.cms.webhooks.wake();
      await settle();
      log = json(await api(admin, 'GET', `/webhooks/${hookId}/deliveries`));
      const delivered = log.find((d) => d.payload.entry.slug === 'retry')!;
      assert.deepEqual([delivered.status, delivered.attempts, delivered.last_status], ['delivered', 2, 204]);
      assert.deepEqual(events().slice(-2), ['entry.published:retry', 'entry.published:retry']);
      assert.equal((await api(write, 'GET', `/webhooks/${hookId}/deliveries`)).statusCode, 403);
      assert.equal(json(await api(admin, 'GET', '/webhooks/nope/deliveries')).code, 'webhook_not_found');
    });

    it('removes a subscription: nothing more is sent', async () => {
      assert.equal((await api(admin, 'DELETE', `/webhooks/${hookId}`)).statusCode, 204);
      const before = received.length;
      await api(write, 'POST', '/entries/articles', { slug: 'quiet', status: 'published', data: { title: 'Quiet' } });
      await settle();
      assert.equal(received.length, before);
    });
  });
}
