// Anthropic's messages API: POST {base}/v1/messages with `x-api-key` and `anthropic-version`.
import { postJson, providerUrl } from './http.js';
import { aiError, type AiClient, type AiSettings } from './types.js';

const ANTHROPIC_DEFAULT_BASE = 'https://api.anthropic.com';
const ANTHROPIC_VERSION = '2023-06-01';
const DEFAULT_MAX_TOKENS = 4096;

interface MessagesAnswer {
  model?: string;
  stop_reason?: string | null;
  content?: Array<{ type: string; text?: string }>;
}

function readErrorType(json: unknown): string | undefined {
  const type = (json as { error?: { type?: unknown } } | undefined)?.error?.type;
  return typeof type === 'string' ? type : undefined;
}

export function createAnthropicClient(settings: AiSettings): AiClient {
  const url = providerUrl(settings.baseUrl, ANTHROPIC_DEFAULT_BASE, '/v1/messages');
  return {
    async complete(request) {
      const answer = (await postJson(
        settings,
        url,
        { 'x-api-key': settings.apiKey, 'anthropic-version': ANTHROPIC_VERSION },
        {
          model: settings.model,
          max_tokens: request.maxTokens ?? DEFAULT_MAX_TOKENS,
          system: request.system,
          messages: [{ role: 'user', content: request.prompt }],
        },
        readErrorType,
      )) as MessagesAnswer;
      if (answer.stop_reason === 'refusal')
        throw aiError('ai_refused', 'The model refused to answer.', settings.apiKey);
      const text = (answer.content ?? [])
        .filter((block) => block.type === 'text' && typeof block.text === 'string')
        .map((block) => block.text)
        .join('');
      if (text.trim() === '') throw aiError('ai_invalid_output', 'The model answered no text.', settings.apiKey);
      return { text, model: answer.model ?? settings.model };
    },
  };
}
