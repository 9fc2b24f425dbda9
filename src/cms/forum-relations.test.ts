// Relations from stored types to the forum's types: a relation must name a forum entry that exists,
// and `include=` shows it only as far as the caller may see it in the forum.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cmsApi, mintApiKey } from '../../test/factories/cms.js';
import { makeCommunity } from '../../test/factories/forum.js';
import { buildTestApp, json, signIn, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';

type Entry = { id: string; slug: string | null; data: Record<string, unknown> };

for (const database of testDatabases) {
  describe(`Content API relations to forum types [${database}]`, () => {
    let t: TestApp;
    let admin: string;
    let write: string;
    let read: string;
    let publicTopic: string;
    let staffTopic: string;
    let post: string;

    before(async () => {
      t = await buildTestApp({ database });
      const owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'club');
      admin = await mintApiKey(t.app, owner, 'club', ['admin']);
      write = await mintApiKey(t.app, owner, 'club', ['cms-write']);
      read = await mintApiKey(t.app, owner, 'club', ['cms-read']);
      await cms(write, 'POST', '/entries/forums', { slug: 'open', data: { name: 'Open' } });
      await cms(write, 'POST', '/entries/forums', { slug: 'staff', data: { name: 'Staff', visibility: 'staff' } });
      publicTopic = json<Entry>(
        await cms(write, 'POST', '/entries/topics', {
          data: { forum_id: 'open', title: 'Launch thread', body: 'Talk here' },
        }),
      ).id;
      staffTopic = json<Entry>(
        await cms(write, 'POST', '/entries/topics', {
          data: { forum_id: 'staff', title: 'Secret plans', body: 'Hush' },
        }),
      ).id;
      post = json<Entry>(
        await cms(write, 'POST', '/entries/posts', { data: { topic_id: publicTopic, body: 'A reply' } }),
      ).id;
    });
    after(() => t.close());

    function cms(key: string, method: string, path: string, payload?: object) {
      return cmsApi(t.app, 'club', key, { method: method as 'GET', path, ...(payload ? { payload } : {}) });
    }

    it('defines relations to forum types and refuses unknown targets', async () => {
      const created = await cms(admin, 'POST', '/content-types', {
        slug: 'releases',
        name: 'Releases',
        fields: [
          { name: 'title', type: 'text', required: true },
          { name: 'discussion', type: 'relation', options: { type: 'topics' } },
          { name: 'highlight', type: 'relation', options: { type: 'posts' } },
          { name: 'board', type: 'relation', options: { type: 'forums' } },
        ],
      });
      assert.equal(created.statusCode, 201, created.body);
      const bad = await cms(admin, 'POST', '/content-types', {
        slug: 'bad',
        name: 'Bad',
        fields: [{ name: 'x', type: 'relation', options: { type: 'threads' } }],
      });
      assert.equal(json(bad).code, 'invalid_content_type');
    });

    it('refuses a relation to a forum entry that does not exist, or by slug, and changes nothing', async () => {
      for (const data of [
        { title: 'x', discussion: 'nope' },
        { title: 'x', board: 'open' },
        { title: 'x', highlight: publicTopic },
      ]) {
        const response = await cms(write, 'POST', '/entries/releases', { status: 'published', data });
        assert.equal(response.statusCode, 422, JSON.stringify(data));
        assert.equal(json(response).code, 'relation_not_found');
      }
      assert.deepEqual(json<Entry[]>(await cms(write, 'GET', '/entries/releases?status=any')), []);
    });

    it('includes forum entries as the caller may see them in the forum', async () => {
      const forumId = json<Entry>(await cms(read, 'GET', '/entries/forums/open')).id;
      const shown = await cms(write, 'POST', '/entries/releases', {
        slug: 'v1',
        status: 'published',
        data: { title: 'v1', discussion: publicTopic, highlight: post, board: forumId },
      });
      assert.equal(shown.statusCode, 201, shown.body);
      await cms(write, 'POST', '/entries/releases', {
        slug: 'v2',
        status: 'published',
        data: { title: 'v2', discussion: staffTopic },
      });

      const v1 = json<Entry>(await cms(read, 'GET', '/entries/releases/v1?include=discussion,highlight,board'));
      assert.equal((v1.data.discussion as Entry).data.title, 'Launch thread');
      assert.equal((v1.data.highlight as Entry).data.body, 'A reply');
      assert.equal((v1.data.board as Entry).slug, 'open');

      // A staff-only topic: a published read sees what a forum guest sees, which is nothing.
      const list = json<Entry[]>(await cms(read, 'GET', '/entries/releases?include=discussion&sort=title'));
      assert.deepEqual(
        list.map((e) => [e.slug, (e.data.discussion as Entry | null)?.data.title ?? null]),
        [
          ['v1', 'Launch thread'],
          ['v2', null],
        ],
      );
      const asOwner = json<Entry>(await cms(write, 'GET', '/entries/releases/v2?include=discussion&status=any'));
      assert.equal((asOwner.data.discussion as Entry).data.title, 'Secret plans');
    });
  });
}
