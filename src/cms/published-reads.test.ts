// Published reads cached per node on the cache seam (decisions 0105, 0111) on two nodes sharing one
// database and one Redis: a write through the Content API on one node is served by the other from
// its next read on; a scheduled entry shows at its time with no write; a change behind the nodes'
// back shows within the seam's bound; drafts are never served from what a node cached.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { cmsApi, mintApiKey } from '../../test/factories/cms.js';
import { makeCommunity } from '../../test/factories/forum.js';
import { buildTwoNodes, caughtUp, json, signIn, type TestApp } from '../../test/helpers/app.js';
import { testDatabases, type TestDatabase } from '../../test/helpers/databases.js';
import { eventually } from '../../test/helpers/eventually.js';

const redis = Boolean(process.env.TEST_REDIS_URL);
const SITE = 'club';

interface Entry {
  id: string;
  slug: string;
  data: { title: string };
}

for (const database of testDatabases) {
  describe(
    `published reads cached per node [${database}]`,
    { skip: redis ? false : 'cross-node invalidation needs TEST_REDIS_URL' },
    () => {
      let shared: TestDatabase;
      let close: () => Promise<void>;
      let a: TestApp;
      let b: TestApp;
      let admin = '';
      let writer = '';
      let reader = '';
      const titlesOn = async (node: TestApp, type: string, query = '') => {
        const response = await cmsApi(node.app, SITE, reader, {
          method: 'GET',
          path: `/entries/${type}?sort=slug${query}`,
        });
        assert.equal(response.statusCode, 200, response.body);
        return json<Entry[]>(response).map((entry) => entry.data.title);
      };
      const readOn = (node: TestApp, type: string, ref: string, key = reader) =>
        cmsApi(node.app, SITE, key, { method: 'GET', path: `/entries/${type}/${ref}` });
      const write = async (method: 'POST' | 'PUT' | 'DELETE', path: string, payload?: object) => {
        const response = await cmsApi(a.app, SITE, writer, { method, path, ...(payload ? { payload } : {}) });
        assert.ok(response.statusCode < 300, response.body);
        await caughtUp(b.cache);
        return response;
      };
      const defineType = async (type: string, more: object[] = []) => {
        const fields = [{ name: 'title', type: 'text', required: true }, ...more];
        const created = await cmsApi(a.app, SITE, admin, {
          method: 'POST',
          path: '/content-types',
          payload: { slug: type, name: type, fields },
        });
        assert.equal(created.statusCode, 201, created.body);
      };

      before(async () => {
        ({ a, b, shared, close } = await buildTwoNodes(database));
        const owner = await signIn(a.app, 'owner');
        await makeCommunity(a.app, owner, SITE, 'pro');
        admin = await mintApiKey(a.app, owner, SITE, ['admin']);
        writer = await mintApiKey(a.app, owner, SITE, ['cms-read', 'cms-write']);
        reader = await mintApiKey(a.app, owner, SITE, ['cms-read']);
      });
      after(async () => {
        await close();
      });

      it("serves a write on one node from the other node's next read on", async () => {
        await defineType('events');
        assert.deepEqual(await titlesOn(b, 'events'), [], 'node B keeps the empty list');
        assert.equal((await readOn(b, 'events', 'launch')).statusCode, 404);

        const created = json<Entry>(
          await write('POST', '/entries/events', { slug: 'launch', status: 'published', data: { title: 'Launch' } }),
        );
        assert.deepEqual(await titlesOn(b, 'events'), ['Launch'], 'a created entry is listed on node B');
        assert.equal(json<Entry>(await readOn(b, 'events', 'launch')).data.title, 'Launch');
        assert.equal(json<Entry>(await readOn(b, 'events', created.id)).data.title, 'Launch', 'by id too');

        await write('PUT', `/entries/events/${created.id}`, {
          slug: 'launch',
          status: 'published',
          data: { title: 'Launch day' },
        });
        assert.deepEqual(await titlesOn(b, 'events'), ['Launch day'], 'an update shows in the cached list');
        assert.equal(
          json<Entry>(await readOn(b, 'events', 'launch')).data.title,
          'Launch day',
          'and in the cached entry',
        );

        await write('POST', '/entries/events', { slug: 'party', status: 'draft', data: { title: 'Party' } });
        assert.deepEqual(await titlesOn(b, 'events'), ['Launch day'], 'a draft is not published');
        const drafts = await cmsApi(b.app, SITE, writer, { method: 'GET', path: '/entries/events?status=draft' });
        assert.deepEqual(
          json<Entry[]>(drafts).map((entry) => entry.slug),
          ['party'],
          'drafts are read from the database',
        );

        await write('PUT', `/entries/events/${created.id}`, {
          slug: 'launch',
          status: 'draft',
          data: { title: 'Launch day' },
        });
        assert.deepEqual(await titlesOn(b, 'events'), [], 'an unpublished entry leaves the list');
        assert.equal((await readOn(b, 'events', 'launch')).statusCode, 404, 'and is no longer read');

        await write('PUT', `/entries/events/${created.id}`, {
          slug: 'launch',
          status: 'published',
          data: { title: 'Launch day' },
        });
        assert.deepEqual(await titlesOn(b, 'events'), ['Launch day']);
        await write('DELETE', `/entries/events/${created.id}`);
        assert.deepEqual(await titlesOn(b, 'events'), [], 'a deleted entry leaves the list');
        assert.equal((await readOn(b, 'events', created.id)).statusCode, 404);
      });

      it('reads a list or an entry with include= from the database: the related type has its own writes', async () => {
        await defineType('people');
        await defineType('sessions', [{ name: 'speaker', type: 'relation', options: { type: 'people' } }]);
        const ada = json<Entry>(
          await write('POST', '/entries/people', { slug: 'ada', status: 'published', data: { title: 'Ada' } }),
        );
        await write('POST', '/entries/sessions', {
          slug: 'engines',
          status: 'published',
          data: { title: 'Engines', speaker: ada.id },
        });
        const speakersOn = async (node: TestApp) => {
          const list = await cmsApi(node.app, SITE, reader, {
            method: 'GET',
            path: '/entries/sessions?include=speaker',
          });
          const one = await cmsApi(node.app, SITE, reader, {
            method: 'GET',
            path: '/entries/sessions/engines?include=speaker',
          });
          const speaker = (entry: { data: { speaker: Entry | null } }) => entry.data.speaker?.data.title ?? null;
          return [...json<Array<{ data: { speaker: Entry | null } }>>(list).map(speaker), speaker(json(one))];
        };
        assert.deepEqual(await speakersOn(b), ['Ada', 'Ada']);
        await write('PUT', `/entries/people/${ada.id}`, {
          slug: 'ada',
          status: 'published',
          data: { title: 'Ada Lovelace' },
        });
        assert.deepEqual(await speakersOn(b), ['Ada Lovelace', 'Ada Lovelace'], 'the related entry as it is now');
        await write('PUT', `/entries/people/${ada.id}`, {
          slug: 'ada',
          status: 'draft',
          data: { title: 'Ada Lovelace' },
        });
        assert.deepEqual(await speakersOn(b), [null, null], 'and gone once it is no longer published');
      });

      it('shows a scheduled entry at its time, with no write in between', async () => {
        await defineType('talks');
        const at = new Date(Date.now() + 1_500);
        await write('POST', '/entries/talks', {
          slug: 'keynote',
          status: 'published',
          published_at: at.toISOString(),
          data: { title: 'Keynote' },
        });
        assert.deepEqual(await titlesOn(b, 'talks'), [], 'not before its time');
        assert.equal((await readOn(b, 'talks', 'keynote')).statusCode, 404);
        await new Promise((resolve) => setTimeout(resolve, at.getTime() - Date.now() + 50));
        assert.deepEqual(await titlesOn(b, 'talks'), ['Keynote'], 'listed once its time came');
        assert.equal(json<Entry>(await readOn(b, 'talks', 'keynote')).data.title, 'Keynote');
      });

      it("serves a change made behind the nodes' back within the bound", async () => {
        await defineType('notes');
        await write('POST', '/entries/notes', { slug: 'first', status: 'published', data: { title: 'First' } });
        assert.deepEqual(await titlesOn(b, 'notes', '&page_size=5'), ['First']);
        // Changed with SQL: no message reaches any node.
        await shared.handle.db.execute(sql`update cms_entries set data = '{"title": "Changed"}' where slug = 'first'`);
        await eventually(
          'node B to serve the change',
          async () => ((await titlesOn(b, 'notes', '&page_size=5'))[0] === 'Changed' ? true : undefined),
          2_000,
        );
      });
    },
  );
}
