// One AI completion: a system prompt, a user prompt, the answer's text. The Content API's drafting
// and the help desk's draft replies both use it; each site brings its own provider and key.
import { aiErrorCodes } from './errors.js';

export type AiProviderName = 'openai' | 'anthropic';

export interface AiSettings {
  provider: AiProviderName;
  /** The provider's API root; each provider has its default. */
  baseUrl?: string | undefined;
  model: string;
  apiKey: string;
  /** Milliseconds before the request is given up as 504 `ai_timeout`. */
  timeoutMs?: number | undefined;
  /** BLUME_AI_ALLOW_PRIVATE: whether the provider may be a private, loopback or link-local address. */
  allowPrivate?: boolean | undefined;
  /** Where a provider's error answers go; they never go to the caller. */
  logger?: AiLogger | undefined;
}

/** The part of the request logger the client uses. */
export interface AiLogger {
  warn(details: Record<string, unknown>, message: string): void;
}

export interface Completion {
  system: string;
  prompt: string;
  /** Ask for one JSON object as the answer (where the provider has a switch for it). */
  json?: boolean;
  maxTokens?: number;
}

export interface CompletionResult {
  text: string;
  /** The model that answered, as the provider names it. */
  model: string;
}

export interface AiClient {
  complete(request: Completion): Promise<CompletionResult>;
}

type AiErrorCode = keyof typeof aiErrorCodes;

/** A failed provider call with its stable code (errors.ts); callers answer it as problem+json. */
export class AiProviderError extends Error {
  readonly status: number;

  constructor(
    readonly code: AiErrorCode,
    detail: string,
    readonly extensions: Record<string, unknown> = {},
  ) {
    super(detail);
    this.name = 'AiProviderError';
    this.status = aiErrorCodes[code].status;
  }
}

/** An AiProviderError whose texts never carry the key, whatever the provider echoed back. */
export function aiError(
  code: AiErrorCode,
  detail: string,
  apiKey: string,
  extensions: Record<string, unknown> = {},
): AiProviderError {
  const scrub = (text: string): string => (apiKey ? text.split(apiKey).join('[key]') : text);
  return new AiProviderError(
    code,
    scrub(detail),
    JSON.parse(scrub(JSON.stringify(extensions))) as Record<string, unknown>,
  );
}
