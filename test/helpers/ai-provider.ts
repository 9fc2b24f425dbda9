// A local AI provider for tests: one HTTP server on loopback that speaks OpenAI's chat completions
// (POST /v1/chat/completions) and Anthropic's messages (POST /v1/messages) wire formats, their
// error bodies included. A word in the user prompt picks the behaviour:
//   scenario:unauthorized  401 with the provider's error body (echoing the key, as providers do)
//   scenario:overloaded    OpenAI 429 rate_limit_exceeded / Anthropic 529 overloaded_error
//   scenario:refuse        a refusal (OpenAI `message.refusal`, Anthropic `stop_reason: refusal`)
//   scenario:slow          answers after `slowMs`
//   scenario:garbage       200 with a body that is not JSON
// Otherwise it answers `answer` (set by the test) as the model's text.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What an app that calls this provider needs in its environment: the provider listens on loopback,
 * which AI_BASE_URL reaches only when the operator allows private addresses (decision 0116).
 */
export const AI_PROVIDER_ENV = { BLUME_AI_ALLOW_PRIVATE: 'True' } as const;

/** The settings that turn a site's AI drafting on through `ai` (OpenAI's wire format) with `model`. */
export function aiSettings(ai: AiProviderServer, model: string): Record<string, string> {
  return {
    AI_CONTENT_ENABLED: 'true',
    AI_PROVIDER: 'openai',
    AI_BASE_URL: `${ai.origin}/v1`,
    AI_MODEL: model,
    AI_API_KEY: ai.apiKey,
  };
}

export interface RecordedCall {
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

export interface AiProviderServer {
  /** http://127.0.0.1:<port> */
  origin: string;
  apiKey: string;
  answer: string;
  slowMs: number;
  calls: RecordedCall[];
  close(): Promise<void>;
}

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  response.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/html' : 'application/json' }).end(text);
}

function userText(path: string, body: Record<string, unknown>): string {
  const messages = (body.messages ?? []) as Array<{ role: string; content: string }>;
  return (
    messages
      .filter((m) => m.role === 'user')
      .map((m) => m.content)
      .join('\n') + (path ? '' : '')
  );
}

export async function startAiProvider(apiKey = 'sk-test-0123456789abcdef'): Promise<AiProviderServer> {
  const state: AiProviderServer = { origin: '', apiKey, answer: '{}', slowMs: 1000, calls: [], close: async () => {} };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      const path = request.url ?? '';
      state.calls.push({ path, headers: request.headers, body });
      const openai = path === '/v1/chat/completions';
      const anthropic = path === '/v1/messages';
      if (!openai && !anthropic) return send(response, 404, { error: { message: 'not found' } });
      const presented = openai ? request.headers.authorization?.replace(/^Bearer /, '') : request.headers['x-api-key'];
      const prompt = userText(path, body);
      const unauthorized = presented !== state.apiKey || prompt.includes('scenario:unauthorized');
      if (unauthorized) {
        return openai
          ? send(response, 401, {
              error: {
                message: `Incorrect API key provided: ${String(presented)}. You can find your API key in your account.`,
                type: 'invalid_request_error',
                param: null,
                code: 'invalid_api_key',
              },
            })
          : send(response, 401, {
              type: 'error',
              error: { type: 'authentication_error', message: `invalid x-api-key ${String(presented)}` },
            });
      }
      if (anthropic && request.headers['anthropic-version'] !== '2023-06-01') {
        return send(response, 400, {
          type: 'error',
          error: { type: 'invalid_request_error', message: 'anthropic-version header is required' },
        });
      }
      if (prompt.includes('scenario:overloaded')) {
        return openai
          ? send(response, 429, {
              error: {
                message: 'Rate limit reached for requests',
                type: 'requests',
                param: null,
                code: 'rate_limit_exceeded',
              },
            })
          : send(response, 529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
      }
      if (prompt.includes('scenario:garbage')) return send(response, 200, '<html>Bad gateway</html>');
      const model = String(body.model);
      const respond = (text: string | null, refusal: string | null) => {
        if (openai) {
          send(response, 200, {
            id: 'chatcmpl-test',
            object: 'chat.completion',
            created: Math.floor(Date.now() / 1000),
            model,
            choices: [
              {
                index: 0,
                message: { role: 'assistant', content: text, refusal },
                logprobs: null,
                finish_reason: 'stop',
              },
            ],
            usage: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 },
          });
        } else {
          send(response, 200, {
            id: 'msg_test',
            type: 'message',
            role: 'assistant',
            model,
            content: text === null ? [] : [{ type: 'text', text }],
            stop_reason: refusal ? 'refusal' : 'end_turn',
            stop_sequence: null,
            usage: { input_tokens: 10, output_tokens: 20 },
          });
        }
      };
      if (prompt.includes('scenario:refuse')) return respond(null, 'I cannot help with that.');
      if (prompt.includes('scenario:slow')) {
        setTimeout(() => respond(state.answer, null), state.slowMs).unref();
        return;
      }
      respond(state.answer, null);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}
