import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { addMember, forumApi } from '../../test/factories/forum.js';
import {
  buildTestApp,
  json,
  portal,
  signIn,
  startSecondNode,
  type Actor,
  type TestApp,
} from '../../test/helpers/app.js';
import { siteArchive } from '../../test/helpers/archives.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { eventually } from '../../test/helpers/eventually.js';
import { deployApi, deployRelease } from '../../test/helpers/deploy.js';
import { jobs } from '../jobs/tables.js';
import { writeFeaturePlans } from '../core/plans/service.js';
import { findSite } from '../core/sites/service.js';
import { findUserByLogin } from '../core/accounts/service.js';
import { createMember } from '../forum/members.js';
import { WorkspacePurger } from './purge.js';

const BASE = '/api/purchase/v1';
const redis = Boolean(process.env.TEST_REDIS_URL);

for (const database of testDatabases) {
  describe(`purchase API [${database}]`, () => {
    let t: TestApp;
    let root: Actor;
    let key: string;

    const call = (
      method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
      path: string,
      options: { payload?: Record<string, unknown>; token?: string | null; headers?: Record<string, string> } = {},
    ) =>
      portal(t.app, undefined, {
        method,
        url: `${BASE}${path}`,
        headers: {
          ...(options.token === null ? {} : { authorization: `Bearer ${options.token ?? key}` }),
          ...options.headers,
        },
        ...(options.payload ? { payload: options.payload } : {}),
      });
    const problem = (response: LightMyRequestResponse, status: number, code: string) => {
      assert.equal(response.statusCode, status, response.body);
      assert.equal(json(response).code, code);
      assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
    };
    const mintKey = async (name: string) => {
      const minted = await portal(t.app, root, { method: 'POST', url: '/api/admin/purchase-keys', payload: { name } });
      assert.equal(minted.statusCode, 201, minted.body);
      return json<{ id: string; token: string }>(minted);
    };

    before(async () => {
      t = await buildTestApp({ database });
      root = await signIn(t.app, 'root', { admin: true });
      key = (await mintKey('billing')).token;
    });
    after(() => t.close());

    it('lists and revokes purchase keys; a wrong or revoked key is a 401 that changes nothing', async () => {
      const spare = await mintKey('spare');
      const listed = json<Array<{ id: string; token?: string }>>(
        await portal(t.app, root, { method: 'GET', url: '/api/admin/purchase-keys' }),
      );
      assert.ok(listed.some((k) => k.id === spare.id));
      assert.ok(
        listed.every((k) => k.token === undefined),
        'no secrets in the list',
      );
      assert.equal((await call('GET', '/plans', { token: spare.token })).statusCode, 200);
      const member = await signIn(t.app, 'plain');
      assert.equal(
        (await portal(t.app, member, { method: 'DELETE', url: `/api/admin/purchase-keys/${spare.id}` })).statusCode,
        403,
      );
      assert.equal(
        (await portal(t.app, root, { method: 'DELETE', url: `/api/admin/purchase-keys/${spare.id}` })).statusCode,
        204,
      );
      problem(await call('GET', '/plans', { token: spare.token }), 401, 'invalid_token');
      const body = { site_id: 'sneaky', kind: 'static', plan: 'free', owner_email: 'sneaky@example.test' };
      problem(await call('POST', '/workspaces', { token: spare.token, payload: body }), 401, 'invalid_token');
      problem(
        await call('POST', '/workspaces', { token: `${key.slice(0, -2)}xx`, payload: body }),
        401,
        'invalid_token',
      );
      problem(await call('POST', '/workspaces', { token: null, payload: body }), 401, 'authentication_required');
      assert.equal(await findSite(t.deps.database.db, 'sneaky'), undefined);
      problem(
        await portal(t.app, root, { method: 'DELETE', url: `/api/admin/purchase-keys/${spare.id}` }),
        404,
        'credential_not_found',
      );
    });

    it('lists the plans with what each includes, from the plan matrix', async () => {
      const plans = json<Array<{ id: string; features: Array<{ feature: string }> }>>(await call('GET', '/plans'));
      assert.deepEqual(
        plans.map((p) => p.id),
        ['free', 'pro', 'business'],
      );
      const features = (id: string) => plans.find((p) => p.id === id)!.features.map((f) => f.feature);
      assert.deepEqual(features('free'), ['deploy']);
      assert.ok(features('pro').includes('forum_api') && !features('pro').includes('ai'));
      assert.ok(features('business').includes('ai'));
      await writeFeaturePlans(t.app.deps.database.db, 'ai', ['pro', 'business']);
      await t.app.services.epochs.announce();
      assert.ok(
        json<Array<{ id: string; features: Array<{ feature: string }> }>>(await call('GET', '/plans'))
          .find((p) => p.id === 'pro')!
          .features.some((f) => f.feature === 'ai'),
      );
      await writeFeaturePlans(t.app.deps.database.db, 'ai', ['business']);
      await t.app.services.epochs.announce();
    });

    it('provisions, upgrades, suspends, resumes and cancels a community workspace', async () => {
      const created = await call('POST', '/workspaces', {
        payload: {
          site_id: 'guild',
          kind: 'community',
          plan: 'free',
          owner_email: 'Gwen@Example.test',
          owner_name: 'Gwen',
        },
      });
      assert.equal(created.statusCode, 201, created.body);
      const workspace = json(created);
      assert.equal(workspace.id, 'guild');
      assert.equal(workspace.site_id, 'guild');
      assert.equal(workspace.kind, 'community');
      assert.equal(workspace.plan, 'free');
      assert.equal(workspace.status, 'active');
      assert.equal(workspace.owner_email, 'Gwen@Example.test');
      assert.equal(workspace.owner_pending, false);
      assert.match(String(workspace.url), /^http:\/\/guild\./);
      const owner = await findUserByLogin(t.deps.database.db, 'gwen@example.test');
      assert.equal(owner?.username, 'Gwen');
      assert.equal((await findSite(t.deps.database.db, 'guild'))?.ownerId, owner!.id);
      // This server sends no mail (invitation.test.ts has the mail); the answer says so.
      const { invitation, ...stored } = workspace;
      assert.equal(invitation, 'not_sent_mail_disabled');
      assert.deepEqual(json(await call('GET', '/workspaces/guild')), stored);

      // Free: no Forum API. Pro: the next request has it.
      await createMember(t.deps.database.db, 'guild', {
        username: 'mia',
        email: 'mia@members.test',
        password: 'pw-mia-0123456789',
        role: 'member',
      });
      const tokenCall = () =>
        forumApi(t.app, 'guild', undefined, {
          method: 'POST',
          path: '/auth/tokens',
          payload: { login: 'mia', password: 'pw-mia-0123456789', name: 'x' },
        });
      problem(await tokenCall(), 403, 'plan_required');
      const upgraded = await call('PATCH', '/workspaces/guild', { payload: { plan: 'pro' } });
      assert.equal(upgraded.statusCode, 200, upgraded.body);
      assert.equal(json(upgraded).plan, 'pro');
      assert.equal((await tokenCall()).statusCode, 201);

      const suspended = await call('POST', '/workspaces/guild/suspend');
      assert.equal(json(suspended).status, 'suspended');
      problem(await tokenCall(), 503, 'site_suspended');
      problem(await forumApi(t.app, 'guild', undefined, { method: 'GET', path: '/forums' }), 503, 'site_suspended');
      problem(
        await t.app.inject({ method: 'GET', url: '/', headers: { host: 'guild.blume.test' } }),
        503,
        'site_suspended',
      );
      assert.equal(json(await call('POST', '/workspaces/guild/resume')).status, 'active');
      assert.equal((await tokenCall()).statusCode, 201, 'data kept while suspended');

      const canceled = await call('DELETE', '/workspaces/guild');
      assert.equal(canceled.statusCode, 200, canceled.body);
      assert.equal(json(canceled).status, 'canceled');
      assert.ok(json(canceled).canceled_at);
      problem(await tokenCall(), 503, 'site_suspended');
      assert.ok(await findSite(t.deps.database.db, 'guild'), 'data kept for the grace period');
      const [purge] = await t.deps.database.db.select().from(jobs).where(eq(jobs.siteId, 'guild'));
      assert.equal(purge?.kind, 'purchase.purge');
      assert.ok(purge!.runAt.getTime() - Date.now() > 29 * 24 * 3600 * 1000, 'runs after the default 30-day grace');
      problem(await call('POST', '/workspaces/guild/resume'), 409, 'workspace_canceled');
      problem(await call('PATCH', '/workspaces/guild', { payload: { plan: 'business' } }), 409, 'workspace_canceled');
      assert.equal(
        json(await call('DELETE', '/workspaces/guild')).status,
        'canceled',
        'canceling again answers the same',
      );
      assert.equal((await t.deps.database.db.select().from(jobs).where(eq(jobs.siteId, 'guild'))).length, 1);
    });

    it('purges a canceled workspace once its grace period is over', async () => {
      assert.equal(
        (
          await call('POST', '/workspaces', {
            payload: { site_id: 'brief', kind: 'static', plan: 'free', owner_email: 'brief@example.test' },
          })
        ).statusCode,
        201,
      );
      assert.equal((await call('DELETE', '/workspaces/brief')).statusCode, 200);
      // The grace period has passed: the job is due now.
      await t.deps.database.db
        .update(jobs)
        .set({ runAt: new Date(Date.now() - 1000) })
        .where(eq(jobs.siteId, 'brief'));
      const purger = new WorkspacePurger(t.deps.database.db, t.app.log, () => t.app.services.epochs.announce(), {
        embeddedDatabase: false,
      });
      await purger.runNext();
      // The app's own purger may have taken the job first: either way the site goes.
      await eventually('the canceled site is purged', async () =>
        (await findSite(t.deps.database.db, 'brief')) ? undefined : true,
      );
      problem(await call('GET', '/workspaces/brief'), 404, 'workspace_not_found');
    });

    it('answers the same result to a retried Idempotency-Key and 422 to another body under it', async () => {
      const body = { site_id: 'twice', kind: 'static', plan: 'pro', owner_email: 'twice@example.test' };
      const first = await call('POST', '/workspaces', { payload: body, headers: { 'idempotency-key': 'order-1' } });
      assert.equal(first.statusCode, 201, first.body);
      const again = await call('POST', '/workspaces', {
        payload: { owner_email: body.owner_email, plan: 'pro', kind: 'static', site_id: 'twice' },
        headers: { 'idempotency-key': 'order-1' },
      });
      assert.equal(again.statusCode, 201, again.body);
      assert.deepEqual(json(again), json(first));
      assert.equal(again.headers['idempotent-replayed'], 'true');
      problem(
        await call('POST', '/workspaces', {
          payload: { ...body, site_id: 'thrice' },
          headers: { 'idempotency-key': 'order-1' },
        }),
        422,
        'idempotency_key_reused',
      );
      assert.equal(await findSite(t.deps.database.db, 'thrice'), undefined);
      // Keys belong to the purchase key: another key's "order-1" is a new request.
      const other = await mintKey('reseller');
      const theirs = await call('POST', '/workspaces', {
        token: other.token,
        payload: { ...body, site_id: 'thrice' },
        headers: { 'idempotency-key': 'order-1' },
      });
      assert.equal(theirs.statusCode, 201, theirs.body);
      // Without a key, the same body again is a taken site id.
      problem(await call('POST', '/workspaces', { payload: body }), 409, 'site_exists');
    });

    it('refuses a taken site id, an unknown plan and bad input, changing nothing', async () => {
      await signIn(t.app, 'olga');
      problem(
        await call('POST', '/workspaces', {
          payload: { site_id: 'twice', kind: 'community', plan: 'free', owner_email: 'new-owner@example.test' },
        }),
        409,
        'site_exists',
      );
      assert.equal(
        await findUserByLogin(t.deps.database.db, 'new-owner@example.test'),
        undefined,
        'no account for a refused workspace',
      );
      const unknown = await call('POST', '/workspaces', {
        payload: { site_id: 'fresh', kind: 'community', plan: 'platinum', owner_email: 'fresh@example.test' },
      });
      problem(unknown, 422, 'unknown_plan');
      assert.deepEqual(json(unknown).plans, ['free', 'pro', 'business']);
      problem(
        await call('POST', '/workspaces', {
          payload: { site_id: 'www', kind: 'static', plan: 'free', owner_email: 'fresh@example.test' },
        }),
        422,
        'invalid_site_id',
      );
      problem(
        await call('POST', '/workspaces', {
          payload: { site_id: 'fresh', kind: 'static', plan: 'free', owner_email: 'not-an-address' },
        }),
        400,
        'validation_failed',
      );
      assert.equal(await findSite(t.deps.database.db, 'fresh'), undefined);
      assert.equal(await findUserByLogin(t.deps.database.db, 'fresh@example.test'), undefined);
      problem(await call('PATCH', '/workspaces/twice', { payload: { plan: 'platinum' } }), 422, 'unknown_plan');
      assert.equal((await findSite(t.deps.database.db, 'twice'))?.plan, 'pro');
      problem(await call('GET', '/workspaces/nothing'), 404, 'workspace_not_found');
      problem(await call('POST', '/workspaces/nothing/suspend'), 404, 'workspace_not_found');
      problem(await call('DELETE', '/workspaces/nothing'), 404, 'workspace_not_found');
    });

    it('lets a key reach only the workspaces it provisioned: others, console-made sites included, are 404', async () => {
      const reseller = await mintKey('other-reseller');
      const owner = await signIn(t.app, 'consoler');
      assert.equal(
        (await portal(t.app, owner, { method: 'POST', url: '/api/sites', payload: { id: 'handmade', kind: 'static' } }))
          .statusCode,
        201,
      );
      const before = await findSite(t.deps.database.db, 'twice');
      for (const [token, site] of [
        [reseller.token, 'twice'],
        [key, 'handmade'],
      ] as const) {
        problem(await call('GET', `/workspaces/${site}`, { token }), 404, 'workspace_not_found');
        problem(
          await call('PATCH', `/workspaces/${site}`, { token, payload: { plan: 'business' } }),
          404,
          'workspace_not_found',
        );
        problem(await call('POST', `/workspaces/${site}/suspend`, { token }), 404, 'workspace_not_found');
        problem(await call('POST', `/workspaces/${site}/resume`, { token }), 404, 'workspace_not_found');
        problem(await call('DELETE', `/workspaces/${site}`, { token }), 404, 'workspace_not_found');
      }
      assert.deepEqual(await findSite(t.deps.database.db, 'twice'), before, 'nothing changed');
      assert.equal((await findSite(t.deps.database.db, 'handmade'))?.status, 'active');
      assert.equal((await call('GET', '/workspaces/twice')).statusCode, 200, 'the provisioning key still reaches it');
      const log = json<Array<{ credential_id: string | null; target: string | null; status: number }>>(
        await portal(t.app, root, { method: 'GET', url: '/api/admin/audit-log?page_size=100' }),
      );
      assert.ok(log.some((e) => e.credential_id === reseller.id && e.target === 'twice' && e.status === 404));
    });

    it('suspends a static site on the edge fast path and its deploy API, then resumes it', async () => {
      // A workspace this key provisioned; its deploy token comes from the platform admin.
      const provisioned = await call('POST', '/workspaces', {
        payload: { site_id: 'shop', kind: 'static', plan: 'free', owner_email: 'stella@shops.test' },
      });
      assert.equal(provisioned.statusCode, 201, provisioned.body);
      const token = json<{ token: string }>(
        await portal(t.app, root, { method: 'POST', url: '/api/sites/shop/deploy-tokens', payload: { name: 'ci' } }),
      ).token;
      const release = await deployRelease(
        t.app,
        token,
        'shop',
        await siteArchive({ 'index.html': '<!doctype html><title>shop</title>' }),
      );
      assert.equal((await deployApi(t.app, token, 'POST', '/api/deploy/shop/promote', { release })).statusCode, 200);
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      const port = (t.app.server.address() as AddressInfo).port;
      const get = () =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const request = http.get(
            { host: '127.0.0.1', port, path: '/', headers: { host: 'shop.blume.test' }, agent: false },
            (response) => {
              let body = '';
              response.setEncoding('utf8');
              response.on('data', (chunk: string) => (body += chunk));
              response.on('end', () => resolve({ status: response.statusCode!, body }));
              response.on('error', reject);
            },
          );
          request.on('error', reject);
        });
      assert.equal((await get()).status, 200);
      assert.equal((await get()).status, 200, 'answered from the warm edge cache');
      assert.equal((await call('POST', '/workspaces/shop/suspend')).statusCode, 200);
      const refused = await get();
      assert.equal(refused.status, 503);
      assert.equal((JSON.parse(refused.body) as { code: string }).code, 'site_suspended');
      problem(await deployApi(t.app, token, 'GET', '/api/deploy/shop/releases'), 503, 'site_suspended');
      assert.equal((await call('POST', '/workspaces/shop/resume')).statusCode, 200);
      assert.equal((await get()).status, 200);
    });

    it('records every call in the audit log, which platform admins page through', async () => {
      const log = await portal(t.app, root, { method: 'GET', url: '/api/admin/audit-log?page_size=100' });
      assert.equal(log.statusCode, 200, log.body);
      const entries =
        json<
          Array<{ credential_id: string | null; method: string; path: string; target: string | null; status: number }>
        >(log);
      assert.ok(
        entries.some(
          (e) =>
            e.method === 'DELETE' &&
            e.path === `${BASE}/workspaces/guild` &&
            e.target === 'guild' &&
            e.status === 200 &&
            e.credential_id !== null,
        ),
      );
      assert.ok(
        entries.some(
          (e) => e.method === 'POST' && e.target === 'sneaky' && e.status === 401 && e.credential_id === null,
        ),
      );
      assert.ok(entries.some((e) => e.status === 422 && e.target === 'thrice'));
      const pagination = JSON.parse(String(log.headers['x-pagination'])) as { total: number };
      assert.equal(pagination.total, entries.length);
      const second = await portal(t.app, root, { method: 'GET', url: '/api/admin/audit-log?page=2&page_size=1' });
      assert.deepEqual(json<unknown[]>(second), [entries[1]]);
      const member = await signIn(t.app, 'nosy');
      assert.equal((await portal(t.app, member, { method: 'GET', url: '/api/admin/audit-log' })).statusCode, 403);
    });
  });

  describe(
    `purchase API on two nodes [${database}]`,
    { skip: redis ? false : 'cross-node invalidation needs TEST_REDIS_URL' },
    () => {
      let t: TestApp;
      let other: Awaited<ReturnType<typeof startSecondNode>>;
      let key: string;

      before(async () => {
        t = await buildTestApp({ database, cache: 'redis' });
        other = await startSecondNode(t);
        const root = await signIn(t.app, 'root', { admin: true });
        key = json<{ token: string }>(
          await portal(t.app, root, { method: 'POST', url: '/api/admin/purchase-keys', payload: { name: 'billing' } }),
        ).token;
      });
      after(async () => {
        await other.close();
        await t.close();
      });

      it('gates features and suspends at the next request on the other node', async () => {
        const call = (method: 'POST' | 'PATCH', path: string, payload?: Record<string, unknown>) =>
          portal(t.app, undefined, {
            method,
            url: `${BASE}${path}`,
            headers: { authorization: `Bearer ${key}` },
            ...(payload ? { payload } : {}),
          });
        assert.equal(
          (
            await call('POST', '/workspaces', {
              site_id: 'hall',
              kind: 'community',
              plan: 'pro',
              owner_email: 'hall@example.test',
            })
          ).statusCode,
          201,
        );
        const reader = await addMember(t.app, 'hall', 'rex');
        const list = async () => {
          await other.caughtUp();
          return forumApi(other.app, 'hall', reader.token, { method: 'GET', path: '/forums' });
        };
        assert.equal((await list()).statusCode, 200);
        assert.equal((await call('PATCH', '/workspaces/hall', { plan: 'free' })).statusCode, 200);
        assert.equal(json(await list()).code, 'plan_required');
        assert.equal((await call('PATCH', '/workspaces/hall', { plan: 'business' })).statusCode, 200);
        assert.equal((await list()).statusCode, 200);
        assert.equal((await call('POST', '/workspaces/hall/suspend')).statusCode, 200);
        assert.equal(json(await list()).code, 'site_suspended');
        assert.equal((await call('POST', '/workspaces/hall/resume')).statusCode, 200);
        assert.equal((await list()).statusCode, 200);
      });
    },
  );
}
