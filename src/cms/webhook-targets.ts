// Where webhooks may be sent: by default only to public addresses. A URL's host is resolved and
// every address checked when the subscription is made, and again on every delivery, by the lookup
// the connection itself uses, so a name that later resolves to a private address (DNS rebinding)
// reaches nothing. BLUME_WEBHOOKS_ALLOW_PRIVATE=True lifts the rule for LAN and test receivers
// (docs/decisions/0047-webhook-targets.md).
import { lookup } from 'node:dns';
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { AppError } from '../http/errors.js';

const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv6');
}

/** Whether an address is one webhooks may reach by default: not private, loopback, link-local or reserved. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
    if (mapped) return isPublicAddress(mapped);
    if (/^::ffff:/i.test(address)) return false;
    return !PRIVATE.check(address, 'ipv6');
  }
  return !PRIVATE.check(address, 'ipv4');
}

class TargetRefused extends Error {}

function refusedMessage(host: string, address: string): string {
  return `${host} resolves to ${address}, a private, loopback or link-local address`;
}

/** A `lookup` for connections that fails unless every address of the name is public. */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  lookup(hostname, { all: true, family: options.family ?? 0 }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const blocked = addresses.find((a) => !isPublicAddress(a.address));
    if (blocked) return callback(new TargetRefused(refusedMessage(hostname, blocked.address)), '', 0);
    if ((options as { all?: boolean }).all)
      return (callback as unknown as (e: null, a: typeof addresses) => void)(null, addresses);
    return callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};

const hostOf = (url: URL): string => url.hostname.replace(/^\[|\]$/g, '');

/** Refuses (422 `webhook_target_refused`) a URL whose host resolves to any non-public address. */
export async function checkWebhookTarget(rawUrl: string, allowPrivate: boolean): Promise<void> {
  if (allowPrivate) return;
  const host = hostOf(new URL(rawUrl));
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (
        await new Promise<Array<{ address: string }>>((resolve, reject) =>
          lookup(host, { all: true }, (e, a) => (e ? reject(e) : resolve(a))),
        )
      ).map((a) => a.address);
    } catch (error) {
      throw new AppError(
        'webhook_target_refused',
        `${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? 'lookup failed'}).`,
        { host },
      );
    }
  }
  const blocked = addresses.find((address) => !isPublicAddress(address));
  if (blocked) {
    throw new AppError(
      'webhook_target_refused',
      `${refusedMessage(host, blocked)}. Set BLUME_WEBHOOKS_ALLOW_PRIVATE=True on the instance to allow it.`,
      { host, address: blocked },
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
  const host = hostOf(url);
  if (!options.allowPrivate && isIP(host) && !isPublicAddress(host)) {
    return Promise.reject(new TargetRefused(`${host} is a private, loopback or link-local address`));
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
