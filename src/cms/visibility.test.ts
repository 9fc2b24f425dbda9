// Walks every Content API read as a guest, a cms-read key and a cms-write key (default status) and
// checks that no draft, scheduled entry or restricted forum content leaks: no title, slug or body
// marker word appears. The same walk with `status=any` must find them, so the walk can fail. Then
// the community's editor (/admin/content) as a content editor who is a plain member and one who is
// a moderator: each sees the forum views as their own forum token does.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cmsApi, mintApiKey } from '../../test/factories/cms.js';
import { addMember, communityHost, forumApi, makeCommunity, mintForumToken } from '../../test/factories/forum.js';
import { buildTestApp, json, portal, signIn, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { UiClient } from '../../test/helpers/forum-ui.js';
import { addEditor } from './editors.js';

const MARKERS = ['draftword', 'draftslug', 'laterword', 'laterslug', 'staffforumword', 'staffslug', 'hiddentopicword'];

for (const database of testDatabases) {
  describe(`Content API visibility walk [${database}]`, () => {
    let t: TestApp;
    const keys: Record<string, string> = {};
    const ids: string[] = [];

    before(async () => {
      t = await buildTestApp({ database, env: { BLUME_RATE_LOGIN_PER_MINUTE: '1000' } });
      const owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'site');
      keys.read = await mintApiKey(t.app, owner, 'site', ['cms-read']);
      keys.write = await mintApiKey(t.app, owner, 'site', ['cms-write']);
      keys.admin = await mintApiKey(t.app, owner, 'site', ['admin']);
      const cms = (method: string, path: string, payload: unknown) =>
        cmsApi(t.app, 'site', keys.admin, { method: method as 'POST', path, payload: payload as object });
      await cms('POST', '/content-types', {
        slug: 'notes',
        name: 'Notes',
        fields: [
          { name: 'title', type: 'text', required: true },
          { name: 'body', type: 'markdown' },
          { name: 'see_also', type: 'relation', options: { type: 'notes' } },
        ],
      });
      const note = async (payload: object) => {
        const response = await cms('POST', '/entries/notes', payload);
        assert.equal(response.statusCode, 201, response.body);
        ids.push(json<{ id: string }>(response).id);
        return json<{ id: string }>(response).id;
      };
      const draft = await note({
        slug: 'draftslug',
        status: 'draft',
        data: { title: 'The draftword note', body: 'draftword body' },
      });
      const later = await note({
        slug: 'laterslug',
        status: 'published',
        published_at: '2999-01-01T00:00:00Z',
        data: { title: 'laterword', body: 'laterword' },
      });
      await note({ slug: 'open', status: 'published', data: { title: 'Open note', body: 'visible', see_also: draft } });
      await note({ slug: 'open-two', status: 'published', data: { title: 'Second open note', see_also: later } });
      await cms('POST', '/entries/articles', {
        slug: 'draftslug',
        status: 'draft',
        data: { title: 'draftword article' },
      });
      // Forum content: a public topic, a hidden one, and a topic in a staff forum.
      const token = await mintForumToken(t.app, 'site', 'owner', owner.password);
      const forum = (path: string, payload: object, method = 'POST') =>
        forumApi(t.app, 'site', token, { method: method as 'POST', path, payload });
      await forum('/categories', { name: 'Open', slug: 'open' });
      await forum('/forums', { name: 'General', slug: 'general', category_id: 'open' });
      await forum('/forums', { name: 'staffforumword', slug: 'staffslug', category_id: 'open', visibility: 'staff' });
      await forum('/topics', { forum_id: 'general', title: 'Hello all', body: 'public body' });
      const hidden = json<{ id: string }>(
        await forum('/topics', { forum_id: 'general', title: 'hiddentopicword', body: 'hiddentopicword' }),
      );
      await forum(`/topics/${hidden.id}`, { hidden: true }, 'PATCH');
      ids.push(hidden.id);
      const staff = json<{ id: string }>(
        await forum('/topics', {
          forum_id: 'staffslug',
          title: 'staffforumword plans',
          body: 'staffforumword and staffbodyword',
        }),
      );
      ids.push(staff.id);
      await portal(t.app, owner, {
        method: 'PUT',
        url: '/api/instances/site/env',
        payload: { API_CORS_ORIGINS: 'https://app.example' },
      });
      await portal(t.app, owner, { method: 'POST', url: '/api/instances/site/restart' });
    });
    after(() => t.close());

    const reads = (suffix: string): string[] => {
      const join = (path: string) => `${path}${path.includes('?') ? '&' : '?'}${suffix}`.replace(/[?&]$/, '');
      const lists = [
        '/entries/notes',
        '/entries/notes?page_size=100',
        '/entries/notes?include=see_also',
        '/entries/notes?q=draftword',
        '/entries/notes?filter[title][contains]=word',
        '/entries/notes?filter[slug][in]=draftslug,laterslug',
        '/entries/notes?sort=-published_at&fields=title,body',
        '/entries/articles',
        '/entries/topics',
        '/entries/topics?q=hiddentopicword',
        '/entries/topics?filter[forum_id]=general',
        '/entries/forums',
        '/entries/categories',
      ];
      const singles = ['draftslug', 'laterslug', ...ids].flatMap((id) => [
        `/entries/notes/${id}`,
        `/entries/notes/${id}?include=see_also`,
        `/entries/topics/${id}`,
        `/entries/articles/${id}`,
      ]);
      return [
        ...lists.map(join),
        ...singles.map(join),
        '/entries/forums/staffslug',
        '/entries/posts?filter[topic_id]=' + ids.at(-1),
      ].map((path) => (suffix && !path.includes(suffix) ? join(path) : path));
    };

    async function walk(key: string | undefined, suffix: string): Promise<string> {
      let seen = '';
      for (const path of reads(suffix)) {
        const response = await cmsApi(t.app, 'site', key, {
          method: 'GET',
          path,
          headers: { origin: 'https://app.example' },
        });
        assert.ok(response.statusCode < 500, `${path}: ${response.body}`);
        seen += `${path} -> ${response.statusCode} ${response.body}\n`;
      }
      seen += (await cmsApi(t.app, 'site', key, { method: 'GET', path: '/openapi.json' })).body;
      return seen;
    }

    // Answers that succeeded; a 404 or 401 body only echoes what the request itself named.
    const leaksIn = (text: string) =>
      MARKERS.filter((marker) =>
        text
          .split('\n')
          .some((line) => /^2\d\d /.test(line.split(' -> ')[1] ?? '') && line.split(' -> ')[1]!.includes(marker)),
      );

    for (const role of ['guest', 'read', 'write'] as const) {
      it(`shows ${role === 'guest' ? 'a caller without a key' : `a ${role} key`} no draft, scheduled or restricted content`, async () => {
        const seen = await walk(role === 'guest' ? undefined : keys[role], '');
        assert.deepEqual(leaksIn(seen), []);
      });
    }

    it('a read key asking for drafts is refused; a write key with status=any sees everything (the walk can fail)', async () => {
      const refused = await cmsApi(t.app, 'site', keys.read, { method: 'GET', path: '/entries/notes?status=any' });
      assert.equal(refused.statusCode, 403);
      const seen = await walk(keys.write, 'status=any');
      assert.deepEqual(leaksIn(seen).sort(), [...MARKERS].sort());
    });

    // The editor's list pages: the table rows and the count, not the search box echoing `q`.
    async function editorWalk(username: string, role: 'member' | 'moderator') {
      const editor = await addMember(t.app, 'site', username, role);
      assert.equal(await addEditor(t.app.deps.database.db, 'site', username), 'added');
      const client = new UiClient(t.app, communityHost('site'));
      assert.equal((await client.login(username, editor.password)).statusCode, 303);
      const shown: Record<string, string> = {};
      for (const path of [
        '/admin/content/topics',
        '/admin/content/topics?status=published',
        '/admin/content/topics?q=staffforumword',
        '/admin/content/topics?q=staffbodyword',
        '/admin/content/topics?q=hiddentopicword',
        '/admin/content/forums',
        '/admin/content/forums?status=published',
        '/admin/content/categories',
      ]) {
        const page = await client.get(path);
        assert.equal(page.statusCode, 200, `${path}: ${page.body}`);
        const rows = /<tbody>([\s\S]*?)<\/tbody>/.exec(page.body)![1]!;
        const count = /<p class="muted">(\d+) entr/.exec(page.body)![1]!;
        shown[path] = `${count} ${rows}`;
      }
      // Forum entries have no editor page; they are written in the forum.
      assert.equal((await client.get(`/admin/content/topics/${ids.at(-1)}`)).statusCode, 403);
      return shown;
    }

    const FORUM_MARKERS = ['staffforumword', 'hiddentopicword'];

    it('shows a content editor who is a plain member no staff-only forum, topic or search hit', async () => {
      const shown = await editorWalk('plainditor', 'member');
      for (const [path, text] of Object.entries(shown))
        for (const marker of FORUM_MARKERS) assert.doesNotMatch(text, new RegExp(marker), `${path} shows ${marker}`);
      assert.match(shown['/admin/content/topics?q=staffbodyword']!, /^0 /, 'no hit for a word of a staff post');
      assert.match(shown['/admin/content/forums']!, /General/, 'the forums the member may see are listed');
      assert.match(shown['/admin/content/topics']!, /Hello all/);
    });

    it('shows a content editor who is a moderator what staff see (the walk can fail)', async () => {
      const shown = await editorWalk('modeditor', 'moderator');
      assert.match(shown['/admin/content/forums']!, /staffforumword/);
      assert.match(shown['/admin/content/topics']!, /staffforumword plans/);
      assert.match(shown['/admin/content/topics']!, /hiddentopicword/);
      assert.match(shown['/admin/content/topics?q=staffbodyword']!, /^1 .*staffforumword plans/s);
      assert.match(shown['/admin/content/topics?q=hiddentopicword']!, /^1 /);
    });
  });
}
