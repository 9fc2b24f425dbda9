// Conditional GETs (docs/decisions/0129-http-etags.md): an answer clients poll carries an `ETag`,
// and a request naming it in `If-None-Match` is answered `304 Not Modified` with no body. A route
// declares where its tag comes from in its options, `config.etag`:
// - a function of the request giving what the answer is read under (the cache seam's epochs, the
//   forum's versions, resolved ids): the tag is made after the route's own preHandlers (who asks,
//   may they) and before its handler, so a matching request builds nothing;
// - `'body'`: the answer's bytes, hashed once made, for answers that also depend on the clock (SLA
//   flags) or on rows no version follows: the body is built, not sent (a Buffer answered again, as
//   a kept page's is, is hashed once). A function answering `undefined` falls back to this.
// Either way the tag names the URL and the credential the request carried, so one viewer never
// matches a tag another was given; it is weak, since the page compression sends several encodings
// of one answer; `Vary` names the credential headers, and an answer to a credential says
// `Cache-Control: private, no-cache` (no shared cache keeps it, every use revalidates).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';

/** What an answer was read under: versions, epochs, ids. Their order matters; `undefined` counts too. */
export type EtagParts = ReadonlyArray<string | number | boolean | null | undefined>;

/** Where a route's tag comes from (see above). */
type EtagSource = 'body' | ((request: FastifyRequest) => EtagParts | undefined | Promise<EtagParts | undefined>);

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route answers `ETag` and `304` to a matching `If-None-Match` (src/http/etags.ts). */
    etag?: EtagSource;
  }
}

/** The headers a credential travels in: an answer depends on them. */
const CREDENTIAL_HEADERS = ['authorization', 'authentication-token', 'cookie'] as const;
const VARY = ['Authorization', 'Authentication-Token', 'Cookie'];

/** A new release may present the same rows differently: its tags are new. */
const RELEASE: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** The tags made before the handler ran, by request. */
const tags = new WeakMap<FastifyRequest, string>();

/** The hash of each answer body hashed so far: an answer a node keeps goes out as the same Buffer, hashed once. */
const bodyHashes = new WeakMap<Buffer, string>();

function bodyHash(body: string | Buffer): string {
  if (typeof body === 'string') return createHash('sha256').update(body).digest('base64url');
  let hash = bodyHashes.get(body);
  if (hash === undefined) bodyHashes.set(body, (hash = createHash('sha256').update(body).digest('base64url')));
  return hash;
}

function digest(request: FastifyRequest, kind: string, parts: EtagParts): string {
  // The URL with its query: the parts rarely name the page, the filter or the fields asked for.
  const hash = createHash('sha256').update(`${RELEASE}\n${kind}\n${request.url}\n`);
  for (const name of CREDENTIAL_HEADERS) hash.update(`${String(request.headers[name] ?? '')}\n`);
  for (const part of parts) hash.update(`${part === undefined ? '\u0000' : String(part)}\n`);
  return `W/"${kind}${hash.digest('base64url').slice(0, 27)}"`;
}

/** Whether `If-None-Match` names `tag` (weak comparison: `W/` does not matter), or is `*`. */
export function matchesIfNoneMatch(header: string | undefined, tag: string): boolean {
  if (!header) return false;
  const opaque = tag.replace(/^W\//, '');
  return header.split(',').some((candidate) => {
    const trimmed = candidate.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === opaque;
  });
}

function conditional(request: FastifyRequest): boolean {
  return request.method === 'GET' || request.method === 'HEAD';
}

/** The route's own last preHandler: its tag from what it was read under, and a 304 before the handler. */
async function tagBeforeHandler(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const source = request.routeOptions.config.etag;
  if (typeof source !== 'function' || !conditional(request)) return;
  const parts = await source(request);
  if (!parts) return;
  const tag = digest(request, 'v', parts);
  tags.set(request, tag);
  if (matchesIfNoneMatch(request.headers['if-none-match'], tag)) await reply.code(304).send();
}

function headersOf(request: FastifyRequest, reply: FastifyReply, tag: string): void {
  reply.header('etag', tag);
  const vary = reply.getHeader('vary');
  const named = typeof vary === 'string' && vary !== '' ? vary.split(',').map((name) => name.trim()) : [];
  const lower = new Set(named.map((name) => name.toLowerCase()));
  reply.header('vary', [...named, ...VARY.filter((name) => !lower.has(name.toLowerCase()))].join(', '));
  if (!reply.hasHeader('cache-control')) {
    const credential = CREDENTIAL_HEADERS.some((name) => request.headers[name] !== undefined);
    reply.header('cache-control', credential ? 'private, no-cache' : 'no-cache');
  }
}

/**
 * Conditional GETs for every route that declares `config.etag`: add before the routes (its
 * onRoute hook sees them) and before the page compression (its onSend hook hashes plain bytes).
 */
export function conditionalGets(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    if (typeof route.config?.etag !== 'function') return;
    const own = route.preHandler === undefined ? [] : [route.preHandler].flat();
    if (!own.includes(tagBeforeHandler)) route.preHandler = [...own, tagBeforeHandler];
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    const source = request.routeOptions.config.etag;
    if (!source || !conditional(request)) return done(null, payload);
    let tag = tags.get(request);
    if (reply.statusCode === 304 && tag) {
      headersOf(request, reply, tag);
      return done(null, payload);
    }
    if (reply.statusCode !== 200) return done(null, payload);
    if (!tag) {
      if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return done(null, payload);
      tag = digest(request, 'b', [bodyHash(payload)]);
    }
    headersOf(request, reply, tag);
    if (!matchesIfNoneMatch(request.headers['if-none-match'], tag)) return done(null, payload);
    reply.code(304);
    reply.removeHeader('content-length');
    done(null, '');
  });
}
