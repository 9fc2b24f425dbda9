// Likes: once per member and post, idempotent both ways, never on your own post or on a post you
// cannot see, and the count follows every way a like comes or goes (a deleted member's too).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addMember, forumApi, makeCommunity, mintForumToken, type ForumActor } from '../../test/factories/forum.js';
import { buildTestApp, json, signIn, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';

type Row = Record<string, unknown>;

for (const database of testDatabases) {
  describe(`post likes [${database}]`, () => {
    let t: TestApp;
    let admin: string;
    let ann: ForumActor;
    let bob: ForumActor;
    let post: string;
    let staffPost: string;
    const call = (
      token: string | undefined,
      method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
      path: string,
      payload?: Row,
    ) => forumApi(t.app, 'likes', token, { method, path, ...(payload ? { payload } : {}) });
    const like = (actor: ForumActor, id: string, method: 'POST' | 'DELETE' = 'POST') =>
      call(actor.token, method, `/posts/${id}/like`);

    before(async () => {
      t = await buildTestApp({ database, env: { BLUME_RATE_LOGIN_PER_MINUTE: '1000' } });
      const owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'likes');
      admin = await mintForumToken(t.app, 'likes', 'owner', owner.password);
      ann = await addMember(t.app, 'likes', 'ann');
      bob = await addMember(t.app, 'likes', 'bob');
      for (const [slug, visibility] of [
        ['open', 'public'],
        ['staff', 'staff'],
      ] as const) {
        assert.equal((await call(admin, 'POST', '/forums', { name: slug, slug, visibility })).statusCode, 201);
      }
      post = json<{ first_post: { id: string } }>(
        await call(ann.token, 'POST', '/topics', { forum_id: 'open', title: 'Likeable', body: 'Like me' }),
      ).first_post.id;
      staffPost = json<{ first_post: { id: string } }>(
        await call(admin, 'POST', '/topics', { forum_id: 'staff', title: 'Staff only', body: 'Hush' }),
      ).first_post.id;
    });
    after(() => t.close());

    const likeCountInList = async (): Promise<number> => {
      const topic = json<Array<{ id: string }>>(await call(admin, 'GET', '/topics?forum_id=open'))[0]!.id;
      return json<Array<{ id: string; like_count: number }>>(await call(admin, 'GET', `/topics/${topic}/posts`)).find(
        (row) => row.id === post,
      )!.like_count;
    };

    it('counts one like per member, idempotently both ways, and shows the count on the post', async () => {
      assert.deepEqual(json(await like(bob, post)), { like_count: 1, liked: true });
      assert.deepEqual(json(await like(bob, post)), { like_count: 1, liked: true }, 'a second like changes nothing');
      const adminLike = await call(admin, 'POST', `/posts/${post}/like`);
      assert.equal(adminLike.statusCode, 200, adminLike.body);
      assert.deepEqual(json(adminLike), { like_count: 2, liked: true });
      assert.equal(await likeCountInList(), 2);
      assert.deepEqual(json(await like(bob, post, 'DELETE')), { like_count: 1, liked: false });
      assert.deepEqual(
        json(await like(bob, post, 'DELETE')),
        { like_count: 1, liked: false },
        'a second unlike changes nothing',
      );
      assert.equal(await likeCountInList(), 1);
    });

    it('refuses your own post, a post you cannot see, a deleted post and a guest', async () => {
      const own = await like(ann, post);
      assert.equal(own.statusCode, 403);
      assert.equal(json(own).code, 'own_post_like');
      for (const id of [staffPost, 'nope']) {
        const hidden = await like(bob, id);
        assert.equal(hidden.statusCode, 404, hidden.body);
        assert.equal(json(hidden).code, 'post_not_found');
      }
      assert.equal(
        (await call(admin, 'POST', `/posts/${staffPost}/like`)).statusCode,
        403,
        "the admin wrote it: it is the admin's own",
      );
      const guest = await call(undefined, 'POST', `/posts/${post}/like`);
      assert.equal(guest.statusCode, 401);
      const topic = json<Array<{ id: string }>>(await call(admin, 'GET', '/topics?forum_id=open'))[0]!.id;
      const gone = json<{ id: string }>(
        await call(ann.token, 'POST', `/topics/${topic}/posts`, { body: 'Soon gone' }),
      ).id;
      assert.equal((await call(ann.token, 'DELETE', `/posts/${gone}`)).statusCode, 204);
      assert.equal(json(await like(bob, gone)).code, 'post_not_found');
    });

    it("drops a deleted member's likes from the count", async () => {
      const cy = await addMember(t.app, 'likes', 'cy');
      assert.deepEqual(json(await like(cy, post)), { like_count: 2, liked: true });
      assert.equal((await call(admin, 'DELETE', `/members/${cy.member.id}`)).statusCode, 204);
      assert.equal(await likeCountInList(), 1);
    });
  });
}
