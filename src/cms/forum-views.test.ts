// The forum as content types: entries written through the Content API are the forum's own rows,
// written by its services (counters and lists stay right), and reads follow its visibility policy.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cmsApi, mintApiKey } from '../../test/factories/cms.js';
import { forumApi, makeCommunity, mintForumToken } from '../../test/factories/forum.js';
import { buildTestApp, json, signIn, type Actor, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';

type Entry = {
  id: string;
  type: string;
  slug: string | null;
  status: string;
  data: Record<string, unknown>;
  html?: Record<string, string>;
};

for (const database of testDatabases) {
  describe(`Content API forum views [${database}]`, () => {
    let t: TestApp;
    let owner: Actor;
    let write: string;
    let read: string;
    let forumToken: string;

    before(async () => {
      t = await buildTestApp({ database, env: { BLUME_RATE_LOGIN_PER_MINUTE: '1000' } });
      owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'club');
      write = await mintApiKey(t.app, owner, 'club', ['cms-write']);
      read = await mintApiKey(t.app, owner, 'club', ['cms-read']);
      forumToken = await mintForumToken(t.app, 'club', 'owner', owner.password);
    });
    after(() => t.close());

    const cms = (key: string, method: string, path: string, payload?: object) =>
      cmsApi(t.app, 'club', key, { method: method as 'GET', path, ...(payload ? { payload } : {}) });

    it('builds the structure, a topic and replies through the Content API, as the forum sees them', async () => {
      const category = await cms(write, 'POST', '/entries/categories', { slug: 'news', data: { name: 'News' } });
      assert.equal(category.statusCode, 201, category.body);
      const forum = await cms(write, 'POST', '/entries/forums', {
        slug: 'announcements',
        data: { name: 'Announcements', category_id: json<Entry>(category).id },
      });
      assert.equal(forum.statusCode, 201, forum.body);
      const topic = await cms(write, 'POST', '/entries/topics', {
        data: { forum_id: 'announcements', title: 'We launched', body: 'Read **all** about it' },
      });
      assert.equal(topic.statusCode, 201, topic.body);
      const topicId = json<Entry>(topic).id;
      const reply = await cms(write, 'POST', '/entries/posts', { data: { topic_id: topicId, body: 'First reply' } });
      assert.equal(reply.statusCode, 201, reply.body);
      assert.equal(json<Entry>(reply).html!.body, '<p>First reply</p>');

      // The forum's own API shows the same rows with its counters moved by its own writes.
      const seen = json<{ title: string; post_count: number; author: { username: string } }>(
        await forumApi(t.app, 'club', forumToken, { method: 'GET', path: `/topics/${topicId}` }),
      );
      assert.equal(seen.title, 'We launched');
      assert.equal(seen.post_count, 2);
      assert.equal(seen.author.username, 'owner');
      const forums = json<Entry[]>(await cms(read, 'GET', '/entries/forums'));
      assert.deepEqual(
        forums.map((f) => [f.slug, f.data.topic_count, f.data.post_count]),
        [['announcements', 1, 2]],
      );

      const posts = json<Entry[]>(await cms(read, 'GET', `/entries/posts?filter[topic_id]=${topicId}`));
      assert.deepEqual(
        posts.map((p) => p.data.body),
        ['Read **all** about it', 'First reply'],
      );
      assert.equal((await cms(write, 'DELETE', `/entries/posts/${json<Entry>(reply).id}`)).statusCode, 204);
      assert.equal(json<Entry[]>(await cms(read, 'GET', '/entries/forums'))[0]!.data.post_count, 1);

      const edited = await cms(write, 'PUT', `/entries/topics/${topicId}`, {
        data: { title: 'We launched!', pinned: true },
      });
      assert.equal(edited.statusCode, 200, edited.body);
      assert.equal(json<Entry>(await cms(read, 'GET', `/entries/topics/${topicId}`)).data.pinned, true);
    });

    it('reads follow the forum visibility policy: staff forums only with status=any', async () => {
      await cms(write, 'POST', '/entries/forums', {
        slug: 'backroom',
        data: { name: 'Backroom', visibility: 'staff' },
      });
      await cms(write, 'POST', '/entries/topics', {
        data: { forum_id: 'backroom', title: 'Staff only', body: 'psst' },
      });
      const guestView = json<Entry[]>(await cms(read, 'GET', '/entries/topics'));
      assert.deepEqual(
        guestView.map((x) => x.data.title),
        ['We launched!'],
      );
      const ownerView = json<Entry[]>(await cms(write, 'GET', '/entries/topics?status=any'));
      assert.deepEqual(ownerView.map((x) => x.data.title).sort(), ['Staff only', 'We launched!']);
      assert.equal((await cms(read, 'GET', '/entries/forums/backroom')).statusCode, 404);
    });

    it('answers bad forum input with codes and the forum rules', async () => {
      const cases: Array<[string, string, object | undefined, number, string]> = [
        [
          'POST',
          '/entries/topics',
          { data: { forum_id: 'announcements', title: 'x', colour: 'red' } },
          422,
          'unknown_field',
        ],
        ['POST', '/entries/topics', { data: { forum_id: 'announcements' } }, 422, 'invalid_field_value'],
        ['POST', '/entries/topics', { data: { forum_id: 'nope', title: 'x', body: 'y' } }, 404, 'forum_not_found'],
        ['POST', '/entries/posts', { data: { topic_id: 'nope', body: 'y' } }, 404, 'topic_not_found'],
        ['GET', '/entries/posts', undefined, 400, 'invalid_filter'],
        ['GET', '/entries/topics?filter[title]=x', undefined, 400, 'invalid_filter'],
        ['GET', '/entries/topics?sort=title', undefined, 400, 'invalid_filter'],
        ['POST', '/entries/forums', { slug: 'announcements', data: { name: 'Again' } }, 409, 'slug_taken'],
        ['PUT', '/content-types/topics', { name: 'x', fields: [] }, 403, 'scope_missing'],
      ];
      for (const [method, path, payload, status, code] of cases) {
        const response = await cms(write, method, path, payload);
        assert.equal(response.statusCode, status, `${method} ${path}: ${response.body}`);
        assert.equal(json(response).code, code, `${method} ${path}`);
      }
      const admin = await mintApiKey(t.app, owner, 'club', ['admin']);
      assert.equal(
        json(await cms(admin, 'PUT', '/content-types/topics', { name: 'x', fields: [] })).code,
        'builtin_type',
      );
      assert.equal(json(await cms(admin, 'DELETE', '/content-types/posts')).code, 'builtin_type');
    });
  });
}
