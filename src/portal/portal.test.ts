import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, json, portal, signIn, type Actor, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { createSite } from '../core/sites/service.js';

for (const database of testDatabases) {
  describe(`portal API [${database}]`, () => {
    let t: TestApp;
    let alice: Actor;
    let bob: Actor;
    let root: Actor;

    before(async () => {
      t = await buildTestApp({ database });
      alice = await signIn(t.app, 'alice');
      bob = await signIn(t.app, 'bob');
      root = await signIn(t.app, 'root', { admin: true });
    });
    after(() => t.close());

    describe('accounts', () => {
      it('signs up, answers /me, logs out', async () => {
        const signup = await portal(t.app, undefined, {
          method: 'POST',
          url: '/api/auth/signup',
          payload: { username: 'carol', email: 'carol@example.test', password: 'correct horse battery' },
        });
        assert.equal(signup.statusCode, 201);
        const cookie = signup.cookies.find((c) => c.name === 'blume_session')!;
        assert.equal(cookie.httpOnly, true);
        assert.equal(cookie.sameSite, 'Lax');
        const session = `blume_session=${cookie.value}`;
        const me = await portal(t.app, undefined, { method: 'GET', url: '/api/me', headers: { cookie: session } });
        assert.equal(me.statusCode, 200);
        assert.equal(json(me).username, 'carol');
        assert.equal(json(me).password_hash, undefined);
        const logout = await portal(t.app, undefined, {
          method: 'POST',
          url: '/api/auth/logout',
          headers: { cookie: session },
        });
        assert.equal(logout.statusCode, 204);
        const after = await portal(t.app, undefined, { method: 'GET', url: '/api/me', headers: { cookie: session } });
        assert.equal(after.statusCode, 401);
        assert.equal(json(after).code, 'authentication_required');
      });

      it('logs in by e-mail, refuses a wrong password and an unknown user alike', async () => {
        const ok = await portal(t.app, undefined, {
          method: 'POST',
          url: '/api/auth/login',
          payload: { login: 'ALICE@example.test', password: alice.password },
        });
        assert.equal(ok.statusCode, 200);
        const wrong = await portal(t.app, undefined, {
          method: 'POST',
          url: '/api/auth/login',
          payload: { login: 'alice', password: 'nope-nope-nope' },
        });
        const unknown = await portal(t.app, undefined, {
          method: 'POST',
          url: '/api/auth/login',
          payload: { login: 'nobody', password: 'nope-nope-nope' },
        });
        assert.equal(wrong.statusCode, 401);
        assert.deepEqual(json(wrong), json(unknown));
        assert.equal(wrong.headers['content-type'], 'application/problem+json; charset=utf-8');
      });

      it('refuses the most common passwords besides short ones', async () => {
        for (const password of ['password123', 'QWERTYUIOP', '1q2w3e4r5t6y']) {
          const response = await portal(t.app, undefined, {
            method: 'POST',
            url: '/api/auth/signup',
            payload: { username: 'dan', email: 'dan@example.test', password },
          });
          assert.equal(response.statusCode, 422, password);
          assert.equal(json(response).code, 'weak_password');
        }
        const fine = await portal(t.app, undefined, {
          method: 'POST',
          url: '/api/auth/signup',
          payload: { username: 'dan', email: 'dan@example.test', password: 'dan-is-not-in-any-list' },
        });
        assert.equal(fine.statusCode, 201);
      });

      it('refuses duplicate usernames and e-mails case-insensitively', async () => {
        const dupName = await portal(t.app, undefined, {
          method: 'POST',
          url: '/api/auth/signup',
          payload: { username: 'ALICE', email: 'x@example.test', password: '0123456789ab' },
        });
        assert.equal(dupName.statusCode, 409);
        assert.equal(json(dupName).code, 'username_taken');
        const dupMail = await portal(t.app, undefined, {
          method: 'POST',
          url: '/api/auth/signup',
          payload: { username: 'alice2', email: 'Alice@Example.test', password: '0123456789ab' },
        });
        assert.equal(json(dupMail).code, 'email_taken');
      });

      it('answers malformed JSON, wrong types and unknown fields with problem+json', async () => {
        const malformed = await portal(t.app, undefined, {
          method: 'POST',
          url: '/api/auth/login',
          headers: { 'content-type': 'application/json' },
          payload: '{"login":',
        });
        assert.equal(malformed.statusCode, 400);
        assert.equal(json(malformed).code, 'malformed_json');
        const wrongType = await portal(t.app, undefined, {
          method: 'POST',
          url: '/api/auth/login',
          payload: { login: 5, password: 'x' },
        });
        assert.equal(wrongType.statusCode, 400);
        assert.equal(json(wrongType).code, 'validation_failed');
        const unknownField = await portal(t.app, undefined, {
          method: 'POST',
          url: '/api/auth/login',
          payload: { login: 'a', password: 'b', admin: true },
        });
        assert.equal(json(unknownField).code, 'validation_failed');
        assert.match(String(json(unknownField).detail), /unknown field "admin"/);
        const long = await portal(t.app, undefined, {
          method: 'POST',
          url: '/api/auth/signup',
          payload: { username: 'x'.repeat(100), email: 'a@b.test', password: '0123456789' },
        });
        assert.equal(json(long).code, 'validation_failed');
        const wrongMedia = await portal(t.app, undefined, {
          method: 'POST',
          url: '/api/auth/login',
          headers: { 'content-type': 'text/plain' },
          payload: 'hello',
        });
        assert.equal(wrongMedia.statusCode, 415);
        assert.equal(json(wrongMedia).code, 'unsupported_media_type');
      });

      it('refuses a cross-origin state change made with the session cookie', async () => {
        const response = await portal(t.app, alice, {
          method: 'POST',
          url: '/api/sites',
          headers: { origin: 'https://evil.example' },
          payload: { id: 'evil', kind: 'static' },
        });
        assert.equal(response.statusCode, 403);
        assert.equal(json(response).code, 'csrf_failed');
      });
    });

    describe('sites', () => {
      it('creates, lists, reads and deletes a site', async () => {
        const created = await portal(t.app, alice, {
          method: 'POST',
          url: '/api/sites',
          payload: { id: 'docs', kind: 'static' },
        });
        assert.equal(created.statusCode, 201);
        assert.deepEqual(
          { ...json<Record<string, unknown>>(created), created_at: undefined },
          {
            id: 'docs',
            kind: 'static',
            plan: 'free',
            owner_id: alice.user.id,
            url: 'http://docs.blume.test',
            created_at: undefined,
          },
        );
        const list = await portal(t.app, alice, { method: 'GET', url: '/api/sites' });
        assert.deepEqual(
          json<Array<{ id: string }>>(list).map((s) => s.id),
          ['docs'],
        );
        assert.equal(json<unknown[]>(await portal(t.app, bob, { method: 'GET', url: '/api/sites' })).length, 0);
        assert.equal((await portal(t.app, alice, { method: 'GET', url: '/api/sites/docs' })).statusCode, 200);
        const strangers = await portal(t.app, bob, { method: 'GET', url: '/api/sites/docs' });
        assert.equal(strangers.statusCode, 404);
        assert.equal(json(strangers).code, 'site_not_found');
        assert.equal((await portal(t.app, bob, { method: 'DELETE', url: '/api/sites/docs' })).statusCode, 404);
        assert.equal((await portal(t.app, alice, { method: 'DELETE', url: '/api/sites/docs' })).statusCode, 204);
        assert.equal((await portal(t.app, alice, { method: 'GET', url: '/api/sites/docs' })).statusCode, 404);
      });

      it('enforces id rules and reserved names', async () => {
        for (const id of ['www', 'api', 'portal', 'admin', 'stage', 'mcp', 'r-abc']) {
          const response = await portal(t.app, alice, {
            method: 'POST',
            url: '/api/sites',
            payload: { id, kind: 'static' },
          });
          assert.equal(response.statusCode, 422, id);
          assert.equal(json(response).code, 'invalid_site_id');
        }
        for (const id of ['Bad', '-x', 'x-', 'a_b', 'a'.repeat(41), '']) {
          const response = await portal(t.app, alice, {
            method: 'POST',
            url: '/api/sites',
            payload: { id, kind: 'static' },
          });
          assert.equal(response.statusCode, 400, id);
        }
        const doubleDash = await portal(t.app, alice, {
          method: 'POST',
          url: '/api/sites',
          payload: { id: 'a--b', kind: 'static' },
        });
        assert.equal(json(doubleDash).code, 'invalid_site_id');
        const badKind = await portal(t.app, alice, {
          method: 'POST',
          url: '/api/sites',
          payload: { id: 'ok', kind: 'blog' },
        });
        assert.equal(json(badKind).code, 'validation_failed');
        await portal(t.app, alice, { method: 'POST', url: '/api/sites', payload: { id: 'taken', kind: 'community' } });
        const again = await portal(t.app, bob, {
          method: 'POST',
          url: '/api/sites',
          payload: { id: 'taken', kind: 'static' },
        });
        assert.equal(again.statusCode, 409);
        assert.equal(json(again).code, 'site_exists');
      });

      it('leaves paid plans to platform administrators', async () => {
        for (const plan of ['pro', 'business']) {
          const refused = await portal(t.app, alice, {
            method: 'POST',
            url: '/api/sites',
            payload: { id: `paid-${plan}`, kind: 'community', plan },
          });
          assert.equal(refused.statusCode, 403, plan);
          assert.equal(json(refused).code, 'plan_not_selectable');
          assert.equal((await portal(t.app, alice, { method: 'GET', url: `/api/sites/paid-${plan}` })).statusCode, 404);
        }
        const free = await portal(t.app, alice, {
          method: 'POST',
          url: '/api/sites',
          payload: { id: 'paid-free', kind: 'community', plan: 'free' },
        });
        assert.equal(json(free).plan, 'free');
        const granted = await portal(t.app, root, {
          method: 'POST',
          url: '/api/sites',
          payload: { id: 'paid-admin', kind: 'community', plan: 'business' },
        });
        assert.equal(granted.statusCode, 201);
        assert.equal(json(granted).plan, 'business');
      });

      it('needs a session', async () => {
        const response = await portal(t.app, undefined, { method: 'GET', url: '/api/sites' });
        assert.equal(response.statusCode, 401);
        assert.ok(response.headers['www-authenticate']);
      });
    });

    describe('credentials', () => {
      before(async () => {
        await createSite(t.app.deps.database.db, alice.user, { id: 'shop', kind: 'community', plan: 'pro' });
        await portal(t.app, alice, { method: 'POST', url: '/api/sites', payload: { id: 'brochure', kind: 'static' } });
      });

      it('refuses a deploy token for a community site, which takes no deploys', async () => {
        const refused = await portal(t.app, alice, {
          method: 'POST',
          url: '/api/sites/shop/deploy-tokens',
          payload: { name: 'ci' },
        });
        assert.equal(refused.statusCode, 422, refused.body);
        assert.equal(json(refused).code, 'site_not_static');
        assert.equal(
          json<unknown[]>(await portal(t.app, alice, { method: 'GET', url: '/api/sites/shop/deploy-tokens' })).length,
          0,
        );
      });

      it('mints a deploy token once, lists it without the secret, revokes it', async () => {
        const minted = await portal(t.app, alice, {
          method: 'POST',
          url: '/api/sites/brochure/deploy-tokens',
          payload: { name: 'ci' },
        });
        assert.equal(minted.statusCode, 201);
        const body = json<{ id: string; token: string }>(minted);
        assert.match(body.token, /^dpl_[0-9a-z]{16}\.[A-Za-z0-9_-]{43}$/);
        assert.ok(body.token.startsWith(`dpl_${body.id}.`));
        const list = await portal(t.app, alice, { method: 'GET', url: '/api/sites/brochure/deploy-tokens' });
        assert.deepEqual(
          json<Array<Record<string, unknown>>>(list).map((row) => Object.keys(row).sort()),
          [['created_at', 'id', 'last_used_at', 'name']],
        );
        assert.ok(!list.body.includes(body.token.split('.')[1]!));
        assert.equal(
          (await portal(t.app, bob, { method: 'DELETE', url: `/api/sites/brochure/deploy-tokens/${body.id}` }))
            .statusCode,
          404,
        );
        assert.equal(
          (await portal(t.app, alice, { method: 'DELETE', url: `/api/sites/brochure/deploy-tokens/${body.id}` }))
            .statusCode,
          204,
        );
        assert.equal(
          json<unknown[]>(await portal(t.app, alice, { method: 'GET', url: '/api/sites/brochure/deploy-tokens' }))
            .length,
          0,
        );
        const twice = await portal(t.app, alice, {
          method: 'DELETE',
          url: `/api/sites/brochure/deploy-tokens/${body.id}`,
        });
        assert.equal(json(twice).code, 'credential_not_found');
      });

      it('mints scoped API keys and refuses unknown scopes', async () => {
        const minted = await portal(t.app, alice, {
          method: 'POST',
          url: '/api/sites/shop/api-keys',
          payload: { name: 'reader', scopes: ['cms-read'] },
        });
        assert.equal(minted.statusCode, 201);
        const body = json<{ key: string; scopes: string[] }>(minted);
        assert.match(body.key, /^blu_sk_[0-9a-z]{16}\.[A-Za-z0-9_-]{43}$/);
        assert.deepEqual(body.scopes, ['cms-read']);
        const bad = await portal(t.app, alice, {
          method: 'POST',
          url: '/api/sites/shop/api-keys',
          payload: { name: 'x', scopes: ['root'] },
        });
        assert.equal(json(bad).code, 'validation_failed');
        const none = await portal(t.app, alice, {
          method: 'POST',
          url: '/api/sites/shop/api-keys',
          payload: { name: 'x', scopes: [] },
        });
        assert.equal(none.statusCode, 400);
        const list = json<Array<{ scopes: string[]; key?: string }>>(
          await portal(t.app, alice, { method: 'GET', url: '/api/sites/shop/api-keys' }),
        );
        assert.equal(list.length, 1);
        assert.equal(list[0]!.key, undefined);
      });

      it('lets only platform admins mint purchase keys', async () => {
        assert.equal(
          (await portal(t.app, alice, { method: 'POST', url: '/api/admin/purchase-keys', payload: { name: 'shop' } }))
            .statusCode,
          403,
        );
        const minted = await portal(t.app, root, {
          method: 'POST',
          url: '/api/admin/purchase-keys',
          payload: { name: 'shop' },
        });
        assert.equal(minted.statusCode, 201);
        assert.match(json<{ token: string }>(minted).token, /^pk_/);
      });
    });

    it('serves its OpenAPI document', async () => {
      const response = await portal(t.app, undefined, { method: 'GET', url: '/api/openapi.json' });
      assert.equal(response.statusCode, 200);
      const doc = json<{ openapi: string; paths: Record<string, unknown> }>(response);
      assert.equal(doc.openapi, '3.1.0');
      assert.ok(doc.paths['/api/sites']);
      assert.ok(doc.paths['/api/sites/{id}/deploy-tokens']);
      assert.equal(doc.paths['/up/'], undefined);
    });

    it('answers unknown routes and unknown site hosts with problem+json', async () => {
      const missing = await portal(t.app, undefined, { method: 'GET', url: '/api/nothing' });
      assert.equal(missing.statusCode, 404);
      assert.equal(json(missing).code, 'not_found');
      const site = await t.app.inject({ method: 'GET', url: '/', headers: { host: 'nosuch.blume.test' } });
      assert.equal(site.statusCode, 404);
      assert.equal(json(site).code, 'site_not_found');
      const portalRouteOnSiteHost = await t.app.inject({
        method: 'GET',
        url: '/api/sites',
        headers: { host: 'shop.blume.test' },
      });
      assert.equal(portalRouteOnSiteHost.statusCode, 404);
    });
  });
}

for (const database of testDatabases) {
  describe(`portal API with BLUME_DEFAULT_PLAN=business [${database}]`, () => {
    let t: TestApp;
    let alice: Actor;
    before(async () => {
      t = await buildTestApp({ database, env: { BLUME_DEFAULT_PLAN: 'business' } });
      alice = await signIn(t.app, 'alice');
    });
    after(() => t.close());

    it('gives a new site the default plan, which anyone may also name; other paid plans stay with administrators', async () => {
      const created = await portal(t.app, alice, {
        method: 'POST',
        url: '/api/sites',
        payload: { id: 'team', kind: 'community' },
      });
      assert.equal(created.statusCode, 201, created.body);
      assert.equal(json(created).plan, 'business');
      const named = await portal(t.app, alice, {
        method: 'POST',
        url: '/api/sites',
        payload: { id: 'team-two', kind: 'static', plan: 'business' },
      });
      assert.equal(json(named).plan, 'business');
      const pro = await portal(t.app, alice, {
        method: 'POST',
        url: '/api/sites',
        payload: { id: 'team-pro', kind: 'static', plan: 'pro' },
      });
      assert.equal(pro.statusCode, 403);
      assert.equal(json(pro).code, 'plan_not_selectable');
      assert.match(json(pro).detail as string, /create the site on "business"/);
    });
  });
}
