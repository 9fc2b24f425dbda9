// AI providers behind one small interface, chosen per site from its settings (AI_PROVIDER).
import { createAnthropicClient } from './anthropic.js';
import { createOpenAiClient } from './openai.js';
import type { AiClient, AiSettings } from './types.js';

export {
  AiProviderError,
  aiError,
  type AiClient,
  type AiLogger,
  type AiProviderName,
  type AiSettings,
  type Completion,
  type CompletionResult,
} from './types.js';

export function createAiClient(settings: AiSettings): AiClient {
  return settings.provider === 'anthropic' ? createAnthropicClient(settings) : createOpenAiClient(settings);
}
