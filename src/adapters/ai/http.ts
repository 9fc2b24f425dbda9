// The one HTTP call both providers make: JSON in, JSON out, a deadline, and errors mapped to codes
// with the key scrubbed from anything the provider said.
import { aiError, type AiSettings } from './types.js';

const DEFAULT_TIMEOUT_MS = 60_000;
/** How much of a provider's error message is passed on. */
const MAX_MESSAGE = 500;

export interface ProviderError {
  status: number;
  message: string;
  type?: string | undefined;
}

/** POSTs `body` and answers the parsed JSON; `readError` reads the provider's own error body. */
export async function postJson(
  settings: AiSettings,
  url: string,
  headers: Record<string, string>,
  body: unknown,
  readError: (status: number, json: unknown) => ProviderError,
): Promise<unknown> {
  const provider = settings.provider;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(settings.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      redirect: 'error',
    });
  } catch (error) {
    if ((error as Error).name === 'TimeoutError')
      throw aiError(
        'ai_timeout',
        `The ${provider} API did not answer within ${Math.round((settings.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000)} s.`,
        settings.apiKey,
      );
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw aiError(
      'ai_provider_error',
      `The ${provider} API at ${new URL(url).origin} could not be reached: ${cause?.code ?? cause?.message ?? (error as Error).message}.`,
      settings.apiKey,
    );
  }
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    if ((error as Error).name === 'TimeoutError')
      throw aiError('ai_timeout', `The ${provider} API did not finish its answer in time.`, settings.apiKey);
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (!response.ok) {
    const error = readError(response.status, json);
    const message = (error.message || text || response.statusText).slice(0, MAX_MESSAGE);
    throw aiError('ai_provider_error', `The ${provider} API answered ${response.status}: ${message}`, settings.apiKey, {
      provider_status: response.status,
      ...(error.type ? { provider_error: error.type } : {}),
    });
  }
  if (json === undefined)
    throw aiError('ai_invalid_output', `The ${provider} API answered something that is not JSON.`, settings.apiKey);
  return json;
}

export function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
