// Notifications: replies to your topic or post, mentions and likes, for members who may see the
// topic; newest first, unread filter, marking read; nothing from a deleted post or a hidden forum.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addMember, forumApi, makeCommunity, mintForumToken, type ForumActor } from '../../test/factories/forum.js';
import { buildTestApp, json, signIn, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { MAX_MENTIONS, mentionedNames, NOTIFICATION_WINDOW } from './notifications.js';
import { forumNotifications } from './tables.js';

type Row = Record<string, unknown>;
interface Notice {
  id: string;
  kind: string;
  post_id: string;
  topic_id: string;
  actor: { username: string } | null;
  read: boolean;
}

describe('mentions in a post', () => {
  it('finds distinct names after @, not in e-mail addresses, at most MAX_MENTIONS', () => {
    assert.deepEqual(mentionedNames('Hi @Ann and @bob, @ann again; mail cy@example.test. (@dee.)'), [
      'ann',
      'bob',
      'dee',
    ]);
    const storm = Array.from({ length: 30 }, (_, i) => `@user${i}`).join(' ');
    assert.equal(mentionedNames(storm).length, MAX_MENTIONS);
  });
});

for (const database of testDatabases) {
  describe(`forum notifications [${database}]`, () => {
    let t: TestApp;
    let admin: string;
    let ann: ForumActor;
    let bob: ForumActor;
    let cy: ForumActor;
    const call = (token: string | undefined, method: 'GET' | 'POST' | 'DELETE', path: string, payload?: Row) =>
      forumApi(t.app, 'notes', token, { method, path, ...(payload ? { payload } : {}) });
    const notices = async (actor: ForumActor, query = '') =>
      json<Notice[]>(await call(actor.token, 'GET', `/notifications${query}`));
    const summary = async (actor: ForumActor) =>
      (await notices(actor)).map((row) => `${row.kind}:${row.actor?.username ?? '-'}`);

    before(async () => {
      t = await buildTestApp({ database, env: { BLUME_RATE_LOGIN_PER_MINUTE: '1000' } });
      const owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'notes');
      admin = await mintForumToken(t.app, 'notes', 'owner', owner.password);
      [ann, bob, cy] = await Promise.all([
        addMember(t.app, 'notes', 'ann'),
        addMember(t.app, 'notes', 'bob'),
        addMember(t.app, 'notes', 'cy'),
      ]);
      for (const [slug, visibility] of [
        ['open', 'public'],
        ['staff', 'staff'],
      ] as const) {
        assert.equal((await call(admin, 'POST', '/forums', { name: slug, slug, visibility })).statusCode, 201);
      }
    });
    after(() => t.close());

    it('tells the topic author of a reply, and mentioned members of a mention (not twice, never yourself)', async () => {
      const topic = json<{ id: string; first_post: { id: string } }>(
        await call(ann.token, 'POST', '/topics', { forum_id: 'open', title: 'Ideas', body: 'Share them' }),
      );
      await call(bob.token, 'POST', `/topics/${topic.id}/posts`, { body: 'One idea' });
      assert.deepEqual(await summary(ann), ['reply:bob']);
      await call(bob.token, 'POST', `/topics/${topic.id}/posts`, {
        body: 'What do @Cy and @ann think? And @bob, and @nobody?',
        parent_id: topic.first_post.id,
      });
      assert.deepEqual(await summary(ann), ['mention:bob', 'reply:bob'], 'a mention of the author is one notification');
      assert.deepEqual(await summary(cy), ['mention:bob']);
      assert.deepEqual(await summary(bob), [], 'nobody is told of their own post');
      const [mention] = await notices(cy);
      assert.equal(mention!.topic_id, topic.id);
      assert.equal(mention!.read, false);
    });

    it('does not tell members of posts in forums they cannot see', async () => {
      const staffTopic = json<{ id: string }>(
        await call(admin, 'POST', '/topics', { forum_id: 'staff', title: 'Staff', body: 'About @cy' }),
      );
      assert.ok(staffTopic.id);
      assert.deepEqual(await summary(cy), ['mention:bob']);
    });

    it('tells the author of a like once, however often it is taken back and given again', async () => {
      const [own] = json<Array<{ id: string; first_post: { id: string } }>>(
        await call(ann.token, 'GET', '/topics?forum_id=open'),
      );
      const posts = json<Array<{ id: string; author: { username: string } }>>(
        await call(ann.token, 'GET', `/topics/${own!.id}/posts`),
      );
      const bobsPost = posts.find((row) => row.author.username === 'bob')!;
      for (const method of ['POST', 'DELETE', 'POST'] as const)
        assert.equal((await call(cy.token, method, `/posts/${bobsPost.id}/like`)).statusCode, 200);
      assert.deepEqual(await summary(bob), ['like:cy']);
    });

    it('filters unread, marks read by id or all, and drops notices of deleted posts', async () => {
      const unread = await call(ann.token, 'GET', '/notifications?unread=true');
      assert.equal(JSON.parse(String(unread.headers['x-pagination'])).total, 2);
      const pastTheEnd = await call(ann.token, 'GET', '/notifications?unread=true&page=3');
      assert.deepEqual(json(pastTheEnd), []);
      assert.equal(
        JSON.parse(String(pastTheEnd.headers['x-pagination'])).total,
        2,
        'a page with no rows still counts the list',
      );
      const [newest] = json<Notice[]>(unread);
      assert.deepEqual(json(await call(ann.token, 'POST', '/notifications/read', { ids: [newest!.id, 'not-mine'] })), {
        unread_count: 1,
      });
      assert.deepEqual(
        (await notices(ann)).map((row) => row.read),
        [true, false],
      );
      assert.deepEqual(
        json(await call(bob.token, 'POST', '/notifications/read', { ids: [newest!.id] })),
        { unread_count: 1 },
        "another member's notice stays as it is",
      );
      assert.deepEqual(json(await call(ann.token, 'POST', '/notifications/read', {})), { unread_count: 0 });

      const [mention] = await notices(cy);
      assert.equal((await call(bob.token, 'DELETE', `/posts/${mention!.post_id}`)).statusCode, 204);
      assert.deepEqual(await summary(cy), []);
      assert.equal((await call(undefined, 'GET', '/notifications')).statusCode, 401);
    });

    it('lists and counts the newest NOTIFICATION_WINDOW notifications of a member, older ones drop out', async () => {
      const [topic] = json<Array<{ id: string }>>(await call(ann.token, 'GET', '/topics?forum_id=open'));
      const [post] = json<Array<{ id: string }>>(await call(ann.token, 'GET', `/topics/${topic!.id}/posts`));
      const dee = await addMember(t.app, 'notes', 'dee');
      const base = Date.now() - 3600_000;
      const rows = Array.from({ length: NOTIFICATION_WINDOW + 5 }, (_, i) => ({
        id: `w${String(i).padStart(15, '0')}`,
        siteId: 'notes',
        memberId: dee.member.id,
        kind: 'reply' as const,
        topicId: topic!.id,
        postId: post!.id,
        actorId: bob.member.id,
        readAt: i % 2 === 0 ? new Date() : null,
        createdAt: new Date(base + i * 1000),
      }));
      await t.app.deps.database.db.insert(forumNotifications).values(rows);
      const page = await call(dee.token, 'GET', '/notifications?page_size=100');
      assert.equal(JSON.parse(String(page.headers['x-pagination'])).total, NOTIFICATION_WINDOW);
      assert.equal(json<Notice[]>(page)[0]!.id, rows.at(-1)!.id, 'the newest first');
      const last = await call(dee.token, 'GET', `/notifications?page_size=100&page=${NOTIFICATION_WINDOW / 100}`);
      assert.equal(json<Notice[]>(last).at(-1)!.id, rows[5]!.id, 'the five oldest dropped out');
      const unread = await call(dee.token, 'GET', '/notifications?unread=true');
      assert.equal(
        JSON.parse(String(unread.headers['x-pagination'])).total,
        Math.floor((NOTIFICATION_WINDOW + 5) / 2),
        'every unread one: fewer than the window',
      );
    });
  });
}
