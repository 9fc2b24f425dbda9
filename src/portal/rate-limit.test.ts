import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, json, portal, signIn, type Actor, type TestApp } from '../../test/helpers/app.js';
import { testCaches } from '../../test/helpers/databases.js';

for (const cache of testCaches) {
  describe(`portal rate limits [${cache}]`, () => {
    let t: TestApp;
    let alice: Actor;
    let bob: Actor;

    before(async () => {
      t = await buildTestApp({
        database: 'pglite',
        cache,
        env: { BLUME_RATE_LOGIN_PER_MINUTE: '3', BLUME_RATE_API_PER_MINUTE: '5' },
      });
      alice = await signIn(t.app, 'alice');
      bob = await signIn(t.app, 'bob');
    });
    after(() => t.close());

    it('limits login attempts per address with 429 and Retry-After', async () => {
      // signIn above used two of the three logins this address may make.
      const third = await portal(t.app, undefined, {
        method: 'POST',
        url: '/api/auth/login',
        payload: { login: 'alice', password: 'wrong-wrong' },
      });
      assert.equal(third.statusCode, 401);
      const fourth = await portal(t.app, undefined, {
        method: 'POST',
        url: '/api/auth/login',
        payload: { login: 'alice', password: alice.password },
      });
      assert.equal(fourth.statusCode, 429);
      assert.equal(json(fourth).code, 'rate_limited');
      assert.ok(Number(fourth.headers['retry-after']) > 0);
    });

    it('gives every API client its own bucket across routes', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const url = i % 2 === 0 ? '/api/me' : '/api/sites';
        statuses.push((await portal(t.app, alice, { method: 'GET', url })).statusCode);
      }
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429]);
      assert.equal(
        (await portal(t.app, bob, { method: 'GET', url: '/api/me' })).statusCode,
        200,
        'another session is not limited by alice',
      );
      assert.equal(
        (await portal(t.app, undefined, { method: 'GET', url: '/up/' })).statusCode,
        200,
        'health is never limited',
      );
    });
  });
}
