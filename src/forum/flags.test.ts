// Flags and the moderators' queue: members flag posts they can see (once, never their own), the
// queue is for staff only, and hiding or dismissing closes every open flag of the post.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addMember, forumApi, makeCommunity, mintForumToken, type ForumActor } from '../../test/factories/forum.js';
import { buildTestApp, json, signIn, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';

type Row = Record<string, unknown>;
interface Flag {
  id: string;
  post_id: string;
  reason: string;
  note: string | null;
  state: string;
  reporter: { username: string } | null;
  resolved_by: { username: string } | null;
  post: { body: string; deleted: boolean };
}

for (const database of testDatabases) {
  describe(`post flags and the moderation queue [${database}]`, () => {
    let t: TestApp;
    let admin: string;
    let ann: ForumActor;
    let bob: ForumActor;
    let cy: ForumActor;
    let mod: ForumActor;
    let topic: string;
    const call = (
      token: string | undefined,
      method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
      path: string,
      payload?: Row,
    ) => forumApi(t.app, 'flags', token, { method, path, ...(payload ? { payload } : {}) });
    const reply = async (actor: ForumActor, body: string) =>
      json<{ id: string }>(await call(actor.token, 'POST', `/topics/${topic}/posts`, { body })).id;
    const queue = async (token: string, state = 'open') =>
      json<Flag[]>(await call(token, 'GET', `/flags?state=${state}`));

    before(async () => {
      t = await buildTestApp({ database, env: { BLUME_RATE_LOGIN_PER_MINUTE: '1000' } });
      const owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'flags');
      admin = await mintForumToken(t.app, 'flags', 'owner', owner.password);
      [ann, bob, cy, mod] = await Promise.all([
        addMember(t.app, 'flags', 'ann'),
        addMember(t.app, 'flags', 'bob'),
        addMember(t.app, 'flags', 'cy'),
        addMember(t.app, 'flags', 'mod', 'moderator'),
      ]);
      for (const [slug, visibility] of [
        ['open', 'public'],
        ['staff', 'staff'],
      ] as const) {
        assert.equal((await call(admin, 'POST', '/forums', { name: slug, slug, visibility })).statusCode, 201);
      }
      topic = json<{ id: string }>(
        await call(admin, 'POST', '/topics', { forum_id: 'open', title: 'Open talk', body: 'Say hello' }),
      ).id;
    });
    after(() => t.close());

    it('takes a flag once per member and post, and shows it to moderators only', async () => {
      const spam = await reply(ann, 'Buy cheap things at spam.example');
      const flagged = await call(bob.token, 'POST', `/posts/${spam}/flags`, {
        reason: 'spam',
        note: '  Selling things  ',
      });
      assert.equal(flagged.statusCode, 201, flagged.body);
      const flag = json<Flag>(flagged);
      assert.deepEqual(
        [flag.post_id, flag.reason, flag.note, flag.state, flag.reporter?.username, flag.resolved_by],
        [spam, 'spam', 'Selling things', 'open', 'bob', null],
      );
      const again = await call(bob.token, 'POST', `/posts/${spam}/flags`, { reason: 'other' });
      assert.equal(again.statusCode, 409);
      assert.equal(json(again).code, 'already_flagged');
      assert.equal((await call(cy.token, 'POST', `/posts/${spam}/flags`, { reason: 'inappropriate' })).statusCode, 201);

      const forbidden = await call(bob.token, 'GET', '/flags');
      assert.equal(forbidden.statusCode, 403);
      const open = await queue(mod.token);
      assert.deepEqual(
        open.map((row) => [row.reporter?.username, row.reason]),
        [
          ['cy', 'inappropriate'],
          ['bob', 'spam'],
        ],
        'newest first',
      );
      assert.equal(open[0]!.post.body, 'Buy cheap things at spam.example');
    });

    it('refuses bad flags: your own post, a post you cannot see, an unknown reason, a guest', async () => {
      const own = await reply(ann, 'My own words');
      assert.equal(
        json(await call(ann.token, 'POST', `/posts/${own}/flags`, { reason: 'spam' })).code,
        'own_post_flag',
      );
      const staffTopic = json<{ first_post: { id: string } }>(
        await call(admin, 'POST', '/topics', { forum_id: 'staff', title: 'Staff', body: 'Hush' }),
      );
      const unseen = await call(bob.token, 'POST', `/posts/${staffTopic.first_post.id}/flags`, { reason: 'spam' });
      assert.equal(unseen.statusCode, 404);
      assert.equal(json(unseen).code, 'post_not_found');
      const badReason = await call(bob.token, 'POST', `/posts/${own}/flags`, { reason: 'boring' });
      assert.equal(badReason.statusCode, 400, badReason.body);
      assert.equal((await call(undefined, 'POST', `/posts/${own}/flags`, { reason: 'spam' })).statusCode, 401);
      assert.equal((await queue(mod.token)).length, 2, 'no refused flag reached the queue');
    });

    it('hides the post on a hide, closing every open flag of it; a dismissal leaves the post', async () => {
      const [first] = await queue(mod.token);
      const hidden = await call(mod.token, 'PATCH', `/flags/${first!.id}`, { action: 'hide' });
      assert.equal(hidden.statusCode, 200, hidden.body);
      assert.deepEqual(
        [json<Flag>(hidden).state, json<Flag>(hidden).resolved_by?.username, json<Flag>(hidden).post.deleted],
        ['hidden', 'mod', true],
      );
      assert.equal((await queue(mod.token)).length, 0, "the other member's flag of the same post closed too");
      assert.equal((await queue(mod.token, 'hidden')).length, 2);
      const posts = json<Array<{ id: string; body: string; deleted: boolean }>>(
        await call(bob.token, 'GET', `/topics/${topic}/posts`),
      );
      const gone = posts.find((row) => row.id === first!.post_id)!;
      assert.deepEqual([gone.deleted, gone.body], [true, '']);
      const twice = await call(mod.token, 'PATCH', `/flags/${first!.id}`, { action: 'dismiss' });
      assert.equal(twice.statusCode, 409);
      assert.equal(json(twice).code, 'flag_resolved');

      const fine = await reply(ann, 'A perfectly fine opinion');
      const flag = json<Flag>(await call(bob.token, 'POST', `/posts/${fine}/flags`, { reason: 'off_topic' }));
      assert.equal(
        json<Flag>(await call(admin, 'PATCH', `/flags/${flag.id}`, { action: 'dismiss' })).state,
        'dismissed',
      );
      assert.equal(
        json<Array<{ id: string; deleted: boolean }>>(await call(bob.token, 'GET', `/topics/${topic}/posts`)).find(
          (row) => row.id === fine,
        )!.deleted,
        false,
      );
      assert.equal((await call(bob.token, 'PATCH', `/flags/${flag.id}`, { action: 'hide' })).statusCode, 403);
      assert.equal(json(await call(mod.token, 'PATCH', '/flags/nope', { action: 'hide' })).code, 'flag_not_found');
    });
  });
}
