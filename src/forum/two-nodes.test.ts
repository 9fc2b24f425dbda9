// Two app nodes on one database and one Redis. Each node keeps the plan matrix in memory; forum
// tokens, members and forums are read per request. Whatever one node changes, the other's very next
// Forum API request obeys (docs/decisions/0021-forum-request-path.md).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addMember, forumApi, makeCommunity, mintForumToken, type ForumActor } from '../../test/factories/forum.js';
import { buildTwoNodes, caughtUp, json, operationsOf, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { runOperation } from '../cli/operations.js';
import { parseCredential } from '../core/credentials/service.js';

const redis = Boolean(process.env.TEST_REDIS_URL);

for (const database of testDatabases) {
  describe(
    `forum API on two nodes [${database}]`,
    { skip: redis ? false : 'cross-node invalidation needs TEST_REDIS_URL' },
    () => {
      let close: () => Promise<void>;
      let a: TestApp;
      let b: TestApp;
      let admin: ForumActor;

      const list = (node: TestApp, token: string) =>
        forumApi(node.app, 'club', token, { method: 'GET', path: '/topics?forum_id=general' });
      const asAdmin = (method: 'POST' | 'PATCH' | 'DELETE', path: string, payload?: Record<string, unknown>) =>
        forumApi(a.app, 'club', admin.token, { method, path, ...(payload ? { payload } : {}) });
      const total = (response: { headers: Record<string, unknown> }): number =>
        (JSON.parse(String(response.headers['x-pagination'])) as { total: number }).total;

      before(async () => {
        ({ a, b, close } = await buildTwoNodes(database));
        await makeCommunity(a.app, null, 'club', 'pro');
        admin = await addMember(a.app, 'club', 'ada', 'admin');
        assert.equal((await asAdmin('POST', '/forums', { name: 'General', slug: 'general' })).statusCode, 201);
        for (const title of ['Open', 'Hidden']) {
          const created = await asAdmin('POST', '/topics', { forum_id: 'general', title, body: `${title} body` });
          assert.equal(created.statusCode, 201, created.body);
          if (title === 'Hidden')
            assert.equal(
              (await asAdmin('PATCH', `/topics/${json<{ id: string }>(created).id}`, { hidden: true })).statusCode,
              200,
            );
        }
      });
      after(async () => {
        await close();
      });

      it('gates the next request on the other node by a plan change made on one (blume plan-feature)', async () => {
        const reader = await addMember(a.app, 'club', 'paul');
        assert.equal((await list(b, reader.token)).statusCode, 200);
        // As `blume plan-feature forum_api business` does, in the server or in a process of its own.
        const operations = operationsOf(a.app);
        assert.equal(
          await runOperation(operations, 'plan-feature', { feature: 'forum_api', plans: 'business' }),
          'forum_api is now on business.',
        );
        await caughtUp(b.cache);
        const gated = await list(b, reader.token);
        assert.equal(gated.statusCode, 403, gated.body);
        assert.equal(json(gated).code, 'plan_required');
        await runOperation(operations, 'plan-feature', { feature: 'forum_api', plans: 'pro,business' });
        await caughtUp(b.cache);
        assert.equal((await list(b, reader.token)).statusCode, 200);
      });

      it('moves a site to a plan on one node, obeyed by the next request on the other (blume plan set)', async () => {
        const reader = await addMember(a.app, 'club', 'pia');
        assert.equal((await list(b, reader.token)).statusCode, 200);
        const operations = operationsOf(a.app);
        assert.equal(
          await runOperation(operations, 'plan-set', { site: 'club', plan: 'free' }),
          'Site "club" is now on the free plan (was pro), on every node from its next request on.',
        );
        await caughtUp(b.cache);
        const gated = await list(b, reader.token);
        assert.equal(gated.statusCode, 403, gated.body);
        const problem = json<{ code: string; detail: string; plans: string[] }>(gated);
        assert.equal(problem.code, 'plan_required');
        assert.deepEqual(problem.plans, ['pro', 'business']);
        assert.match(
          problem.detail,
          /in the console \(\/admin\/sites\), with `blume plan set club pro`, or through the purchase API/,
        );
        await assert.rejects(
          runOperation(operations, 'plan-set', { site: 'club', plan: 'gold' }),
          /unknown plan "gold"; plans are free, pro, business/,
        );
        await assert.rejects(
          runOperation(operations, 'plan-set', { site: 'nowhere', plan: 'pro' }),
          /no site "nowhere"/,
        );
        await runOperation(operations, 'plan-set', { site: 'club', plan: 'pro' });
        await caughtUp(b.cache);
        assert.equal((await list(b, reader.token)).statusCode, 200);
      });

      it('refuses a token revoked on one node at the next request on the other', async () => {
        const reader = await addMember(a.app, 'club', 'rita');
        const second = await mintForumToken(a.app, 'club', 'rita', reader.password);
        assert.equal((await list(b, second)).statusCode, 200);
        const revoked = await forumApi(a.app, 'club', reader.token, {
          method: 'DELETE',
          path: `/auth/tokens/${parseCredential(second)!.id}`,
        });
        assert.equal(revoked.statusCode, 204, revoked.body);
        assert.equal((await list(b, second)).statusCode, 401);
        assert.equal((await list(b, reader.token)).statusCode, 200);
      });

      it('applies a role change and a ban made on one node at the next request on the other', async () => {
        const reader = await addMember(a.app, 'club', 'mo');
        assert.equal(total(await list(b, reader.token)), 1);
        assert.equal((await asAdmin('PATCH', `/members/${reader.member.id}`, { role: 'moderator' })).statusCode, 200);
        assert.equal(total(await list(b, reader.token)), 2, 'a moderator sees the hidden topic');
        assert.equal((await asAdmin('PATCH', `/members/${reader.member.id}`, { banned: true })).statusCode, 200);
        const banned = await list(b, reader.token);
        assert.equal(banned.statusCode, 403, banned.body);
        assert.equal(json(banned).code, 'member_banned');
      });

      it('hides a forum made staff-only on one node from the next list on the other', async () => {
        const reader = await addMember(a.app, 'club', 'vera');
        assert.equal((await list(b, reader.token)).statusCode, 200);
        assert.equal((await asAdmin('PATCH', '/forums/general', { visibility: 'staff' })).statusCode, 200);
        const hidden = await list(b, reader.token);
        assert.equal(hidden.statusCode, 404, hidden.body);
        assert.equal(json(hidden).code, 'forum_not_found');
        assert.equal((await asAdmin('PATCH', '/forums/general', { visibility: 'public' })).statusCode, 200);
        assert.equal(total(await list(b, reader.token)), 1);
      });
    },
  );
}
