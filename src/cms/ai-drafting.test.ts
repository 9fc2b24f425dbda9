// AI drafting end to end against a local server speaking the OpenAI and Anthropic wire formats:
// off by default, Business plan, the key stored sealed and never shown, values checked against the
// type, nothing saved unless asked, provider failures as 502/504 codes without the key.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../db/client.js';
import { cmsApi, mintApiKey } from '../../test/factories/cms.js';
import { makeCommunity } from '../../test/factories/forum.js';
import { AI_PROVIDER_ENV, startAiProvider, type AiProviderServer } from '../../test/helpers/ai-provider.js';
import { buildTestApp, json, portal, signIn, type Actor, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';

type Entry = { id: string; status: string; data: Record<string, unknown> };

for (const database of testDatabases) {
  for (const provider of ['openai', 'anthropic'] as const) {
    describe(`Content API AI drafting, ${provider} [${database}]`, () => {
      let t: TestApp;
      let owner: Actor;
      let server: AiProviderServer;
      let write: string;
      let read: string;

      before(async () => {
        server = await startAiProvider();
        t = await buildTestApp({ database, env: AI_PROVIDER_ENV });
        owner = await signIn(t.app, 'owner');
        await makeCommunity(t.app, owner, 'biz', 'business');
        await makeCommunity(t.app, owner, 'pro', 'pro');
        write = await mintApiKey(t.app, owner, 'biz', ['cms-write']);
        read = await mintApiKey(t.app, owner, 'biz', ['cms-read']);
        const admin = await mintApiKey(t.app, owner, 'biz', ['admin']);
        const created = await cmsApi(t.app, 'biz', admin, {
          method: 'POST',
          path: '/content-types',
          payload: {
            slug: 'recipes',
            name: 'Recipes',
            fields: [
              { name: 'title', type: 'text', required: true, options: { max_length: 80 } },
              { name: 'method', type: 'markdown' },
              { name: 'minutes', type: 'number', options: { integer: true, min: 1 } },
              { name: 'course', type: 'enum', options: { values: ['starter', 'main', 'dessert'] } },
            ],
          },
        });
        assert.equal(created.statusCode, 201, created.body);
      });
      after(async () => {
        await t.close();
        await server.close();
      });

      const generate = (payload: object, key = write, site = 'biz') =>
        cmsApi(t.app, site, key, { method: 'POST', path: '/ai-content/generate', payload });
      const count = async () =>
        json<Entry[]>(
          await cmsApi(t.app, 'biz', write, { method: 'GET', path: '/entries/recipes?status=any&page_size=100' }),
        ).length;

      it('is off by default', async () => {
        const response = await generate({ type: 'recipes', prompt: 'A soup' });
        assert.equal(response.statusCode, 403);
        assert.equal(json(response).code, 'ai_disabled');
      });

      it('needs the Business plan and cms-write', async () => {
        const proKey = await mintApiKey(t.app, owner, 'pro', ['cms-write']);
        assert.equal(json(await generate({ type: 'articles', prompt: 'x' }, proKey, 'pro')).code, 'plan_required');
        assert.equal(json(await generate({ type: 'recipes', prompt: 'x' }, read)).code, 'scope_missing');
      });

      it('stores the key sealed and never shows it', async () => {
        const baseUrl = provider === 'openai' ? `${server.origin}/v1` : server.origin;
        const put = await portal(t.app, owner, {
          method: 'PUT',
          url: '/api/instances/biz/env',
          payload: {
            AI_CONTENT_ENABLED: 'true',
            AI_PROVIDER: provider,
            AI_BASE_URL: baseUrl,
            AI_MODEL: 'chef-1',
            AI_API_KEY: server.apiKey,
          },
        });
        assert.equal(put.statusCode, 200, put.body);
        assert.equal(json(put).AI_API_KEY, '********');
        await portal(t.app, owner, { method: 'POST', url: '/api/instances/biz/restart' });
        const rows = await queryRows<{ desired: unknown; applied: unknown }>(
          t.app.deps.database.db,
          sql`select desired, applied from site_settings where site_id = 'biz'`,
        );
        assert.doesNotMatch(JSON.stringify(rows), new RegExp(server.apiKey));
        assert.match(JSON.stringify(rows), /AI_API_KEY/);
      });

      it('drafts values that fit the type and saves nothing', async () => {
        server.answer =
          '```json\n{"title":"Leek soup","method":"Melt **butter**.","minutes":30,"course":"starter","chef":"ignored"}\n```';
        server.calls.length = 0;
        const response = await generate({ type: 'recipes', prompt: 'A winter soup' });
        assert.equal(response.statusCode, 200, response.body);
        assert.deepEqual(json(response), {
          data: { title: 'Leek soup', method: 'Melt **butter**.', minutes: 30, course: 'starter' },
        });
        assert.equal(await count(), 0);
        const call = server.calls[0]!;
        assert.equal(call.body.model, 'chef-1');
        const system =
          provider === 'openai'
            ? (call.body.messages as Array<{ content: string }>)[0]!.content
            : String(call.body.system);
        assert.match(system, /"minutes":\{"type":"integer","minimum":1\}/);
      });

      it('saves a draft when asked; read keys do not see it', async () => {
        server.answer = '{"title":"Apple pie","minutes":60,"course":"dessert"}';
        const response = await generate({
          type: 'recipes',
          prompt: 'A pie',
          fields: ['title', 'minutes', 'course'],
          save_as_draft: true,
        });
        assert.equal(response.statusCode, 200, response.body);
        const { entry } = json<{ entry: Entry }>(response);
        assert.equal(entry.status, 'draft');
        assert.equal(entry.data.title, 'Apple pie');
        assert.equal(await count(), 1);
        assert.equal(
          (await cmsApi(t.app, 'biz', read, { method: 'GET', path: `/entries/recipes/${entry.id}` })).statusCode,
          404,
        );
      });

      it('answers provider failures as 502/504 problems without the key, saving nothing', async () => {
        const cases: Array<[object, number, string]> = [
          [{ type: 'recipes', prompt: 'scenario:unauthorized', save_as_draft: true }, 502, 'ai_provider_error'],
          [{ type: 'recipes', prompt: 'scenario:overloaded', save_as_draft: true }, 502, 'ai_provider_error'],
          [{ type: 'recipes', prompt: 'scenario:refuse', save_as_draft: true }, 502, 'ai_refused'],
          [{ type: 'recipes', prompt: 'scenario:garbage', save_as_draft: true }, 502, 'ai_invalid_output'],
        ];
        for (const [payload, status, code] of cases) {
          const response = await generate(payload);
          assert.equal(response.statusCode, status, response.body);
          assert.equal(json(response).code, code);
          assert.match(String(response.headers['content-type']), /problem\+json/);
          assert.doesNotMatch(response.body, new RegExp(server.apiKey));
        }
        server.answer = '{"title":"Soup","minutes":"ten"}';
        const invalid = await generate({ type: 'recipes', prompt: 'x', save_as_draft: true });
        assert.equal(json(invalid).code, 'ai_invalid_output');
        assert.match(json<{ detail: string }>(invalid).detail, /minutes must be a number/);
        assert.equal(await count(), 1);
      });

      it('refuses unknown types and fields, and forum views', async () => {
        assert.equal(json(await generate({ type: 'nope', prompt: 'x' })).code, 'content_type_not_found');
        assert.equal(json(await generate({ type: 'recipes', prompt: 'x', fields: ['colour'] })).code, 'unknown_field');
        assert.equal(json(await generate({ type: 'topics', prompt: 'x' })).code, 'ai_unsupported_type');
      });
    });
  }
}

for (const database of testDatabases) {
  describe(`AI drafting without BLUME_AI_ALLOW_PRIVATE [${database}]`, () => {
    let t: TestApp;
    let server: AiProviderServer;
    let write: string;

    before(async () => {
      server = await startAiProvider();
      t = await buildTestApp({ database });
      const owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'biz', 'business');
      write = await mintApiKey(t.app, owner, 'biz', ['cms-write']);
      const put = await portal(t.app, owner, {
        method: 'PUT',
        url: '/api/instances/biz/env',
        payload: {
          AI_CONTENT_ENABLED: 'true',
          AI_PROVIDER: 'openai',
          // The `#` once cut the fixed suffix off: the call went to the URL as written.
          AI_BASE_URL: `${server.origin.replace('127.0.0.1', '[::127.0.0.1]')}/v1#`,
          AI_MODEL: 'chef-1',
          AI_API_KEY: server.apiKey,
        },
      });
      assert.equal(put.statusCode, 200, put.body);
      await portal(t.app, owner, { method: 'POST', url: '/api/instances/biz/restart' });
    });
    after(async () => {
      await t.close();
      await server.close();
    });

    it('refuses a provider on a loopback address, however written, and calls nothing', async () => {
      server.calls.length = 0;
      const response = await cmsApi(t.app, 'biz', write, {
        method: 'POST',
        path: '/ai-content/generate',
        payload: { type: 'articles', prompt: 'A post' },
      });
      assert.equal(response.statusCode, 409, response.body);
      assert.equal(json(response).code, 'ai_target_refused');
      assert.match(json<{ detail: string }>(response).detail, /BLUME_AI_ALLOW_PRIVATE=True/);
      assert.equal(server.calls.length, 0);
    });
  });
}
