// The instance settings API of a single community instance: the same contract as on a platform,
// answered on every host to the community's admins (forum token, or member session with the forum
// UI's CSRF rules), and a restart that every node obeys from its next request.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { createSite } from '../core/sites/service.js';
import { addMember, type ForumActor } from '../../test/factories/forum.js';
import { buildTestApp, json, startSecondNode, type TestApp } from '../../test/helpers/app.js';
import { testCaches, testDatabases } from '../../test/helpers/databases.js';
import { UiClient } from '../../test/helpers/forum-ui.js';

const HOST = 'forum.example.test';

for (const database of testDatabases) {
  for (const cacheKind of testCaches) {
    describe(`instance settings of a single instance [${database}, ${cacheKind}]`, () => {
      let t: TestApp;
      let node2: FastifyInstance;
      let closeNode2: () => Promise<void>;
      let admin: ForumActor;
      let moderator: ForumActor;
      let member: ForumActor;

      const call = (
        app: FastifyInstance,
        token: string | undefined,
        options: Omit<InjectOptions, 'headers'> & { headers?: Record<string, string> },
      ) =>
        app.inject({
          ...options,
          headers: { host: HOST, ...(token ? { 'authentication-token': token } : {}), ...options.headers },
        } as InjectOptions);
      const publicRead = (app: FastifyInstance) =>
        call(app, undefined, {
          method: 'GET',
          url: '/api/forum/v1/forums',
          headers: { origin: 'https://app.example.test' },
        });

      before(async () => {
        t = await buildTestApp({ database, cache: cacheKind, mode: 'single', singleSite: 'town' });
        await createSite(t.app.deps.database.db, null, { id: 'town', kind: 'community', plan: 'business' });
        admin = await addMember(t.app, 'town', 'mayor', 'admin');
        moderator = await addMember(t.app, 'town', 'sheriff', 'moderator');
        member = await addMember(t.app, 'town', 'baker');
        // A second node on the same database and cache (or Redis namespace).
        ({ app: node2, close: closeNode2 } = await startSecondNode(t));
      });
      after(async () => {
        await closeNode2();
        await t.close();
      });

      it('lets an admin with a forum token save settings, and a restart turn on public reads on every node', async () => {
        assert.equal((await publicRead(node2)).statusCode, 401);
        const put = await call(t.app, admin.token, {
          method: 'PUT',
          url: '/api/instances/town/env',
          payload: {
            FORUM_API_PUBLIC_READ: 'True',
            API_CORS_ORIGINS: 'https://app.example.test',
            MAIL_PASSWORD: 'smtp-secret',
          },
        });
        assert.equal(put.statusCode, 200, put.body);
        assert.deepEqual(json(put), {
          API_CORS_ORIGINS: 'https://app.example.test',
          FORUM_API_PUBLIC_READ: 'True',
          MAIL_PASSWORD: '********',
        });
        assert.equal(put.headers['x-settings-pending'], 'true');
        // Saved is not applied.
        assert.equal((await publicRead(node2)).statusCode, 401);

        const restart = await call(t.app, admin.token, { method: 'POST', url: '/api/instances/town/restart' });
        assert.equal(restart.statusCode, 200, restart.body);
        assert.equal(json(restart).site, 'town');
        assert.deepEqual(
          (json(restart).changed as Array<{ name: string }>).map((c) => c.name),
          ['API_CORS_ORIGINS', 'FORUM_API_PUBLIC_READ', 'MAIL_PASSWORD'],
        );
        for (const node of [t.app, node2]) {
          const read = await publicRead(node);
          assert.equal(read.statusCode, 200, read.body);
          assert.equal(read.headers['access-control-allow-origin'], 'https://app.example.test');
        }
        const got = await call(node2, admin.token, { method: 'GET', url: '/api/instances/town/env' });
        assert.equal(got.statusCode, 200);
        assert.equal(got.headers['x-settings-pending'], 'false');
        assert.ok(!got.body.includes('smtp-secret'));
      });

      it('refuses guests with 401, bad tokens with 401, moderators and members with 403, other ids with 404', async () => {
        const none = await call(t.app, undefined, { method: 'GET', url: '/api/instances/town/env' });
        assert.equal(none.statusCode, 401);
        assert.equal(json(none).code, 'authentication_required');
        const bad = await call(t.app, 'blu_ft_nope.nope', { method: 'GET', url: '/api/instances/town/env' });
        assert.equal(bad.statusCode, 401);
        assert.equal(json(bad).code, 'invalid_token');
        for (const actor of [moderator, member]) {
          for (const [method, url] of [
            ['GET', '/api/instances/town/env'],
            ['PUT', '/api/instances/town/env'],
            ['POST', '/api/instances/town/restart'],
          ] as const) {
            const refused = await call(t.app, actor.token, {
              method,
              url,
              ...(method === 'PUT' ? { payload: {} } : {}),
            });
            assert.equal(refused.statusCode, 403, `${actor.member.username} ${method} ${url}`);
            assert.equal(json(refused).code, 'forbidden');
          }
        }
        const other = await call(t.app, admin.token, { method: 'GET', url: '/api/instances/elsewhere/env' });
        assert.equal(other.statusCode, 404);
        assert.equal(json(other).code, 'site_not_found');
        const invalid = await call(t.app, admin.token, {
          method: 'PUT',
          url: '/api/instances/town/env',
          payload: { DATABASE_URL: 'postgres://x' },
        });
        assert.equal(invalid.statusCode, 422);
        assert.equal(json(invalid).code, 'unknown_setting');
      });

      it('takes an admin member session for reads, and for writes only with the page token from the same origin', async () => {
        const ui = new UiClient(t.app, HOST);
        assert.equal((await ui.login('mayor', admin.password)).statusCode, 303);
        await ui.get('/');
        const cookie = [...ui.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
        const read = await call(t.app, undefined, {
          method: 'GET',
          url: '/api/instances/town/env',
          headers: { cookie },
        });
        assert.equal(read.statusCode, 200, read.body);

        const write = (headers: Record<string, string>) =>
          call(t.app, undefined, {
            method: 'PUT',
            url: '/api/instances/town/env',
            payload: { FORUM_TITLE: 'Town hall' },
            headers: { cookie, ...headers },
          });
        const noToken = await write({ origin: `http://${HOST}` });
        assert.equal(noToken.statusCode, 403);
        assert.equal(json(noToken).code, 'csrf_failed');
        const foreign = await write({ origin: 'https://evil.example', 'x-csrf-token': ui.csrf });
        assert.equal(foreign.statusCode, 403);
        assert.equal(json(foreign).code, 'csrf_failed');
        const ok = await write({ origin: `http://${HOST}`, 'x-csrf-token': ui.csrf });
        assert.equal(ok.statusCode, 200, ok.body);
        assert.equal(json(ok).FORUM_TITLE, 'Town hall');

        const baker = new UiClient(t.app, HOST);
        assert.equal((await baker.login('baker', member.password)).statusCode, 303);
        const bakerCookie = [...baker.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
        assert.equal(
          (
            await call(t.app, undefined, {
              method: 'GET',
              url: '/api/instances/town/env',
              headers: { cookie: bakerCookie },
            })
          ).statusCode,
          403,
        );
      });

      it('serves its OpenAPI document on the instance', async () => {
        const doc = await call(t.app, undefined, { method: 'GET', url: '/api/instances/openapi.json' });
        assert.equal(doc.statusCode, 200);
        assert.ok(Object.keys(json<{ paths: Record<string, unknown> }>(doc).paths).includes('/api/instances/{id}/env'));
      });
    });
  }
}
