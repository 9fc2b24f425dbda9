// Issue 15's "Done when", end to end on both databases: a site owner makes a custom type through the
// API; a cms-write key creates and publishes entries; a cms-read key on another origin lists the
// published ones with filters, sort and pagination under CORS from API_CORS_ORIGINS; the forum shows
// up as topics and posts entries; an admin edits an entry in the web editor (its forms, posted as a
// browser posts them; test/browser/cms-editor.test.ts drives the same pages in Chromium); a publish
// fires a signed webhook to a local receiver; AI drafting fills an entry from a prompt against the
// local provider server.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { cmsApi, mintApiKey } from '../../test/factories/cms.js';
import { communityHost, makeCommunity } from '../../test/factories/forum.js';
import { aiSettings, AI_PROVIDER_ENV, startAiProvider, type AiProviderServer } from '../../test/helpers/ai-provider.js';
import { buildTestApp, json, portal, signIn, type Actor, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { UiClient } from '../../test/helpers/forum-ui.js';

type Entry = { id: string; slug: string | null; status: string; data: Record<string, unknown> };
const APP_ORIGIN = 'https://shop.example';

for (const database of testDatabases) {
  describe(`Content API, done when [${database}]`, () => {
    let t: TestApp;
    let owner: Actor;
    let ai: AiProviderServer;
    let receiver: Server;
    const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
    let keys: { admin: string; write: string; read: string };

    before(async () => {
      ai = await startAiProvider();
      receiver = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
          response.writeHead(204).end();
        });
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      // The receiver is on loopback: this instance allows private webhook targets (decision 0047).
      t = await buildTestApp({
        database,
        env: { ...AI_PROVIDER_ENV, BLUME_WEBHOOKS_ALLOW_PRIVATE: 'True', BLUME_RATE_LOGIN_PER_MINUTE: '1000' },
      });
      owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'shop', 'business');
      keys = {
        admin: await mintApiKey(t.app, owner, 'shop', ['admin']),
        write: await mintApiKey(t.app, owner, 'shop', ['cms-write']),
        read: await mintApiKey(t.app, owner, 'shop', ['cms-read']),
      };
      const settings = await portal(t.app, owner, {
        method: 'PUT',
        url: '/api/instances/shop/env',
        payload: {
          API_CORS_ORIGINS: APP_ORIGIN,
          ...aiSettings(ai, 'writer-1'),
        },
      });
      assert.equal(settings.statusCode, 200, settings.body);
      await portal(t.app, owner, { method: 'POST', url: '/api/instances/shop/restart' });
    });
    after(async () => {
      await t.close();
      await ai.close();
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    });

    const api = (key: string, method: string, path: string, payload?: object, headers: Record<string, string> = {}) =>
      cmsApi(t.app, 'shop', key, { method: method as 'GET', path, headers, ...(payload ? { payload } : {}) });

    it('runs the whole story', async () => {
      // A custom type, made by the site owner through the API; a webhook for publishes.
      const type = await api(keys.admin, 'POST', '/content-types', {
        slug: 'guides',
        name: 'Guides',
        fields: [
          { name: 'title', type: 'text', required: true, options: { max_length: 120 } },
          { name: 'level', type: 'enum', options: { values: ['beginner', 'expert'] } },
          { name: 'minutes', type: 'number', options: { integer: true } },
          { name: 'body', type: 'markdown' },
        ],
      });
      assert.equal(type.statusCode, 201, type.body);
      const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/rebuild`;
      const hook = await api(keys.admin, 'POST', '/webhooks', { url: receiverUrl, events: ['entry.published'] });
      assert.equal(hook.statusCode, 201, hook.body);
      const secret = json<{ secret: string }>(hook).secret;

      // A cms-write key creates entries and publishes them; one stays a draft.
      for (const [slug, level, minutes] of [
        ['setup', 'beginner', 10],
        ['tuning', 'expert', 45],
        ['backups', 'beginner', 20],
        ['scaling', 'expert', 60],
      ] as const) {
        const made = await api(keys.write, 'POST', '/entries/guides', {
          slug,
          status: 'published',
          data: { title: `Guide: ${slug}`, level, minutes },
        });
        assert.equal(made.statusCode, 201, made.body);
      }
      const draft = json<Entry>(
        await api(keys.write, 'POST', '/entries/guides', {
          slug: 'draft',
          data: { title: 'Not yet', level: 'beginner', minutes: 5 },
        }),
      );

      // A cms-read key on another origin: filters, sort and pagination, under CORS.
      const preflight = await t.app.inject({
        method: 'OPTIONS',
        url: '/api/cms/v1/entries/guides',
        headers: {
          host: communityHost('shop'),
          origin: APP_ORIGIN,
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'authorization',
        },
      });
      assert.equal(preflight.headers['access-control-allow-origin'], APP_ORIGIN);
      const page = await api(
        keys.read,
        'GET',
        '/entries/guides?filter[level]=beginner&sort=-minutes&page_size=1&page=2',
        undefined,
        { origin: APP_ORIGIN },
      );
      assert.equal(page.statusCode, 200, page.body);
      assert.equal(page.headers['access-control-allow-origin'], APP_ORIGIN);
      assert.deepEqual(
        json<Entry[]>(page).map((e) => e.slug),
        ['setup'],
      );
      assert.equal(JSON.parse(String(page.headers['x-pagination'])).total, 2);
      const everything = json<Entry[]>(
        await api(keys.read, 'GET', '/entries/guides?sort=minutes&page_size=100', undefined, { origin: APP_ORIGIN }),
      );
      assert.deepEqual(
        everything.map((e) => e.slug),
        ['setup', 'backups', 'tuning', 'scaling'],
        'the draft is not served',
      );

      // The forum as topics and posts entries.
      await api(keys.write, 'POST', '/entries/forums', { slug: 'help', data: { name: 'Help' } });
      const topic = json<Entry>(
        await api(keys.write, 'POST', '/entries/topics', {
          data: { forum_id: 'help', title: 'Which guide first?', body: 'Start with setup.' },
        }),
      );
      const topics = json<Entry[]>(await api(keys.read, 'GET', '/entries/topics'));
      assert.deepEqual(
        topics.map((e) => e.data.title),
        ['Which guide first?'],
      );
      const posts = json<Entry[]>(await api(keys.read, 'GET', `/entries/posts?filter[topic_id]=${topic.id}`));
      assert.deepEqual(
        posts.map((e) => e.data.body),
        ['Start with setup.'],
      );

      // An admin edits the draft in the web editor and publishes it.
      const admin = new UiClient(t.app, communityHost('shop'));
      assert.equal((await admin.login('owner', owner.password)).statusCode, 303);
      const form = await admin.get(`/admin/content/guides/${draft.id}`);
      assert.equal(form.statusCode, 200);
      const version = /name="version" value="([^"]+)"/.exec(form.body)![1]!.replace(/&quot;/g, '"');
      const saved = await admin.post(`/admin/content/guides/${draft.id}`, {
        action: 'save',
        version,
        slug: 'draft',
        status: 'published',
        data_title: 'Now ready',
        data_level: 'beginner',
        data_minutes: '5',
      });
      assert.equal(saved.statusCode, 303, saved.body);
      const edited = json<Entry>(await api(keys.read, 'GET', '/entries/guides/draft'));
      assert.deepEqual([edited.status, edited.data.title], ['published', 'Now ready']);

      // Every publish fired a signed webhook to the local receiver.
      await t.app.cms.webhooks.idle();
      const publishes = received.map((r) => JSON.parse(r.body) as { event: string; entry: { slug: string } });
      assert.deepEqual(publishes.map((p) => p.entry.slug).sort(), ['backups', 'draft', 'scaling', 'setup', 'tuning']);
      for (const delivery of received) {
        const [, timestamp, digest] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(
          String(delivery.headers['x-blume-signature']),
        )!;
        assert.equal(digest, createHmac('sha256', secret).update(`${timestamp}.${delivery.body}`).digest('hex'));
      }

      // AI drafting fills an entry from a prompt against the local provider, saved as a draft.
      ai.answer = JSON.stringify({
        title: 'Guide: monitoring',
        level: 'expert',
        minutes: 30,
        body: 'Watch **everything**.',
      });
      const drafted = await api(keys.write, 'POST', '/ai-content/generate', {
        type: 'guides',
        prompt: 'A guide to monitoring',
        save_as_draft: true,
      });
      assert.equal(drafted.statusCode, 200, drafted.body);
      const filled = json<{ data: Record<string, unknown>; entry: Entry }>(drafted);
      assert.deepEqual(filled.entry.data, {
        title: 'Guide: monitoring',
        level: 'expert',
        minutes: 30,
        body: 'Watch **everything**.',
      });
      assert.equal(filled.entry.status, 'draft');
      assert.match(JSON.stringify(ai.calls.at(-1)!.body), /A guide to monitoring/);
    });
  });
}
