// JSON nested thousands deep, through every door a client has into the CMS (the Content API's
// entries and content types, the editor's form) and another surface's JSON body: a 422 with a
// stable code, never a stack overflow answered as 500, and nothing stored.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { cmsApi, mintApiKey } from '../../test/factories/cms.js';
import { communityHost, makeCommunity } from '../../test/factories/forum.js';
import { buildTestApp, json, portal, signIn, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { pageText, UiClient } from '../../test/helpers/forum-ui.js';
import { MAX_JSON_DEPTH } from '../lib/json-depth.js';

const nestedArrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const nestedObjects = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

for (const database of testDatabases) {
  describe(`deeply nested JSON [${database}]`, () => {
    let t: TestApp;
    let key: string;
    let editor: UiClient;

    before(async () => {
      t = await buildTestApp({ database, env: { BLUME_RATE_LOGIN_PER_MINUTE: '1000' } });
      const owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'mag');
      key = await mintApiKey(t.app, owner, 'mag', ['admin']);
      const made = await cmsApi(t.app, 'mag', key, {
        method: 'POST',
        path: '/content-types',
        payload: {
          slug: 'things',
          name: 'Things',
          fields: [
            { name: 'title', type: 'text' },
            { name: 'extra', type: 'json' },
          ],
        },
      });
      assert.equal(made.statusCode, 201, made.body);
      editor = new UiClient(t.app, communityHost('mag'));
      assert.equal((await editor.login('owner', owner.password)).statusCode, 303);
    });
    after(() => t.close());

    const send = (method: 'POST' | 'PUT', path: string, body: string) =>
      cmsApi(t.app, 'mag', key, { method, path, payload: body, headers: { 'content-type': 'application/json' } });
    const tooDeep = (response: LightMyRequestResponse, what: string) => {
      assert.equal(response.statusCode, 422, `${what}: ${response.body}`);
      assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.equal(json(response).code, 'json_too_deep', what);
      assert.equal(json(response).max_depth, MAX_JSON_DEPTH);
    };
    const entries = async () =>
      json<unknown[]>(await cmsApi(t.app, 'mag', key, { method: 'GET', path: '/entries/things?status=any' })).length;

    it('refuses a json field nested 5,000 deep through the Content API with 422 json_too_deep', async () => {
      for (const value of [nestedArrays(5000), nestedObjects(5000), nestedArrays(100_000)])
        tooDeep(await send('POST', '/entries/things', `{"data":{"title":"deep","extra":${value}}}`), 'create');
      assert.equal(await entries(), 0, 'nothing stored');

      const fine = await send('POST', '/entries/things', `{"data":{"title":"fine","extra":${nestedArrays(40)}}}`);
      assert.equal(fine.statusCode, 201, `a value within the bound is kept: ${fine.body}`);
      const id = json<{ id: string }>(fine).id;
      tooDeep(
        await send('PUT', `/entries/things/${id}`, `{"data":{"title":"x","extra":${nestedObjects(5000)}}}`),
        'update',
      );
      tooDeep(
        await send(
          'POST',
          '/content-types',
          `{"slug":"deep","name":"Deep","fields":[{"name":"x","type":"json","default":${nestedArrays(5000)}}]}`,
        ),
        'a field default',
      );
      const filtered = await cmsApi(t.app, 'mag', key, {
        method: 'GET',
        path: `/entries/things?filter${'[a]'.repeat(5000)}=1`,
      });
      assert.equal(filtered.statusCode, 400, filtered.body);
      assert.equal(json(filtered).code, 'invalid_filter');
    });

    it('refuses it in the editor form beside the field, with 422', async () => {
      await editor.get('/admin/content/things/new');
      const refused = await editor.post('/admin/content/things/new', {
        action: 'save',
        data_title: 'deep',
        data_extra: nestedArrays(5000),
        status: 'draft',
      });
      assert.equal(refused.statusCode, 422, refused.body.slice(0, 500));
      assert.match(pageText(refused.body), new RegExp(`Extra must nest at most ${MAX_JSON_DEPTH} levels`));
      assert.equal(await entries(), 1);
    });

    it('bounds every JSON body, not only the Content API', async () => {
      const owner = await signIn(t.app, 'other');
      tooDeep(
        await portal(t.app, owner, {
          method: 'POST',
          url: '/api/sites',
          payload: `{"id":"deep","kind":"static","extra":${nestedArrays(5000)}}`,
          headers: { 'content-type': 'application/json' },
        }),
        'the portal',
      );
    });
  });
}
