// The one HTTP call both providers make: JSON in, JSON out, a deadline, and errors mapped to codes.
// AI_BASE_URL is a setting, so the call holds to the outbound address rule (src/lib/outbound-targets.ts)
// at connect time unless BLUME_AI_ALLOW_PRIVATE=True, follows no redirect, and never passes on what a
// provider's error answer said: that goes to the log (decision 0116).
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { hostOfUrl, isPublicAddress, publicOnlyLookup, TargetRefusedError } from '../../lib/outbound-targets.js';
import { aiError, type AiSettings } from './types.js';

const DEFAULT_TIMEOUT_MS = 60_000;
/** The largest answer read; a model's JSON answer is far smaller. */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;
/** How much of an error answer goes to the log. */
const MAX_LOGGED = 2000;

/**
 * Error codes the providers document; only these are passed on (as `provider_error`), so nothing
 * else an error answer says reaches the caller.
 */
const KNOWN_PROVIDER_ERRORS = new Set([
  'invalid_api_key',
  'invalid_request_error',
  'rate_limit_exceeded',
  'insufficient_quota',
  'model_not_found',
  'context_length_exceeded',
  'server_error',
  'authentication_error',
  'permission_error',
  'not_found_error',
  'request_too_large',
  'rate_limit_error',
  'api_error',
  'overloaded_error',
  'billing_error',
]);

/** What a provider's status usually means for the site's settings. */
function hintFor(status: number): string {
  if (status >= 300 && status < 400) return ' Redirects are not followed: set AI_BASE_URL to where the API answers.';
  if (status === 401 || status === 403) return ' Check AI_API_KEY.';
  if (status === 404) return ' Check AI_BASE_URL and AI_MODEL.';
  if (status === 429 || status === 529) return ' The provider is busy or the quota is spent; try again later.';
  return '';
}

/** The provider URL: the base's path with the fixed suffix appended; a fragment is dropped, a query kept. */
export function providerUrl(base: string | undefined, fallback: string, suffix: string): URL {
  const url = new URL(base || fallback);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError('AI_BASE_URL must be http or https');
  url.hash = '';
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${suffix}`;
  return url;
}

interface Answer {
  status: number;
  text: string;
}

function readAnswer(response: IncomingMessage): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_ANSWER_BYTES) {
        response.destroy(new RangeError('answer too large'));
        return;
      }
      chunks.push(chunk);
    });
    response.on('end', () =>
      resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
    );
    response.on('error', reject);
    response.on('aborted', () => reject(new Error('the answer was cut off')));
  });
}

function send(url: URL, headers: Record<string, string>, payload: string, signal: AbortSignal, allowPrivate: boolean) {
  const host = hostOfUrl(url);
  if (!allowPrivate && isIP(host) && !isPublicAddress(host)) return Promise.reject(new TargetRefusedError(host, host));
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<Answer>((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': Buffer.byteLength(payload) },
        signal,
        ...(allowPrivate ? {} : { lookup: publicOnlyLookup }),
      },
      (response) => readAnswer(response).then(resolve, reject),
    );
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

/** POSTs `body` and answers the parsed JSON; `readErrorType` reads the error code a provider's error answer names. */
export async function postJson(
  settings: AiSettings,
  url: URL,
  headers: Record<string, string>,
  body: unknown,
  readErrorType: (json: unknown) => string | undefined,
): Promise<unknown> {
  const { provider, apiKey } = settings;
  const timeoutMs = settings.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const signal = AbortSignal.timeout(timeoutMs);
  let answer: Answer;
  try {
    answer = await send(
      url,
      { 'content-type': 'application/json', accept: 'application/json', ...headers },
      JSON.stringify(body),
      signal,
      settings.allowPrivate ?? false,
    );
  } catch (error) {
    if (signal.aborted)
      throw aiError(
        'ai_timeout',
        `The ${provider} API did not answer within ${Math.round(timeoutMs / 1000)} s.`,
        apiKey,
      );
    if (error instanceof TargetRefusedError)
      throw aiError(
        'ai_target_refused',
        `AI_BASE_URL: ${error.message}. The server's operator allows such providers with BLUME_AI_ALLOW_PRIVATE=True.`,
        apiKey,
        { host: error.host, address: error.address },
      );
    if (error instanceof RangeError)
      throw aiError('ai_invalid_output', `The ${provider} API answered more than the largest answer read.`, apiKey);
    const cause = error as NodeJS.ErrnoException;
    throw aiError(
      'ai_provider_error',
      `The ${provider} API at ${url.origin} could not be reached: ${cause.code ?? cause.message}.`,
      apiKey,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(answer.text);
  } catch {
    json = undefined;
  }
  if (answer.status < 200 || answer.status > 299) {
    const type = readErrorType(json);
    const known = type !== undefined && KNOWN_PROVIDER_ERRORS.has(type) ? type : undefined;
    const scrubbed = apiKey ? answer.text.split(apiKey).join('[key]') : answer.text;
    settings.logger?.warn(
      { provider, origin: url.origin, status: answer.status, answer: scrubbed.slice(0, MAX_LOGGED) },
      'the AI provider answered an error',
    );
    throw aiError(
      'ai_provider_error',
      `The ${provider} API answered ${answer.status}.${hintFor(answer.status)}`,
      apiKey,
      { provider_status: answer.status, ...(known ? { provider_error: known } : {}) },
    );
  }
  if (json === undefined)
    throw aiError('ai_invalid_output', `The ${provider} API answered something that is not JSON.`, apiKey);
  return json;
}
