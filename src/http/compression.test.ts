// Server-rendered pages and assets go out with brotli or gzip to a client that accepts them: the forum,
// the console, the CMS editor and the help desk, and the first load of a topic page and of Latest is
// at least a third smaller. The static edge keeps its own precompressed variants.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { LightMyRequestResponse } from 'fastify';
import {
  addMember,
  communityHost,
  forumApi,
  makeCommunity,
  mintForumToken,
  type ForumActor,
} from '../../test/factories/forum.js';
import { buildTestApp, PORTAL_HOST, signIn, type TestApp } from '../../test/helpers/app.js';
import { UiClient } from '../../test/helpers/forum-ui.js';

const BROTLI = { 'accept-encoding': 'gzip, deflate, br, zstd' };

function decoded(response: LightMyRequestResponse): Buffer {
  const raw = response.rawPayload;
  const coding = response.headers['content-encoding'];
  if (coding === 'br') return brotliDecompressSync(raw);
  if (coding === 'gzip') return gunzipSync(raw);
  return raw;
}

describe('compressed pages and assets [pglite]', () => {
  let t: TestApp;
  let alice: ForumActor;
  let member: UiClient;
  let topicUrl: string;

  before(async () => {
    t = await buildTestApp({ database: 'pglite', env: { BLUME_RATE_LOGIN_PER_MINUTE: '1000' } });
    const owner = await signIn(t.app, 'owner');
    await makeCommunity(t.app, owner, 'club');
    const admin = await mintForumToken(t.app, 'club', 'owner', owner.password);
    const forum = await forumApi(t.app, 'club', admin, {
      method: 'POST',
      path: '/forums',
      payload: { name: 'General', slug: 'general' },
    });
    assert.equal(forum.statusCode, 201, forum.body);
    alice = await addMember(t.app, 'club', 'alice');
    for (let i = 0; i < 12; i++) {
      const created = await forumApi(t.app, 'club', alice.token, {
        method: 'POST',
        path: '/topics',
        payload: {
          forum_id: 'general',
          title: `Topic number ${i} about brotli`,
          body: `A body long enough to read. `.repeat(20),
        },
      });
      assert.equal(created.statusCode, 201, created.body);
    }
    member = new UiClient(t.app, communityHost('club'));
    assert.equal((await member.login('alice', alice.password)).statusCode, 303);
    const latest = await member.get('/latest');
    topicUrl = /<a class="title" href="(\/t\/[^"]+)">/.exec(latest.body)![1]!;
  });
  after(() => t.close());

  it('answers each kind of page and asset with brotli, gzip or identity as the client accepts', async () => {
    const guest = new UiClient(t.app, communityHost('club'));
    const portal = new UiClient(t.app, PORTAL_HOST);
    const pages: [string, UiClient, string][] = [
      ['forum Latest', member, '/latest'],
      ['forum topic page', member, topicUrl],
      ['forum stylesheet', guest, '/assets/forum.css'],
      ['forum script', guest, '/assets/forum.js'],
      ['help desk form', guest, '/support'],
      ['console login', portal, '/login'],
      ['console stylesheet', portal, '/assets/console.css'],
    ];
    for (const [name, client, url] of pages) {
      const plain = await client.get(url);
      assert.equal(plain.statusCode, 200, `${name}: ${plain.body.slice(0, 200)}`);
      assert.equal(plain.headers['content-encoding'], undefined, name);
      assert.match(String(plain.headers.vary), /accept-encoding/i, name);
      const br = await client.get(url, BROTLI);
      assert.equal(br.headers['content-encoding'], 'br', name);
      assert.ok(br.rawPayload.length < plain.rawPayload.length / 2, `${name} is compressed`);
      const gzip = await client.get(url, { 'accept-encoding': 'gzip' });
      assert.equal(gzip.headers['content-encoding'], 'gzip', name);
      const refused = await client.get(url, { 'accept-encoding': 'br;q=0, gzip;q=0' });
      assert.equal(refused.headers['content-encoding'], undefined, name);
      for (const response of [br, gzip]) {
        // Pages carry per-request tokens (CSRF), so compare their shape; assets byte for byte.
        if (url.startsWith('/assets/')) assert.deepEqual(decoded(response), plain.rawPayload, name);
        else assert.match(decoded(response).toString(), /<\/html>\s*$/, name);
      }
    }
  });

  it('cuts the first load of a topic page and of Latest by more than a third', async () => {
    for (const url of ['/latest', topicUrl]) {
      const load = async (headers: Record<string, string>) => {
        let bytes = 0;
        for (const part of [url, '/assets/forum.css', '/assets/forum.js']) {
          const response = await member.get(part, headers);
          assert.equal(response.statusCode, 200, part);
          bytes += response.rawPayload.length;
        }
        return bytes;
      };
      const plain = await load({});
      const compressed = await load(BROTLI);
      assert.ok(compressed <= (plain * 2) / 3, `${url}: ${compressed} of ${plain} bytes`);
    }
  });

  it('leaves small answers and API JSON as they are', async () => {
    const api = await forumApi(t.app, 'club', alice.token, { method: 'GET', path: '/topics', headers: BROTLI });
    assert.equal(api.statusCode, 200);
    assert.equal(api.headers['content-encoding'], undefined);
    const health = await t.app.inject({ method: 'GET', url: '/up/', headers: { host: PORTAL_HOST, ...BROTLI } });
    assert.equal(health.headers['content-encoding'], undefined);
  });
});
