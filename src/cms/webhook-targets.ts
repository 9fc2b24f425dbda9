// Where webhooks may be sent: by default only to public addresses (the shared rule of
// src/lib/outbound-targets.ts). A URL's host is resolved and every address checked when the
// subscription is made, and again on every delivery, by the lookup the connection itself uses, so a name that later resolves to a private address (DNS rebinding)
// reaches nothing. BLUME_WEBHOOKS_ALLOW_PRIVATE=True lifts the rule for LAN and test receivers
// (docs/decisions/0047-webhook-targets.md).
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import {
  hostOfUrl,
  isPublicAddress,
  publicOnlyLookup,
  resolveTarget,
  TargetRefusedError,
} from '../lib/outbound-targets.js';
import { AppError } from '../http/errors.js';

/** Refuses (422 `webhook_target_refused`) a URL whose host resolves to any non-public address. */
export async function checkWebhookTarget(rawUrl: string, allowPrivate: boolean): Promise<void> {
  if (allowPrivate) return;
  const host = hostOfUrl(new URL(rawUrl));
  try {
    await resolveTarget(host, false);
  } catch (error) {
    if (error instanceof TargetRefusedError)
      throw new AppError(
        'webhook_target_refused',
        `${error.message}. Set BLUME_WEBHOOKS_ALLOW_PRIVATE=True on the instance to allow it.`,
        { host, address: error.address },
      );
    throw new AppError(
      'webhook_target_refused',
      `${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? 'lookup failed'}).`,
      { host },
    );
  }
}

interface PostOptions {
  headers: Record<string, string>;
  body: string;
  signal: AbortSignal;
  allowPrivate: boolean;
}

/**
 * POSTs a body and answers the response status (redirects are not followed). Unless private
 * targets are allowed, the connection's own lookup refuses non-public addresses.
 */
export function postWebhook(rawUrl: string, options: PostOptions): Promise<number> {
  const url = new URL(rawUrl);
  const host = hostOfUrl(url);
  if (!options.allowPrivate && isIP(host) && !isPublicAddress(host)) {
    return Promise.reject(new TargetRefusedError(host, host));
  }
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const requestOptions: RequestOptions = {
    method: 'POST',
    headers: { ...options.headers, 'content-length': Buffer.byteLength(options.body) },
    signal: options.signal,
    ...(options.allowPrivate ? {} : { lookup: publicOnlyLookup }),
  };
  return new Promise((resolve, reject) => {
    const outgoing = request(url, requestOptions, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}
