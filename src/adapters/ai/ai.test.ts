// Both provider clients against a local server speaking their wire formats: answers, the provider's
// error bodies, refusals, timeouts and garbage become AppErrors with codes, never carrying the key
// or anything an error answer said. The provider runs on loopback, so the clients here allow private
// addresses, except where the address rule itself is tested.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startAiProvider, type AiProviderServer } from '../../../test/helpers/ai-provider.js';
import { AiProviderError, createAiClient, type AiProviderName } from './index.js';

describe('AI provider clients', () => {
  let server: AiProviderServer;
  before(async () => {
    server = await startAiProvider();
  });
  after(() => server.close());

  const baseUrl = (provider: AiProviderName) => (provider === 'openai' ? `${server.origin}/v1` : server.origin);

  async function failure(promise: Promise<unknown>): Promise<AiProviderError> {
    try {
      await promise;
    } catch (error) {
      assert.ok(error instanceof AiProviderError, String(error));
      return error;
    }
    assert.fail('expected an error');
  }

  for (const provider of ['openai', 'anthropic'] as const) {
    describe(provider, () => {
      const logged: Array<Record<string, unknown>> = [];
      const client = (
        overrides: { apiKey?: string; timeoutMs?: number; baseUrl?: string; allowPrivate?: boolean } = {},
      ) =>
        createAiClient({
          provider,
          baseUrl: overrides.baseUrl ?? baseUrl(provider),
          model: 'test-model',
          apiKey: overrides.apiKey ?? server.apiKey,
          timeoutMs: overrides.timeoutMs ?? 5000,
          allowPrivate: overrides.allowPrivate ?? true,
          logger: { warn: (details) => logged.push(details) },
        });
      const suffix = provider === 'openai' ? '/chat/completions' : '/v1/messages';

      it('sends the prompts in the wire format and reads the answer', async () => {
        server.answer = '{"title":"Hello"}';
        server.calls.length = 0;
        const result = await client().complete({ system: 'Be brief.', prompt: 'Write a title', json: true });
        assert.deepEqual(result, { text: '{"title":"Hello"}', model: 'test-model' });
        const call = server.calls[0]!;
        if (provider === 'openai') {
          assert.equal(call.path, '/v1/chat/completions');
          assert.deepEqual(call.body.messages, [
            { role: 'system', content: 'Be brief.' },
            { role: 'user', content: 'Write a title' },
          ]);
          assert.deepEqual(call.body.response_format, { type: 'json_object' });
        } else {
          assert.equal(call.path, '/v1/messages');
          assert.equal(call.body.system, 'Be brief.');
          assert.equal(typeof call.body.max_tokens, 'number');
        }
      });

      it('turns a wrong key into 502 ai_provider_error without the key in it', async () => {
        const wrongKey = 'sk-wrong-key-that-must-not-leak';
        const error = await failure(client({ apiKey: wrongKey }).complete({ system: 's', prompt: 'p' }));
        assert.equal(error.code, 'ai_provider_error');
        assert.equal(error.status, 502);
        assert.equal(error.extensions.provider_status, 401);
        assert.match(error.message, /401/);
        assert.doesNotMatch(JSON.stringify({ message: error.message, extensions: error.extensions }), /sk-wrong-key/);
      });

      it("passes on the provider's overload error code", async () => {
        const error = await failure(client().complete({ system: 's', prompt: 'scenario:overloaded' }));
        assert.equal(error.code, 'ai_provider_error');
        assert.equal(error.extensions.provider_status, provider === 'openai' ? 429 : 529);
        assert.equal(
          error.extensions.provider_error,
          provider === 'openai' ? 'rate_limit_exceeded' : 'overloaded_error',
        );
      });

      it('reports a refusal as ai_refused', async () => {
        assert.equal((await failure(client().complete({ system: 's', prompt: 'scenario:refuse' }))).code, 'ai_refused');
      });

      it('gives up after the timeout with 504 ai_timeout', async () => {
        server.slowMs = 2000;
        const error = await failure(client({ timeoutMs: 200 }).complete({ system: 's', prompt: 'scenario:slow' }));
        assert.equal(error.code, 'ai_timeout');
        assert.equal(error.status, 504);
      });

      it('reports a body that is not JSON as ai_invalid_output', async () => {
        assert.equal(
          (await failure(client().complete({ system: 's', prompt: 'scenario:garbage' }))).code,
          'ai_invalid_output',
        );
      });

      it('reports a provider that cannot be reached', async () => {
        const closed = await startAiProvider();
        await closed.close();
        const error = await failure(
          client({ baseUrl: provider === 'openai' ? `${closed.origin}/v1` : closed.origin }).complete({
            system: 's',
            prompt: 'p',
          }),
        );
        assert.equal(error.code, 'ai_provider_error');
        assert.match(error.message, /could not be reached/);
      });

      it('refuses loopback, private and IPv4-compatible IPv6 providers unless private ones are allowed', async () => {
        const port = new URL(server.origin).port;
        server.calls.length = 0;
        for (const origin of [
          server.origin,
          `http://localhost:${port}`,
          `http://[::1]:${port}`,
          `http://[::127.0.0.1]:${port}`,
          `http://[::ffff:127.0.0.1]:${port}`,
          `http://2130706433:${port}`,
          'http://10.0.0.1',
          'http://169.254.169.254/latest',
        ]) {
          const error = await failure(
            client({ baseUrl: origin, allowPrivate: false }).complete({ system: 's', prompt: 'p' }),
          );
          assert.equal(error.code, 'ai_target_refused', origin);
          assert.equal(error.status, 409);
          assert.match(error.message, /BLUME_AI_ALLOW_PRIVATE=True/);
        }
        assert.equal(server.calls.length, 0);
        server.answer = '{"ok":true}';
        assert.equal((await client({ allowPrivate: true }).complete({ system: 's', prompt: 'p' })).text, '{"ok":true}');
      });

      it('keeps the path suffix whatever the base URL ends with', async () => {
        const root = provider === 'openai' ? `${server.origin}/v1` : server.origin;
        for (const base of [`${root}#`, `${root}/#`, `${root}?`, `${root}#/x?y`]) {
          server.calls.length = 0;
          await client({ baseUrl: base }).complete({ system: 's', prompt: 'p' });
          assert.equal(server.calls[0]?.path, provider === 'openai' ? '/v1/chat/completions' : '/v1/messages', base);
        }
      });

      describe('against a server that is not the provider', () => {
        let other: Server;
        let otherOrigin = '';
        const hits: string[] = [];
        before(async () => {
          other = createServer((request, response) => {
            hits.push(request.url ?? '');
            request.resume();
            if (request.url?.startsWith('/moved'))
              return response.writeHead(307, { location: `${server.origin}${suffix}` }).end();
            response
              .writeHead(500, { 'content-type': 'application/json' })
              .end('{"error":{"message":"db_password=hunter2","type":"db_password=hunter2"}} db_password=hunter2');
          });
          await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
          otherOrigin = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
        });
        after(() => new Promise<void>((resolve) => other.close(() => resolve())));

        it('does not follow a redirect', async () => {
          server.calls.length = 0;
          const error = await failure(
            client({ baseUrl: `${otherOrigin}/moved` }).complete({ system: 's', prompt: 'p' }),
          );
          assert.equal(error.code, 'ai_provider_error');
          assert.equal(error.extensions.provider_status, 307);
          assert.match(error.message, /Redirects are not followed/);
          assert.equal(server.calls.length, 0);
        });

        it('never passes on what an error answer said, and logs it instead', async () => {
          logged.length = 0;
          const error = await failure(client({ baseUrl: otherOrigin }).complete({ system: 's', prompt: 'p' }));
          assert.equal(error.code, 'ai_provider_error');
          assert.deepEqual(error.extensions, { provider_status: 500 });
          assert.doesNotMatch(JSON.stringify({ message: error.message, extensions: error.extensions }), /hunter2/);
          assert.equal(logged.length, 1);
          assert.match(String(logged[0]!.answer), /db_password=hunter2/);
        });
      });
    });
  }
});
