import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openSetting } from '../core/settings/service.js';
import { addMember, forumApi, makeCommunity } from '../../test/factories/forum.js';
import {
  buildTestApp,
  json,
  portal,
  signIn,
  startSecondNode,
  type Actor,
  type TestApp,
} from '../../test/helpers/app.js';
import { testCaches, testDatabases } from '../../test/helpers/databases.js';
import type { FastifyInstance } from 'fastify';

type Row = Record<string, unknown>;

for (const database of testDatabases) {
  for (const cacheKind of testCaches) {
    describe(`instance settings API [${database}, ${cacheKind}]`, () => {
      let t: TestApp;
      let owner: Actor;
      let stranger: Actor;
      /** A second app node on the same database and cache (or Redis namespace). */
      let node2: FastifyInstance;
      let closeNode2: () => Promise<void>;
      const env = (actor: Actor | undefined, method: string, payload?: unknown) =>
        portal(t.app, actor, {
          method: method as 'GET',
          url: '/api/instances/club/env',
          ...(payload !== undefined ? { payload: payload as Row } : {}),
        });
      const restart = (actor: Actor | undefined) =>
        portal(t.app, actor, { method: 'POST', url: '/api/instances/club/restart' });

      before(async () => {
        t = await buildTestApp({ database, cache: cacheKind });
        owner = await signIn(t.app, 'owner');
        stranger = await signIn(t.app, 'stranger');
        await makeCommunity(t.app, owner, 'club');
        ({ app: node2, close: closeNode2 } = await startSecondNode(t));
      });
      after(async () => {
        await closeNode2();
        await t.close();
      });

      it('reads an empty map, replaces it whole, masks secrets', async () => {
        const empty = await env(owner, 'GET');
        assert.equal(empty.statusCode, 200);
        assert.deepEqual(json(empty), {});
        const put = await env(owner, 'PUT', {
          FORUM_TITLE: 'Club',
          MAIL_PASSWORD: 's3cret',
          MAIL_PORT: '587',
          REGISTRATION_OPEN: true,
        });
        assert.equal(put.statusCode, 200, put.body);
        assert.deepEqual(json(put), {
          FORUM_TITLE: 'Club',
          MAIL_PASSWORD: '********',
          MAIL_PORT: '587',
          REGISTRATION_OPEN: 'true',
        });
        assert.equal(put.headers['x-settings-pending'], 'true');
        assert.ok(!(await env(owner, 'GET')).body.includes('s3cret'));
        // Sending the mask back keeps the secret; leaving a name out removes it.
        const roundTrip = await env(owner, 'PUT', { MAIL_PASSWORD: '********', FORUM_TITLE: 'Club 2' });
        assert.deepEqual(json(roundTrip), { FORUM_TITLE: 'Club 2', MAIL_PASSWORD: '********' });
        const applied = json<{ changed: Row[] }>(await restart(owner));
        assert.deepEqual(applied.changed, [
          { name: 'FORUM_TITLE', change: 'added' },
          { name: 'MAIL_PASSWORD', change: 'added' },
        ]);
        // Secrets are stored sealed with SECRET_KEY; only the code that uses one opens it.
        const values = (await t.app.instanceSettings.applied('club')).values;
        assert.notEqual(values.MAIL_PASSWORD, 's3cret');
        assert.equal(openSetting(values, 'MAIL_PASSWORD', t.config.secretKey), 's3cret');
        assert.deepEqual(json(await env(owner, 'PUT', {})), {});
      });

      it('refuses unknown names listing the allowed ones, and values of the wrong type', async () => {
        const unknown = await env(owner, 'PUT', { FORUM_TITLE: 'x', DATABASE_URL: 'postgres://x' });
        assert.equal(unknown.statusCode, 422);
        assert.equal(json(unknown).code, 'unknown_setting');
        assert.deepEqual(json(unknown).unknown, ['DATABASE_URL']);
        assert.ok((json(unknown).allowed as string[]).includes('FORUM_API_PUBLIC_READ'));
        assert.match(String(json(unknown).detail), /API_CORS_ORIGINS/);
        const cases: Row[] = [
          { FORUM_API_PUBLIC_READ: 'yes please' },
          { API_CORS_ORIGINS: 'not a url' },
          { API_CORS_ORIGINS: 'https://a.example/path' },
          { MAIL_PORT: '70000' },
          { HELPDESK_SUPPORT_ADDRESS: 'nobody' },
          { AI_PROVIDER: 'skynet' },
          { AI_BASE_URL: 'ftp://x' },
          { FORUM_TITLE: 'two\nlines' },
          { AI_API_KEY: '********' },
        ];
        for (const body of cases) {
          const response = await env(owner, 'PUT', body);
          assert.equal(response.statusCode, 422, JSON.stringify(body));
          assert.equal(json(response).code, 'invalid_setting');
          assert.equal((json(response).errors as Row[])[0]!.name, Object.keys(body)[0]);
        }
        for (const body of [{ FORUM_TITLE: null }, { FORUM_TITLE: { a: 1 } }, ['FORUM_TITLE'], { FORUM_TITLE: 1.5 }]) {
          const response = await env(owner, 'PUT', body);
          assert.equal(response.statusCode, 400, JSON.stringify(body));
        }
      });

      it('belongs to the site owner and platform administrators only', async () => {
        assert.equal((await env(undefined, 'GET')).statusCode, 401);
        assert.equal(json(await env(stranger, 'GET')).code, 'site_not_found');
        assert.equal(json(await env(stranger, 'PUT', {})).code, 'site_not_found');
        assert.equal((await restart(stranger)).statusCode, 404);
        const root = await signIn(t.app, 'root', { admin: true });
        assert.equal((await env(root, 'GET')).statusCode, 200);
        assert.equal((await portal(t.app, owner, { method: 'GET', url: '/api/instances/nosuch/env' })).statusCode, 404);
        // Portal surface only: not on a site host.
        assert.equal(
          (
            await t.app.inject({
              method: 'GET',
              url: '/api/instances/club/env',
              headers: { host: 'club.blume.test', cookie: owner.cookie },
            })
          ).statusCode,
          404,
        );
      });

      it('applies public read and CORS only after restart, on every node', async () => {
        await addMember(t.app, 'club', 'alice');
        const origin = 'https://app.example';
        const guestRead = (app: FastifyInstance) =>
          app.inject({ method: 'GET', url: '/api/forum/v1/forums', headers: { host: 'club.blume.test', origin } });
        const preflight = (app: FastifyInstance) =>
          app.inject({
            method: 'OPTIONS',
            url: '/api/forum/v1/topics',
            headers: {
              host: 'club.blume.test',
              origin,
              'access-control-request-method': 'POST',
              'access-control-request-headers': 'authentication-token,content-type',
            },
          });
        for (const app of [t.app, node2]) {
          assert.equal((await guestRead(app)).statusCode, 401);
          assert.equal((await guestRead(app)).headers['access-control-allow-origin'], undefined);
        }

        await env(owner, 'PUT', {
          FORUM_API_PUBLIC_READ: 'True',
          API_CORS_ORIGINS: `${origin}, https://other.example`,
        });
        // Saved, not applied: nothing changes until restart.
        for (const app of [t.app, node2]) assert.equal((await guestRead(app)).statusCode, 401);

        const restarted = await restart(owner);
        assert.equal(restarted.statusCode, 200);
        const body = json<{ changed: Row[]; generation: number; site: string }>(restarted);
        assert.equal(body.site, 'club');
        assert.deepEqual(body.changed, [
          { name: 'API_CORS_ORIGINS', change: 'added' },
          { name: 'FORUM_API_PUBLIC_READ', change: 'added' },
          { name: 'FORUM_TITLE', change: 'removed' },
          { name: 'MAIL_PASSWORD', change: 'removed' },
        ]);
        assert.equal((await env(owner, 'GET')).headers['x-settings-pending'], 'false');
        // Pub/sub delivery is asynchronous over Redis; give it a moment.
        for (let i = 0; i < 50 && (await guestRead(node2)).statusCode !== 200; i++)
          await new Promise((r) => setTimeout(r, 20));
        for (const app of [t.app, node2]) {
          const read = await guestRead(app);
          assert.equal(read.statusCode, 200, read.body);
          assert.equal(read.headers['access-control-allow-origin'], origin);
          assert.match(String(read.headers['access-control-expose-headers']), /X-Pagination/);
          assert.match(String(read.headers['access-control-expose-headers']), /Link/);
          const pre = await preflight(app);
          assert.equal(pre.statusCode, 204);
          assert.equal(pre.headers['access-control-allow-origin'], origin);
          assert.match(String(pre.headers['access-control-allow-headers']), /Authentication-Token/);
        }
        const foreign = await t.app.inject({
          method: 'GET',
          url: '/api/forum/v1/forums',
          headers: { host: 'club.blume.test', origin: 'https://evil.example' },
        });
        assert.equal(foreign.headers['access-control-allow-origin'], undefined);
        // Guests may read, never write.
        const write = await forumApi(t.app, 'club', undefined, {
          method: 'POST',
          path: '/topics',
          payload: { forum_id: 'x', title: 't', body: 'b' },
        });
        assert.equal(write.statusCode, 401);

        // Public read without CORS origins stays off (spec section 4: both are needed).
        await env(owner, 'PUT', { FORUM_API_PUBLIC_READ: 'true' });
        assert.deepEqual(json<{ changed: Row[] }>(await restart(owner)).changed, [
          { name: 'API_CORS_ORIGINS', change: 'removed' },
          { name: 'FORUM_API_PUBLIC_READ', change: 'changed' },
        ]);
        for (let i = 0; i < 50 && (await guestRead(node2)).statusCode !== 401; i++)
          await new Promise((r) => setTimeout(r, 20));
        for (const app of [t.app, node2]) assert.equal((await guestRead(app)).statusCode, 401);
        assert.deepEqual(json<{ changed: Row[] }>(await restart(owner)).changed, []);
      });

      it('serves its OpenAPI document', async () => {
        const response = await portal(t.app, undefined, { method: 'GET', url: '/api/instances/openapi.json' });
        assert.equal(response.statusCode, 200);
        const doc = json<{ paths: Record<string, Row> }>(response);
        assert.ok(doc.paths['/api/instances/{id}/env']?.put);
        assert.ok(doc.paths['/api/instances/{id}/restart']?.post);
        assert.equal(doc.paths['/api/sites'], undefined);
      });
    });
  }
}
