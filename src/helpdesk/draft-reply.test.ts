// AI draft replies against the local server speaking the OpenAI and Anthropic wire formats, on both
// databases: off by default, Business plan, internal notes left out unless asked, the draft stored
// on the ticket and in its history but never added to the thread, provider failures as problem+json.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../db/client.js';
import { mintApiKey } from '../../test/factories/cms.js';
import { makeCommunity } from '../../test/factories/forum.js';
import { helpdeskApi, type HelpdeskCredential } from '../../test/factories/helpdesk.js';
import { AI_PROVIDER_ENV, startAiProvider, type AiProviderServer } from '../../test/helpers/ai-provider.js';
import { buildTestApp, json, portal, signIn, type Actor, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';

for (const database of testDatabases) {
  for (const provider of ['openai', 'anthropic'] as const) {
    describe(`Help desk AI draft replies, ${provider} [${database}]`, () => {
      let t: TestApp;
      let owner: Actor;
      let server: AiProviderServer;
      let write: HelpdeskCredential;
      let ticketId = '';

      before(async () => {
        server = await startAiProvider();
        t = await buildTestApp({ database, env: AI_PROVIDER_ENV });
        owner = await signIn(t.app, 'owner');
        await makeCommunity(t.app, owner, 'biz', 'business');
        await makeCommunity(t.app, owner, 'pro', 'pro');
        write = { key: await mintApiKey(t.app, owner, 'biz', ['helpdesk-write']) };
        const opened = await helpdeskApi(t.app, 'biz', write, {
          method: 'POST',
          path: '/tickets',
          payload: {
            subject: 'Cannot log in',
            body: 'My password reset mail never arrives.',
            requester: { email: 'erin@example.test', name: 'Erin' },
          },
        });
        ticketId = json<{ id: string }>(opened).id;
        await helpdeskApi(t.app, 'biz', write, {
          method: 'POST',
          path: `/tickets/${ticketId}/replies`,
          payload: { body: 'SECRET-NOTE: her domain bounces', internal: true },
        });
      });
      after(async () => {
        await t.close();
        await server.close();
      });

      const draft = (payload: object = {}, site = 'biz', credential = write) =>
        helpdeskApi(t.app, site, credential, { method: 'POST', path: `/tickets/${ticketId}/draft-reply`, payload });

      it('is off by default and needs the Business plan', async () => {
        assert.equal(json(await draft()).code, 'ai_disabled');
        const proKey = { key: await mintApiKey(t.app, owner, 'pro', ['helpdesk-write']) };
        const pro = await helpdeskApi(t.app, 'pro', proKey, {
          method: 'POST',
          path: '/tickets/1/draft-reply',
          payload: {},
        });
        assert.equal(json(pro).code, 'plan_required');
      });

      it('drafts from the public thread, stores the draft and sends nothing', async () => {
        const baseUrl = provider === 'openai' ? `${server.origin}/v1` : server.origin;
        const put = await portal(t.app, owner, {
          method: 'PUT',
          url: '/api/instances/biz/env',
          payload: {
            AI_CONTENT_ENABLED: 'true',
            AI_PROVIDER: provider,
            AI_BASE_URL: baseUrl,
            AI_MODEL: 'helper-1',
            AI_API_KEY: server.apiKey,
          },
        });
        assert.equal(put.statusCode, 200, put.body);
        await portal(t.app, owner, { method: 'POST', url: '/api/instances/biz/restart' });
        server.answer = 'Hi Erin, please check your spam folder.';
        server.calls.length = 0;
        const response = await draft();
        assert.equal(response.statusCode, 201, response.body);
        const body = json<{ id: string; body: string; model: string }>(response);
        assert.equal(body.body, 'Hi Erin, please check your spam folder.');
        const sent = JSON.stringify(server.calls[0]!.body);
        assert.match(sent, /password reset mail never arrives/);
        assert.doesNotMatch(sent, /SECRET-NOTE/);
        const thread = json<unknown[]>(
          await helpdeskApi(t.app, 'biz', write, { method: 'GET', path: `/tickets/${ticketId}/replies` }),
        );
        assert.equal(thread.length, 2);
        const stored = await queryRows<{ body: string }>(
          t.app.deps.database.db,
          sql`select body from helpdesk_drafts where id = ${body.id}`,
        );
        assert.equal(stored[0]?.body, body.body);
        const history = json<Array<{ event: string }>>(
          await helpdeskApi(t.app, 'biz', write, { method: 'GET', path: `/tickets/${ticketId}/history` }),
        );
        assert.ok(history.some((h) => h.event === 'draft'));

        server.calls.length = 0;
        assert.equal((await draft({ internal: true })).statusCode, 201);
        assert.match(JSON.stringify(server.calls[0]!.body), /SECRET-NOTE/);
      });

      it('drafts from a call with no body at all, with or without a JSON content type', async () => {
        server.answer = 'Hi Erin, a new link is on its way.';
        for (const headers of [{}, { 'content-type': 'application/json' }]) {
          const response = await helpdeskApi(t.app, 'biz', write, {
            method: 'POST',
            path: `/tickets/${ticketId}/draft-reply`,
            headers,
          });
          assert.equal(response.statusCode, 201, response.body);
          assert.equal(json<{ body: string }>(response).body, 'Hi Erin, a new link is on its way.');
        }
        const doc = json<{ paths: Record<string, { post: { requestBody: { required: boolean } } }> }>(
          await helpdeskApi(t.app, 'biz', undefined, { method: 'GET', path: '/openapi.json' }),
        );
        assert.equal(doc.paths['/api/helpdesk/v1/tickets/{id}/draft-reply']!.post.requestBody.required, false);
      });

      it('answers provider failures as problems without the key', async () => {
        for (const [instructions, code] of [
          ['scenario:unauthorized', 'ai_provider_error'],
          ['scenario:refuse', 'ai_refused'],
        ] as const) {
          const response = await draft({ instructions });
          assert.equal(response.statusCode, 502, response.body);
          assert.equal(json(response).code, code);
          assert.doesNotMatch(response.body, new RegExp(server.apiKey));
        }
      });
    });
  }
}
