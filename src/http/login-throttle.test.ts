import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { addMember, communityHost, forumApi, makeCommunity } from '../../test/factories/forum.js';
import { buildTestApp, json, portal, signIn, type Actor, type TestApp } from '../../test/helpers/app.js';
import { testCaches } from '../../test/helpers/databases.js';
import { UiClient } from '../../test/helpers/forum-ui.js';
import { KNOWN_CLIENT_COOKIE } from './login-throttle.js';

for (const cache of testCaches) {
  describe(`login throttle [${cache}]`, () => {
    let t: TestApp;
    let alice: Actor;
    let known: string;

    const login = (name: string, password: string, address: string, cookie?: string): Promise<LightMyRequestResponse> =>
      portal(t.app, undefined, {
        method: 'POST',
        url: '/api/auth/login',
        remoteAddress: address,
        payload: { login: name, password },
        ...(cookie ? { headers: { cookie } } : {}),
      });

    before(async () => {
      // The per-address rate limit is out of the way: this is about the throttle.
      t = await buildTestApp({ database: 'pglite', cache, env: { BLUME_RATE_LOGIN_PER_MINUTE: '1000' } });
      alice = await signIn(t.app, 'alice');
      const first = await login('alice', alice.password, '192.0.2.1');
      known = `${KNOWN_CLIENT_COOKIE}=${first.cookies.find((c) => c.name === KNOWN_CLIENT_COOKIE)!.value}`;
    });
    after(() => t.close());

    it('locks an account name after five failures, doubling the wait, but never for a client that logged in before', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await login('ALICE', 'wrong-password', `198.51.100.${i}`)).statusCode);
      assert.deepEqual(statuses, [401, 401, 401, 401, 401, 401]);
      // From any other address, even with the right password, the name is locked for a second.
      const locked = await login('alice', alice.password, '203.0.113.9');
      assert.equal(locked.statusCode, 429);
      assert.equal(json(locked).code, 'login_locked');
      assert.equal(locked.headers['retry-after'], '1');
      // A second and a bit later, by the throttle's clock: the lock is over, and the next failure doubles it.
      t.app.services.loginThrottle.now = () => Date.now() + 1100;
      assert.equal((await login('alice', 'wrong-password', '198.51.100.7')).statusCode, 401);
      assert.equal((await login('alice', alice.password, '203.0.113.9')).headers['retry-after'], '2');

      // The owner's browser is known to the account: it gets in, and its login clears the count.
      const owner = await login('alice', alice.password, '198.51.100.200', known);
      assert.equal(owner.statusCode, 200, owner.body);
      assert.equal((await login('alice', alice.password, '203.0.113.9')).statusCode, 200);
      // A known-client cookie is bound to its account name: it does not open another one.
      for (let i = 0; i < 6; i++) await login('bob', 'wrong-password', '198.51.100.50');
      assert.equal((await login('bob', 'wrong-password', '198.51.100.51', known)).statusCode, 429);
      t.app.services.loginThrottle.now = Date.now;
    });

    it('locks an address after twenty failures on any names; a private-network peer cannot claim other addresses', async () => {
      // By default only loopback peers may set X-Forwarded-For: this peer on a private network
      // stays itself whatever it claims.
      for (let i = 0; i < 21; i++) {
        const response = await portal(t.app, undefined, {
          method: 'POST',
          url: '/api/auth/login',
          remoteAddress: '10.0.0.7',
          headers: { 'x-forwarded-for': `198.18.0.${i}` },
          payload: { login: `nobody-${i}`, password: 'wrong-password' },
        });
        assert.equal(response.statusCode, 401);
      }
      const blocked = await login('someone-else', 'wrong-password', '10.0.0.7');
      assert.equal(json(blocked).code, 'login_locked');
      assert.equal((await login('someone-else', 'wrong-password', '10.0.0.8')).statusCode, 401);
    });

    it('throttles forum member logins on the API and the web form alike', async () => {
      await makeCommunity(t.app, null, 'club');
      const carol = await addMember(t.app, 'club', 'carol');
      const token = (address: string) =>
        forumApi(t.app, 'club', undefined, {
          method: 'POST',
          path: '/auth/tokens',
          remoteAddress: address,
          payload: { login: 'carol', password: 'wrong-password' },
        });
      for (let i = 0; i < 6; i++) assert.equal((await token(`198.51.100.${100 + i}`)).statusCode, 401);
      const api = await forumApi(t.app, 'club', undefined, {
        method: 'POST',
        path: '/auth/tokens',
        remoteAddress: '203.0.113.20',
        payload: { login: 'carol', password: carol.password },
      });
      assert.equal(json(api).code, 'login_locked');
      const page = await new UiClient(t.app, communityHost('club')).login('carol', carol.password);
      assert.equal(page.statusCode, 429);
      assert.match(page.body, /Too many failed logins/);
      // The portal's alice and the community's carol are separate names.
      assert.equal((await login('carol', 'wrong-password', '203.0.113.21')).statusCode, 401);
    });
  });
}
