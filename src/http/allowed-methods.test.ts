import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { forumApi, makeCommunity } from '../../test/factories/forum.js';
import { buildTestApp, json, portal, signIn, type Actor, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';

for (const database of testDatabases) {
  describe(`405 with Allow on every API surface [${database}]`, () => {
    let t: TestApp;
    let alice: Actor;

    before(async () => {
      t = await buildTestApp({ database });
      alice = await signIn(t.app, 'alice');
      await makeCommunity(t.app, alice, 'club');
    });
    after(() => t.close());

    it('answers a wrong method on an existing path with 405 and the methods it has', async () => {
      const cases = [
        { response: await portal(t.app, alice, { method: 'PUT', url: '/api/sites' }), allow: 'GET, HEAD, POST' },
        {
          response: await portal(t.app, alice, { method: 'POST', url: '/api/sites/club' }),
          allow: 'GET, HEAD, DELETE',
        },
        { response: await portal(t.app, undefined, { method: 'GET', url: '/api/deploy/club' }), allow: 'POST' },
        {
          response: await portal(t.app, undefined, { method: 'DELETE', url: '/api/deploy/club/promote' }),
          allow: 'POST',
        },
        {
          response: await portal(t.app, undefined, { method: 'DELETE', url: '/api/instances/club/restart' }),
          allow: 'POST',
        },
        {
          response: await forumApi(t.app, 'club', undefined, { method: 'PUT', path: '/forums' }),
          allow: 'GET, HEAD, POST, OPTIONS',
        },
        {
          response: await forumApi(t.app, 'club', undefined, { method: 'POST', path: '/topics/abc' }),
          allow: 'GET, HEAD, PATCH, OPTIONS',
        },
      ];
      for (const { response, allow } of cases) {
        assert.equal(response.statusCode, 405, response.body);
        assert.equal(response.headers.allow, allow);
        assert.equal(json(response).code, 'method_not_allowed');
        assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
      }
    });

    it('still answers 404 for paths that do not exist, and keeps surfaces apart', async () => {
      const missing = await portal(t.app, alice, { method: 'PUT', url: '/api/nothing' });
      assert.equal(missing.statusCode, 404);
      assert.equal(missing.headers.allow, undefined);
      // The forum API lives on community hosts: on the portal host it is not a path at all.
      assert.equal((await portal(t.app, undefined, { method: 'PUT', url: '/api/forum/v1/forums' })).statusCode, 404);
      assert.equal(
        (await forumApi(t.app, 'club', undefined, { method: 'PUT', path: '/nothing-here' })).statusCode,
        404,
      );
    });
  });
}
