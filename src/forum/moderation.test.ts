// Warnings, suspensions and the moderation log: from the flag queue and on a member; a suspended
// member's old token answers 403 `member_suspended`; the log is for moderators only.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addMember, forumApi, makeCommunity, mintForumToken, type ForumActor } from '../../test/factories/forum.js';
import { buildTestApp, json, signIn, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';

type Row = Record<string, unknown>;
interface LogRow {
  action: string;
  moderator: { username: string } | null;
  member: { id: string | null; username: string } | null;
  post_id: string | null;
  flag_id: string | null;
  reason: string | null;
  until: string | null;
}

for (const database of testDatabases) {
  describe(`warnings, suspensions and the moderation log [${database}]`, () => {
    let t: TestApp;
    let admin: string;
    let ann: ForumActor;
    let bob: ForumActor;
    let mod: ForumActor;
    let mod2: ForumActor;
    let topic: string;
    const call = (
      token: string | undefined,
      method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
      path: string,
      payload?: Row,
    ) => forumApi(t.app, 'modr', token, { method, path, ...(payload ? { payload } : {}) });
    const reply = async (actor: ForumActor, body: string) =>
      json<{ id: string }>(await call(actor.token, 'POST', `/topics/${topic}/posts`, { body })).id;
    const log = async (query = '') => json<LogRow[]>(await call(mod.token, 'GET', `/moderation-log${query}`));

    before(async () => {
      t = await buildTestApp({ database, env: { BLUME_RATE_LOGIN_PER_MINUTE: '1000' } });
      const owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'modr');
      admin = await mintForumToken(t.app, 'modr', 'owner', owner.password);
      [ann, bob, mod, mod2] = await Promise.all([
        addMember(t.app, 'modr', 'ann'),
        addMember(t.app, 'modr', 'bob'),
        addMember(t.app, 'modr', 'mod', 'moderator'),
        addMember(t.app, 'modr', 'mod2', 'moderator'),
      ]);
      assert.equal(
        (await call(admin, 'POST', '/forums', { name: 'open', slug: 'open', visibility: 'public' })).statusCode,
        201,
      );
      topic = json<{ id: string }>(
        await call(admin, 'POST', '/topics', { forum_id: 'open', title: 'Open talk', body: 'Say hello' }),
      ).id;
    });
    after(() => t.close());

    it('warns the author from the flag queue: the post is hidden, the member sees the warning until it acknowledges it', async () => {
      const rude = await reply(ann, 'You are all fools');
      const flag = json<{ id: string }>(
        await call(bob.token, 'POST', `/posts/${rude}/flags`, { reason: 'inappropriate', note: 'Insults' }),
      );
      const noReason = await call(mod.token, 'PATCH', `/flags/${flag.id}`, { action: 'warn' });
      assert.equal(noReason.statusCode, 422, noReason.body);
      assert.equal(json(noReason).code, 'reason_required');
      const warned = await call(mod.token, 'PATCH', `/flags/${flag.id}`, {
        action: 'warn',
        reason: 'Please keep it civil.',
      });
      assert.equal(warned.statusCode, 200, warned.body);
      assert.deepEqual([json<Row>(warned).state, (json<Row>(warned).post as Row).deleted], ['hidden', true]);

      const warnings = json<Array<{ id: string; reason: string; post_id: string; acknowledged_at: string | null }>>(
        await call(ann.token, 'GET', '/warnings?unacknowledged=true'),
      );
      assert.deepEqual(
        warnings.map((w) => [w.reason, w.post_id, w.acknowledged_at]),
        [['Please keep it civil.', rude, null]],
      );
      assert.deepEqual(
        json<unknown[]>(await call(bob.token, 'GET', '/warnings')),
        [],
        "another member sees none of ann's warnings",
      );
      assert.equal(
        json(await call(bob.token, 'POST', `/warnings/${warnings[0]!.id}/acknowledge`)).code,
        'warning_not_found',
      );
      const acknowledged = await call(ann.token, 'POST', `/warnings/${warnings[0]!.id}/acknowledge`);
      assert.equal(acknowledged.statusCode, 200, acknowledged.body);
      assert.deepEqual(json<unknown[]>(await call(ann.token, 'GET', '/warnings?unacknowledged=true')), []);
      assert.equal(
        json<unknown[]>(await call(ann.token, 'GET', '/warnings')).length,
        1,
        'the warning stays in the member’s record',
      );

      const [warn, hide] = await log();
      assert.deepEqual(
        [warn!.action, warn!.moderator?.username, warn!.member?.username, warn!.post_id, warn!.flag_id, warn!.reason],
        ['warn', 'mod', 'ann', rude, flag.id, 'Please keep it civil.'],
      );
      assert.deepEqual([hide!.action, hide!.member?.username, hide!.reason], ['hide', 'ann', 'inappropriate: Insults']);
    });

    it("suspends the author from the flag queue: the member's old token answers 403 member_suspended until the end", async () => {
      const spam = await reply(ann, 'Buy things');
      const flag = json<{ id: string }>(await call(bob.token, 'POST', `/posts/${spam}/flags`, { reason: 'spam' }));
      const past = await call(mod.token, 'PATCH', `/flags/${flag.id}`, {
        action: 'suspend',
        reason: 'Spam',
        until: '2001-01-01T00:00:00Z',
      });
      assert.equal(json(past).code, 'invalid_suspension_end');
      const until = new Date(Date.now() + 3 * 86_400_000).toISOString();
      const suspended = await call(mod.token, 'PATCH', `/flags/${flag.id}`, {
        action: 'suspend',
        reason: 'Spam again',
        until,
      });
      assert.equal(suspended.statusCode, 200, suspended.body);

      for (const [method, path] of [
        ['GET', '/forums'],
        ['POST', `/topics/${topic}/posts`],
      ] as const) {
        const refused = await call(ann.token, method, path, method === 'POST' ? { body: 'Still here' } : undefined);
        assert.equal(refused.statusCode, 403, refused.body);
        assert.match(refused.headers['content-type'] as string, /application\/problem\+json/);
        const problem = json<Row>(refused);
        assert.deepEqual(
          [problem.code, problem.suspended_until, problem.reason],
          ['member_suspended', until, 'Spam again'],
        );
      }
      const mint = await forumApi(t.app, 'modr', undefined, {
        method: 'POST',
        path: '/auth/tokens',
        payload: { login: 'ann', password: ann.password },
      });
      assert.equal(json(mint).code, 'member_suspended', 'no new token either');

      const members = json<Array<{ username: string; suspension: Row | null; trust_level: number }>>(
        await call(admin, 'GET', '/members?page_size=100'),
      );
      assert.deepEqual(members.find((m) => m.username === 'ann')!.suspension, { until, reason: 'Spam again' });
      assert.equal((await log('?action=suspend'))[0]!.until, until);
    });

    it('warns, suspends indefinitely and lifts on a member; the same powers as bans', async () => {
      const warned = await call(mod.token, 'POST', `/members/${bob.member.id}/warnings`, { reason: 'Mind the rules' });
      assert.equal(warned.statusCode, 201, warned.body);
      assert.equal(json<LogRow>(warned).member?.username, 'bob');
      assert.equal(
        json(await call(bob.token, 'POST', `/members/${ann.member.id}/warnings`, { reason: 'x' })).code,
        'forbidden',
      );
      assert.equal(
        (await call(mod.token, 'PUT', `/members/${mod2.member.id}/suspension`, { reason: 'Rogue' })).statusCode,
        403,
        'moderators do not suspend moderators',
      );
      assert.equal(
        (await call(mod.token, 'PUT', `/members/${mod.member.id}/suspension`, { reason: 'Me' })).statusCode,
        403,
        'nor themselves',
      );
      assert.equal(
        json(await call(mod.token, 'PUT', '/members/nobody/suspension', { reason: 'x' })).code,
        'member_not_found',
      );

      const suspended = await call(mod.token, 'PUT', `/members/${bob.member.id}/suspension`, { reason: 'Cool off' });
      assert.equal(suspended.statusCode, 200, suspended.body);
      assert.deepEqual(json<Row>(suspended).suspension, { until: null, reason: 'Cool off' });
      const refused = await call(bob.token, 'GET', '/notifications');
      assert.deepEqual(
        [refused.statusCode, json<Row>(refused).code, json<Row>(refused).suspended_until],
        [403, 'member_suspended', null],
      );

      assert.equal((await call(mod.token, 'DELETE', `/members/${bob.member.id}/suspension`)).statusCode, 200);
      assert.equal(
        (await call(bob.token, 'GET', '/notifications')).statusCode,
        200,
        'the old token works again once lifted',
      );
      assert.equal(json(await call(mod.token, 'DELETE', `/members/${bob.member.id}/suspension`)).code, 'not_suspended');

      const bobs = await log(`?member_id=${bob.member.id}`);
      assert.deepEqual(
        bobs.map((row) => [row.action, row.moderator?.username, row.reason]),
        [
          ['unsuspend', 'mod', null],
          ['suspend', 'mod', 'Cool off'],
          ['warn', 'mod', 'Mind the rules'],
        ],
      );
    });

    it('shows the log to moderators and admins only', async () => {
      assert.equal((await call(bob.token, 'GET', '/moderation-log')).statusCode, 403);
      assert.equal((await call(undefined, 'GET', '/moderation-log')).statusCode, 401);
      const all = json<LogRow[]>(await call(admin, 'GET', '/moderation-log?page_size=100'));
      assert.equal(all.length, 7);
    });
  });
}
