// OpenAI's chat completions API (and the many servers that speak it): POST {base}/chat/completions.
import { postJson, providerUrl } from './http.js';
import { aiError, type AiClient, type AiSettings } from './types.js';

const OPENAI_DEFAULT_BASE = 'https://api.openai.com/v1';

interface ChatAnswer {
  model?: string;
  choices?: Array<{ finish_reason?: string; message?: { content?: string | null; refusal?: string | null } }>;
}

function readErrorType(json: unknown): string | undefined {
  const error = (json as { error?: { type?: unknown; code?: unknown } } | undefined)?.error;
  const type = error?.code ?? error?.type;
  return typeof type === 'string' ? type : undefined;
}

export function createOpenAiClient(settings: AiSettings): AiClient {
  const url = providerUrl(settings.baseUrl, OPENAI_DEFAULT_BASE, '/chat/completions');
  return {
    async complete(request) {
      const answer = (await postJson(
        settings,
        url,
        { authorization: `Bearer ${settings.apiKey}` },
        {
          model: settings.model,
          messages: [
            { role: 'system', content: request.system },
            { role: 'user', content: request.prompt },
          ],
          ...(request.json ? { response_format: { type: 'json_object' } } : {}),
          ...(request.maxTokens ? { max_tokens: request.maxTokens } : {}),
        },
        readErrorType,
      )) as ChatAnswer;
      const choice = answer.choices?.[0];
      if (choice?.message?.refusal)
        throw aiError('ai_refused', `The model refused: ${choice.message.refusal.slice(0, 500)}`, settings.apiKey);
      if (choice?.finish_reason === 'content_filter')
        throw aiError('ai_refused', "The provider's content filter stopped the answer.", settings.apiKey);
      const text = choice?.message?.content;
      if (typeof text !== 'string' || text.trim() === '')
        throw aiError('ai_invalid_output', 'The model answered no text.', settings.apiKey);
      return { text, model: answer.model ?? settings.model };
    },
  };
}
