// The trust ladder and the first-post hold in the Forum API: a new member's first post waits for a
// moderator and shows nowhere else, approving publishes it as its author; a new member's links are
// text and its uploads refused until it has read and posted enough, and then its links show; new
// members spend a smaller hourly budget.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addMember, forumApi, makeCommunity, mintForumToken, type ForumActor } from '../../test/factories/forum.js';
import { multipartBody } from '../../test/helpers/archives.js';
import { buildTestApp, json, portal, signIn, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { createMember } from './members.js';

type Row = Record<string, unknown>;
interface Held {
  id: string;
  state: string;
  kind: string;
  title: string | null;
  topic_id: string | null;
  body: string;
  author: { username: string };
}

for (const database of testDatabases) {
  describe(`trust ladder and first-post hold [${database}]`, () => {
    let t: TestApp;
    let admin: string;
    let old: ForumActor;
    let mod: ForumActor;
    let topic: string;
    const call = (token: string | undefined, method: 'GET' | 'POST' | 'PATCH', path: string, payload?: Row) =>
      forumApi(t.app, 'trust', token, { method, path, ...(payload ? { payload } : {}) });
    /** A member as sign-up makes one: trust level 0. */
    const newcomer = async (username: string): Promise<ForumActor> => {
      const password = `pw-${username}-0123456789`;
      const member = await createMember(t.app.deps.database.db, 'trust', {
        username,
        email: `${username}@members.test`,
        password,
        trustLevel: 0,
      });
      return { member, password, token: await mintForumToken(t.app, 'trust', username, password) };
    };
    const trustOf = async (username: string) =>
      json<Array<{ username: string; trust_level: number }>>(await call(admin, 'GET', '/members?page_size=100')).find(
        (m) => m.username === username,
      )!.trust_level;

    before(async () => {
      t = await buildTestApp({ database, env: { BLUME_RATE_LOGIN_PER_MINUTE: '1000' } });
      const owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'trust');
      const settings = {
        FORUM_HOLD_FIRST_POSTS: 'true',
        FORUM_TRUST_MIN_POSTS: '2',
        FORUM_TRUST_MIN_TOPICS_READ: '2',
        FORUM_NEW_MEMBER_POSTS_PER_HOUR: '4',
      };
      assert.equal(
        (await portal(t.app, owner, { method: 'PUT', url: '/api/instances/trust/env', payload: settings })).statusCode,
        200,
      );
      assert.equal(
        (await portal(t.app, owner, { method: 'POST', url: '/api/instances/trust/restart' })).statusCode,
        200,
      );
      admin = await mintForumToken(t.app, 'trust', 'owner', owner.password);
      [old, mod] = await Promise.all([addMember(t.app, 'trust', 'old'), addMember(t.app, 'trust', 'mod', 'moderator')]);
      assert.equal((await call(admin, 'POST', '/forums', { name: 'General', slug: 'general' })).statusCode, 201);
      topic = json<{ id: string }>(
        await call(admin, 'POST', '/topics', { forum_id: 'general', title: 'Welcome', body: 'Say hello' }),
      ).id;
    });
    after(() => t.close());

    it("holds a member's first topic where only it and moderators read it; approving publishes it as its author", async () => {
      const nia = await newcomer('nia');
      const posted = await call(nia.token, 'POST', '/topics', {
        forum_id: 'general',
        title: 'Quokka facts',
        body: 'Quokkas smile zzheldword',
      });
      assert.equal(posted.statusCode, 202, posted.body);
      const held = json<Held>(posted);
      assert.deepEqual(
        [held.state, held.kind, held.title, held.author.username],
        ['held', 'topic', 'Quokka facts', 'nia'],
      );

      const titles = async (token: string) =>
        json<Array<{ title: string }>>(await call(token, 'GET', '/topics?page_size=100')).map((row) => row.title);
      for (const token of [old.token, mod.token, nia.token])
        assert.ok(!(await titles(token)).includes('Quokka facts'), 'no topic list shows a held post');
      assert.deepEqual(json<unknown[]>(await call(old.token, 'GET', '/search?q=zzheldword')), []);
      assert.deepEqual(
        json<unknown[]>(await call(old.token, 'GET', '/held-posts')),
        [],
        'other members see nothing of it',
      );
      assert.deepEqual(
        json<Held[]>(await call(nia.token, 'GET', '/held-posts')).map((row) => row.id),
        [held.id],
      );
      assert.deepEqual(
        json<Held[]>(await call(mod.token, 'GET', '/held-posts')).map((row) => row.id),
        [held.id],
      );
      assert.equal((await call(old.token, 'PATCH', `/held-posts/${held.id}`, { action: 'approve' })).statusCode, 403);

      const approved = await call(mod.token, 'PATCH', `/held-posts/${held.id}`, { action: 'approve' });
      assert.equal(approved.statusCode, 200, approved.body);
      const { post_id: postId, topic_id: topicId } = json<{ post_id: string; topic_id: string }>(approved);
      const shown = json<{ title: string; author: { username: string } }>(
        await call(old.token, 'GET', `/topics/${topicId}`),
      );
      assert.deepEqual([shown.title, shown.author.username], ['Quokka facts', 'nia']);
      assert.equal(json<unknown[]>(await call(old.token, 'GET', '/search?q=zzheldword')).length, 1);
      assert.equal(
        json(await call(mod.token, 'PATCH', `/held-posts/${held.id}`, { action: 'reject' })).code,
        'held_post_not_found',
        'decided once',
      );

      const next = await call(nia.token, 'POST', `/topics/${topic}/posts`, { body: 'Now I post at once' });
      assert.equal(next.statusCode, 201, 'only the first post waits');
      const [approval] = json<Array<{ action: string; member: { username: string }; post_id: string }>>(
        await call(mod.token, 'GET', '/moderation-log?action=approve'),
      );
      assert.deepEqual([approval!.member.username, approval!.post_id], ['nia', postId]);
    });

    it('deletes a rejected reply; a staff member or a member with posts is never held', async () => {
      const ray = await newcomer('ray');
      const held = json<Held>(await call(ray.token, 'POST', `/topics/${topic}/posts`, { body: 'Visit my shop' }));
      assert.deepEqual([held.kind, held.topic_id], ['reply', topic]);
      assert.equal(
        (await call(mod.token, 'PATCH', `/held-posts/${held.id}`, { action: 'reject', reason: 'Advertising' }))
          .statusCode,
        200,
      );
      assert.deepEqual(json<unknown[]>(await call(ray.token, 'GET', '/held-posts')), []);
      const posts = json<Array<{ body: string }>>(await call(old.token, 'GET', `/topics/${topic}/posts?page_size=100`));
      assert.ok(!posts.some((post) => post.body === 'Visit my shop'));
      assert.equal(
        (await call(mod.token, 'POST', `/topics/${topic}/posts`, { body: 'Staff first post' })).statusCode,
        201,
      );
      const [rejection] = json<Array<{ reason: string; member: { username: string } }>>(
        await call(mod.token, 'GET', '/moderation-log?action=reject'),
      );
      assert.deepEqual([rejection!.member.username, rejection!.reason], ['ray', 'Advertising']);
    });

    it("shows a new member's links as text and refuses its uploads until it has read and posted enough; then its links show", async () => {
      const liz = await newcomer('liz');
      const first = json<Held>(await call(liz.token, 'POST', `/topics/${topic}/posts`, { body: 'Hello' }));
      await call(mod.token, 'PATCH', `/held-posts/${first.id}`, { action: 'approve' });
      const linked = await call(liz.token, 'POST', `/topics/${topic}/posts`, {
        body: 'See [my site](https://liz.example) and ![cat](https://liz.example/cat.png) and https://bare.example',
      });
      assert.equal(linked.statusCode, 201, linked.body);
      const html = json<{ id: string; body_html: string }>(linked);
      assert.doesNotMatch(html.body_html, /<a |<img /);
      assert.match(html.body_html, /See my site and cat and https:\/\/bare\.example/);
      const file = multipartBody('file', Buffer.from('notes'), 'notes.txt', 'text/plain');
      const refused = await forumApi(t.app, 'trust', liz.token, {
        method: 'POST',
        path: '/uploads',
        payload: file.payload,
        headers: file.headers,
      });
      assert.equal(refused.statusCode, 403, refused.body);
      assert.equal(json(refused).code, 'trust_required');
      assert.equal(await trustOf('liz'), 0, 'two posts, but no topic read yet');

      const posts = json<Array<{ id: string }>>(await call(liz.token, 'GET', `/topics/${topic}/posts?page_size=100`));
      const welcome = json<{ id: string; first_post: { id: string } }>(
        await call(admin, 'POST', '/topics', { forum_id: 'general', title: 'Second', body: 'More' }),
      );
      await call(liz.token, 'POST', `/topics/${topic}/read`, { post_id: posts.at(-1)!.id });
      await call(liz.token, 'POST', `/topics/${welcome.id}/read`, { post_id: welcome.first_post.id });
      // The next request of the member promotes it.
      assert.equal((await call(liz.token, 'GET', '/notifications')).statusCode, 200);
      assert.equal(await trustOf('liz'), 1);
      const again = json<Array<{ id: string; body_html: string }>>(
        await call(old.token, 'GET', `/topics/${topic}/posts?page_size=100`),
      ).find((post) => post.id === html.id)!;
      assert.match(
        again.body_html,
        /<a href="https:\/\/liz\.example" rel="nofollow ugc noopener noreferrer">my site<\/a>/,
        'its earlier links show now',
      );
      assert.match(again.body_html, /<img src="https:\/\/liz\.example\/cat\.png" alt="cat" \/>/);
      const upload = await forumApi(t.app, 'trust', liz.token, {
        method: 'POST',
        path: '/uploads',
        payload: file.payload,
        headers: file.headers,
      });
      assert.equal(upload.statusCode, 201, upload.body);
    });

    it('gives new members a smaller hourly budget (FORUM_NEW_MEMBER_POSTS_PER_HOUR)', async () => {
      const kit = await newcomer('kit');
      for (let i = 1; i <= 4; i++)
        assert.equal((await call(kit.token, 'POST', `/topics/${topic}/posts`, { body: `Post ${i}` })).statusCode, 202);
      const fifth = await call(kit.token, 'POST', `/topics/${topic}/posts`, { body: 'Post 5' });
      assert.equal(fifth.statusCode, 429, fifth.body);
      assert.match(json<{ detail: string }>(fifth).detail, /At most 4 posts of a new member per 3600 s/);
      const first = json<Held>(await call(old.token, 'POST', `/topics/${topic}/posts`, { body: 'My first' }));
      await call(mod.token, 'PATCH', `/held-posts/${first.id}`, { action: 'approve' });
      for (let i = 1; i <= 5; i++)
        assert.equal(
          (await call(old.token, 'POST', `/topics/${topic}/posts`, { body: `Old ${i}` })).statusCode,
          201,
          'trusted members are not bound by it',
        );
    });
  });
}
