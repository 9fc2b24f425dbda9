// The per-node copies of content types (decisions 0052, 0111) on two nodes sharing one database and
// one Redis: a type changed or deleted through the API on one node is served as changed by the other
// from its next request on; a change made behind the nodes' back (no message) shows within the
// cache seam's bound; a type created after a node found none shows at once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cmsApi, mintApiKey } from '../../test/factories/cms.js';
import { makeCommunity } from '../../test/factories/forum.js';
import { buildTwoNodes, json, signIn, type TestApp } from '../../test/helpers/app.js';
import { testDatabases, type TestDatabase } from '../../test/helpers/databases.js';
import { updateType } from './content-types.js';
import type { FieldDefinition } from './fields.js';
import { eventually } from '../../test/helpers/eventually.js';

const redis = Boolean(process.env.TEST_REDIS_URL);
const SITE = 'club';
const TITLE: FieldDefinition = { name: 'title', type: 'text', required: true, options: { max_length: 100 } };
const MOOD: FieldDefinition = { name: 'mood', type: 'text', options: { max_length: 20 } };

type Entry = { data: Record<string, unknown> };

for (const database of testDatabases) {
  describe(
    `content types on two nodes [${database}]`,
    { skip: redis ? false : 'cross-node invalidation needs TEST_REDIS_URL' },
    () => {
      let shared: TestDatabase;
      let close: () => Promise<void>;
      let a: TestApp;
      let b: TestApp;
      let admin = '';
      let reader = '';
      const readOn = (node: TestApp, type: string, slug: string) =>
        cmsApi(node.app, SITE, reader, { method: 'GET', path: `/entries/${type}/${slug}` });
      const dataOn = async (node: TestApp, type: string, slug: string) => {
        const response = await readOn(node, type, slug);
        assert.equal(response.statusCode, 200, response.body);
        return json<Entry>(response).data;
      };
      const defineWithEntry = async (type: string) => {
        const created = await cmsApi(a.app, SITE, admin, {
          method: 'POST',
          path: '/content-types',
          payload: { slug: type, name: type, fields: [TITLE, MOOD] },
        });
        assert.equal(created.statusCode, 201, created.body);
        const entry = await cmsApi(a.app, SITE, admin, {
          method: 'POST',
          path: `/entries/${type}`,
          payload: { slug: 'first', status: 'published', data: { title: 'First', mood: 'glad' } },
        });
        assert.equal(entry.statusCode, 201, entry.body);
      };

      before(async () => {
        ({ a, b, shared, close } = await buildTwoNodes(database));
        const owner = await signIn(a.app, 'owner');
        await makeCommunity(a.app, owner, SITE, 'pro');
        admin = await mintApiKey(a.app, owner, SITE, ['admin']);
        reader = await mintApiKey(a.app, owner, SITE, ['cms-read']);
      });
      after(async () => {
        await close();
      });

      it('serves a type changed or deleted on the other node as changed from the next request on', async () => {
        await defineWithEntry('notes');
        assert.deepEqual(
          await dataOn(b, 'notes', 'first'),
          { title: 'First', mood: 'glad' },
          'node B keeps its copy of the type',
        );

        const removed = await cmsApi(a.app, SITE, admin, {
          method: 'PUT',
          path: '/content-types/notes',
          payload: { name: 'notes', fields: [TITLE] },
        });
        assert.equal(removed.statusCode, 200, removed.body);
        assert.deepEqual(
          await dataOn(b, 'notes', 'first'),
          { title: 'First' },
          'a removed field no longer leaves, on node B too',
        );

        const back = await cmsApi(a.app, SITE, admin, {
          method: 'PUT',
          path: '/content-types/notes',
          payload: { name: 'notes', fields: [TITLE, MOOD] },
        });
        assert.equal(back.statusCode, 200, back.body);
        assert.deepEqual(
          await dataOn(b, 'notes', 'first'),
          { title: 'First', mood: 'glad' },
          'and comes back with its field',
        );

        const deleted = await cmsApi(a.app, SITE, admin, { method: 'DELETE', path: '/content-types/notes' });
        assert.equal(deleted.statusCode, 204, deleted.body);
        const gone = await readOn(b, 'notes', 'first');
        assert.equal(gone.statusCode, 404, gone.body);
        assert.equal(json<{ code: string }>(gone).code, 'content_type_not_found');
      });

      it('serves a type created after a node found none at once', async () => {
        const before = await readOn(b, 'later', 'first');
        assert.equal(json<{ code: string }>(before).code, 'content_type_not_found');
        await defineWithEntry('later');
        assert.deepEqual(await dataOn(b, 'later', 'first'), { title: 'First', mood: 'glad' });
      });

      it('serves a change whose message was lost within the bound', async () => {
        await defineWithEntry('quiet');
        assert.deepEqual(await dataOn(b, 'quiet', 'first'), { title: 'First', mood: 'glad' });
        // Changed behind the nodes' back: no message reaches any node.
        await updateType(shared.handle.db, SITE, 'quiet', { name: 'quiet', fields: [TITLE] });
        await eventually(
          'node B to serve the changed type',
          async () => ((await dataOn(b, 'quiet', 'first')).mood === undefined ? true : undefined),
          2_000,
        );
      });
    },
  );
}
