// The two ways the tool server reaches a Blume. `networkSender` goes over HTTP(S) (for `blume mcp`,
// which may run far from the platform); `injectSender` hands the request to the app it runs in (for
// `{portal_url}/mcp`), so that endpoint never opens a connection anywhere, whatever URL a caller names.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import type { FastifyInstance, InjectOptions } from 'fastify';
import type { ApiResponse, Sender } from './api.js';

/** `*.localhost` is loopback (RFC 6761), as Blume's default sites domain expects; the rest goes to DNS. */
const lookup: LookupFunction = (hostname, options, callback) => {
  if (hostname === 'localhost' || hostname.endsWith('.localhost')) {
    const address: LookupAddress = { address: '127.0.0.1', family: 4 };
    if ((options as { all?: boolean }).all)
      return (callback as (error: null, addresses: LookupAddress[]) => void)(null, [address]);
    return callback(null, address.address, address.family);
  }
  return dnsLookup(hostname, options, callback);
};

export function networkSender(timeoutMs = 120_000): Sender {
  return (request) =>
    new Promise<ApiResponse>((resolve, reject) => {
      const module = request.url.protocol === 'https:' ? https : http;
      const outgoing = module.request(
        request.url,
        { method: request.method, headers: request.headers, lookup, timeout: timeoutMs },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', reject);
          response.on('end', () =>
            resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
          );
        },
      );
      outgoing.on('timeout', () => outgoing.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
      outgoing.on('error', reject);
      const { body } = request;
      if (body instanceof Readable) {
        body.on('error', (error) => outgoing.destroy(error));
        body.pipe(outgoing);
      } else outgoing.end(body);
    });
}

export function injectSender(app: FastifyInstance): Sender {
  return async (request) => {
    const options: InjectOptions = {
      method: request.method as InjectOptions['method'],
      url: `${request.url.pathname}${request.url.search}`,
      headers: { ...request.headers, host: request.url.host },
      payload: request.body,
    };
    const response = await app.inject(options);
    return { status: response.statusCode, headers: response.headers, body: response.rawPayload };
  };
}
