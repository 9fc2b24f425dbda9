// The static edge (DESIGN section 5): the host picks the release (production -> live, `stage--` ->
// stage, `r-<id>--` -> that release), the path picks the file. Directory indexes, nearest 404.html,
// `_redirects` and `_headers`, strong ETags from the content hash, byte ranges and the precompressed
// variants made at ingest. Blobs on local disk are streamed straight from their file.
import { timingSafeEqual, createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { Readable, Transform } from 'node:stream';
import type { FastLane, LaneRequest, LaneSink } from '../http/lane.js';
import type { SurfaceOf } from '../http/surface.js';
import type { BlobStore } from '../adapters/blobs/index.js';
import { AppError } from '../http/errors.js';
import { acceptsEncoding } from '../lib/accept-encoding.js';
import type { HostTarget } from '../http/hosts.js';
import { blobKey, type Variant } from './blobs.js';
import { isFingerprinted, isHtml, isCompressible } from './content-types.js';
import type { AliasPointers, EdgeCache, Manifest, ManifestFile } from './edge-cache.js';
import type { EdgeBytes } from './edge-bytes.js';
import { checkPreviewToken, PREVIEW_COOKIE, PREVIEW_TOKEN_PARAM, type PreviewScope } from './preview-links.js';

interface EdgeContext {
  cache: EdgeCache;
  blobs: BlobStore;
  bytes: EdgeBytes;
  /** Keys the shared preview links (preview-links.ts). */
  secretKey: string;
  /** Mark the preview-link cookie Secure (production, where sites are served over HTTPS). */
  secureCookies: boolean;
}

type SiteTarget = Exclude<HostTarget, { kind: 'portal' }>;

/** What the edge reads of a request: Fastify's, or the fast lane's for a raw one. */
interface EdgeRequest {
  readonly target: HostTarget;
  readonly headers: IncomingHttpHeaders;
  readonly url: string;
  readonly method: string;
}

/** What the edge does with a reply: Fastify's, or the fast lane's stand-in. */
interface EdgeReply {
  readonly raw: LaneSink;
  hijack(): unknown;
  header(name: string, value: string): EdgeReply;
  headers(values: Record<string, string>): EdgeReply;
  code(status: number): EdgeReply;
  send(payload?: unknown): EdgeReply;
}

const HTML_CACHE = 'max-age=0, must-revalidate';
const IMMUTABLE_CACHE = 'max-age=31536000, immutable';
const NOT_FOUND_PAGE =
  '<!doctype html><meta charset="utf-8"><title>Not found</title><h1>Not found</h1><p>There is no page at this address.</p>\n';

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Basic auth with user `preview` and the site's preview password, compared in constant time. */
function checkPreviewAuth(header: string | undefined, password: string): boolean {
  if (!header?.toLowerCase().startsWith('basic ')) return false;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) return false;
  const userOk = decoded.slice(0, colon) === 'preview';
  // Hashing both sides gives equal lengths, as timingSafeEqual needs.
  const passwordOk = timingSafeEqual(sha256(decoded.slice(colon + 1)), sha256(password));
  return userOk && passwordOk;
}

/** The value of one cookie in a Cookie header, or undefined. */
function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** A preview host's own preview-link cookie, when it holds a token that is still valid. */
function hasPreviewCookie(ctx: EdgeContext, target: SiteTarget, request: EdgeRequest, password: string): boolean {
  if (target.kind !== 'preview') return false;
  const token = cookieValue(request.headers.cookie, PREVIEW_COOKIE);
  if (!token) return false;
  return checkPreviewToken(ctx.secretKey, { siteId: target.site, releaseId: target.release, password }, token).ok;
}

/**
 * `next(value)` now when the value is at hand, else once its promise settles. The edge's caches
 * answer from memory almost always; staying synchronous then saves the promise and async-frame
 * allocations that were a large part of what a static request cost the garbage collector.
 */
function then<T, R>(value: T | Promise<T>, next: (value: T) => R | Promise<R>): R | Promise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/** The release a host serves, checking preview auth, with its manifest. */
function releaseFor(
  ctx: EdgeContext,
  target: SiteTarget,
  request: EdgeRequest,
  reply: EdgeReply,
): Manifest | Promise<Manifest> {
  return then(ctx.cache.pointers(target.site), (pointers) => {
    const releaseId = releaseIdFor(ctx, target, pointers, request, reply);
    return then(ctx.cache.manifest(releaseId), (manifest) => {
      if (!manifest || manifest.siteId !== target.site)
        throw new AppError('release_not_found', `Site "${target.site}" has no release "${releaseId}".`);
      return manifest;
    });
  });
}

function refusePreview(target: SiteTarget, reply: EdgeReply): void {
  reply.header('WWW-Authenticate', `Basic realm="${target.site} preview", charset="UTF-8"`);
  // Every answer of a preview or stage host, its refusals included, keeps it out of search indexes.
  reply.header('X-Robots-Tag', 'noindex');
}

function releaseIdFor(
  ctx: EdgeContext,
  target: SiteTarget,
  pointers: AliasPointers,
  request: EdgeRequest,
  reply: EdgeReply,
): string {
  if (
    target.kind !== 'site' &&
    !checkPreviewAuth(request.headers.authorization, pointers.password) &&
    !hasPreviewCookie(ctx, target, request, pointers.password)
  ) {
    refusePreview(target, reply);
    throw new AppError(
      'preview_auth_required',
      'Preview and stage hosts need basic auth: user "preview", password `aliases.auth` from GET /api/deploy/{id}/releases.',
    );
  }
  const releaseId =
    target.kind === 'preview' ? target.release : target.kind === 'stage' ? pointers.stage : pointers.live;
  if (!releaseId) {
    throw target.kind === 'stage'
      ? new AppError('no_stage_release', `Site "${target.site}" has no stage release.`)
      : new AppError('no_live_release', `Site "${target.site}" has no live release yet; promote one.`);
  }
  return releaseId;
}

type Resolution =
  | { kind: 'file'; file: ManifestFile; status: 200 | 404 | 410 }
  | { kind: 'redirect'; location: string; status: number }
  | { kind: 'missing' };

/** What a path names: a file, or the same page under its canonical slash form (a redirect). */
type Lookup = ManifestFile | { canonical: string } | undefined;

/**
 * The file a path names, by the release's trailing-slash option (site-options.ts): itself, its
 * folder's `index.html` or `<path>.html`, or a redirect to the page's canonical address. A path
 * naming a file exactly is served as it is under every option.
 */
function lookup(manifest: Manifest, path: string): Lookup {
  const { files } = manifest;
  const slashed = path === '' || path.endsWith('/');
  const base = slashed ? path.slice(0, -1) : path;
  const page = (): ManifestFile | undefined =>
    files.get(base === '' ? 'index.html' : `${base}/index.html`) ??
    (base === '' ? undefined : files.get(`${base}.html`));
  switch (manifest.options.trailingSlash) {
    case 'auto': {
      if (slashed) return files.get(`${path}index.html`);
      const file = files.get(path);
      if (file) return file;
      // A folder without its slash: redirect so relative links inside its index resolve correctly.
      if (files.has(`${path}/index.html`)) return { canonical: `${path}/` };
      return files.get(`${path}.html`);
    }
    case 'always':
      if (slashed) return page();
      return files.get(path) ?? (page() ? { canonical: `${path}/` } : undefined);
    case 'never':
      if (!slashed) return files.get(path) ?? page();
      if (path === '') return page();
      return page() || files.has(base) ? { canonical: base } : undefined;
  }
}

/** Whether a miss may be a client-side route: the last segment looks like a page, not a file. */
function isRouteLike(path: string): boolean {
  return !path.slice(path.lastIndexOf('/') + 1).includes('.');
}

function nearestNotFound(manifest: Manifest, path: string): ManifestFile | undefined {
  let folder = path.slice(0, path.lastIndexOf('/') + 1);
  for (;;) {
    const page = manifest.files.get(`${folder}404.html`);
    if (page || folder === '') return page;
    folder = folder.slice(0, folder.lastIndexOf('/', folder.length - 2) + 1);
  }
}

function resolve(manifest: Manifest, path: string, query: string): Resolution {
  const found = lookup(manifest, path);
  const rule = manifest.rules.redirectFor(`/${path}`);
  // A file shadows a rule unless the rule is forced with "!" (Netlify semantics).
  if (rule && (rule.force || !found)) {
    if (rule.status >= 300 && rule.status < 400)
      return {
        kind: 'redirect',
        location: rule.to.includes('?') || !query ? rule.to : `${rule.to}?${query}`,
        status: rule.status,
      };
    const target = lookup(manifest, rule.to.replace(/^\//, '').split('?', 1)[0]!);
    if (target && !('canonical' in target))
      return { kind: 'file', file: target, status: rule.status as 200 | 404 | 410 };
  }
  if (found && 'canonical' in found)
    return { kind: 'redirect', location: `/${found.canonical}${query ? `?${query}` : ''}`, status: 301 };
  if (found) return { kind: 'file', file: found, status: 200 };
  // Only when the release asks for it (`"spa": true` in _blume.json), and never for file-like paths,
  // so a missing script or image still answers 404 rather than the app's HTML.
  if (manifest.options.spa && isRouteLike(path)) {
    const app = manifest.files.get('index.html');
    if (app) return { kind: 'file', file: app, status: 200 };
  }
  const notFound = nearestNotFound(manifest, path);
  return notFound ? { kind: 'file', file: notFound, status: 404 } : { kind: 'missing' };
}

function etagOf(file: ManifestFile, variant: Variant): string {
  const base = file.hash.slice(0, 32);
  return variant === 'identity' ? `"${base}"` : `"${base}-${variant}"`;
}

function matchesEtag(header: string | undefined, etags: string[]): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  // If-None-Match uses weak comparison: W/ prefixes do not matter.
  return header.split(',').some((candidate) => etags.includes(candidate.trim().replace(/^W\//, '')));
}

function chooseVariant(request: EdgeRequest, file: ManifestFile): Variant {
  const accept = request.headers['accept-encoding'];
  if (file.brotliSize !== null && acceptsEncoding(accept, 'br')) return 'br';
  if (file.gzipSize !== null && acceptsEncoding(accept, 'gzip')) return 'gzip';
  return 'identity';
}

type RangeResult = { start: number; end: number } | 'unsatisfiable' | undefined;

/** A single `bytes=` range; several ranges are answered with the whole file, as RFC 9110 allows. */
export function parseRange(header: string | undefined, size: number): RangeResult {
  if (!header) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (start >= size || start > end) return 'unsatisfiable';
  return { start, end };
}

function cacheControl(target: SiteTarget, file: ManifestFile, status: number): string {
  // Stage and previews sit behind basic auth: shared caches must not keep them.
  const scope = target.kind === 'site' ? 'public' : 'private';
  if (status !== 200 || isHtml(file.contentType) || !isFingerprinted(file.path)) return `${scope}, ${HTML_CACHE}`;
  return `${scope}, ${IMMUTABLE_CACHE}`;
}

/** Skips `start` bytes and ends after `length` bytes: ranges over stores without ranged reads. */
function slice(stream: Readable, start: number, length: number): Readable {
  let skipped = 0;
  let sent = 0;
  return stream.pipe(
    new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        let part = chunk;
        if (skipped < start) {
          const skip = Math.min(start - skipped, part.length);
          skipped += skip;
          part = part.subarray(skip);
        }
        if (sent + part.length > length) part = part.subarray(0, length - sent);
        sent += part.length;
        callback(null, part.length > 0 ? part : undefined);
      },
    }),
  );
}

/** The blob's bytes (or a range of them): from memory when small enough, else streamed from the store. */
function openBlob(
  ctx: EdgeContext,
  key: string,
  size: number,
  range?: { start: number; end: number },
): Buffer | Readable | Promise<Buffer | Readable> {
  if (ctx.bytes.fits(size)) {
    return then(ctx.bytes.get(key), (bytes) => {
      if (!bytes) throw new Error(`blob ${key} is missing from the store`);
      return range ? bytes.subarray(range.start, range.end + 1) : bytes;
    });
  }
  if (ctx.blobs.localPath)
    return createReadStream(ctx.blobs.localPath(key), range ? { start: range.start, end: range.end } : {});
  return ctx.blobs.get(key).then((stream) => {
    if (!stream) throw new Error(`blob ${key} is missing from the store`);
    return range ? slice(stream, range.start, range.end - range.start + 1) : stream;
  });
}

/** Response headers by lower-case name, the form `writeHead` takes without further work. */
type Headers = Record<string, string>;

/**
 * Writes the answer. A body in memory (or none) goes straight to the socket: the hot path of the
 * edge, where Fastify's reply pipeline (header normalizing, onSend hooks) was a measurable part of
 * a small request. Fastify still logs the request and runs onResponse hooks, which hang on the
 * raw response. Streams go through `reply.send`, which handles their errors. This path is also
 * the only one by which the fast lane answers.
 */
function respond(reply: EdgeReply, status: number, headers: Headers, body?: Buffer | Readable): void {
  if (body === undefined || Buffer.isBuffer(body)) {
    reply.hijack();
    reply.raw.writeHead(status, headers);
    reply.raw.end(body);
    return;
  }
  reply.code(status).headers(headers).send(body);
}

function sendFile(
  ctx: EdgeContext,
  request: EdgeRequest,
  reply: EdgeReply,
  target: SiteTarget,
  manifest: Manifest,
  file: ManifestFile,
  status: number,
  urlPath: string,
): void | Promise<void> {
  const headers: Headers = {};
  // The site's `_headers` first: the edge's own headers below win over a rule naming the same one.
  for (const [name, value] of manifest.rules.headersFor(urlPath)) headers[name] = value;
  if (target.kind !== 'site') headers['x-robots-tag'] = 'noindex';
  headers['content-type'] = file.contentType;
  headers['cache-control'] = cacheControl(target, file, status);
  headers['x-content-type-options'] = 'nosniff';
  if (isCompressible(file.contentType)) headers.vary = 'Accept-Encoding';

  const head = request.method === 'HEAD';
  const rangeHeader = status === 200 ? request.headers.range : undefined;
  const ifRange = request.headers['if-range'];
  // Ranges are served from the identity bytes only; If-Range with another validator means "all of it".
  const range =
    rangeHeader && (!ifRange || ifRange === etagOf(file, 'identity')) ? parseRange(rangeHeader, file.size) : undefined;
  const variant = range ? 'identity' : chooseVariant(request, file);
  const etag = etagOf(file, variant);
  headers.etag = etag;
  headers['accept-ranges'] = 'bytes';

  if (status === 200 && matchesEtag(request.headers['if-none-match'], [etag])) return respond(reply, 304, headers);
  if (range === 'unsatisfiable') {
    headers['content-range'] = `bytes */${file.size}`;
    headers['content-length'] = '0';
    return respond(reply, 416, headers);
  }
  if (range) {
    const length = range.end - range.start + 1;
    headers['content-range'] = `bytes ${range.start}-${range.end}/${file.size}`;
    headers['content-length'] = String(length);
    if (head) return respond(reply, 206, headers);
    return then(openBlob(ctx, blobKey(file.hash), file.size, range), (body) => respond(reply, 206, headers, body));
  }
  const size = variant === 'br' ? file.brotliSize! : variant === 'gzip' ? file.gzipSize! : file.size;
  if (variant !== 'identity') headers['content-encoding'] = variant;
  headers['content-length'] = String(size);
  if (head) return respond(reply, status, headers);
  return then(openBlob(ctx, blobKey(file.hash, variant), size), (body) => respond(reply, status, headers, body));
}

function decodePath(url: string): string {
  const queryIndex = url.indexOf('?');
  const raw = queryIndex === -1 ? url : url.slice(0, queryIndex);
  try {
    // Most paths hold no escapes; decoding them anyway showed in the edge profile.
    return (raw.includes('%') ? decodeURIComponent(raw) : raw).replace(/^\/+/, '');
  } catch {
    throw new AppError('bad_request', 'The URL path is not valid percent-encoding.');
  }
}

/**
 * A shared preview link's first request: a valid token becomes a cookie on this preview host only,
 * and the browser goes on to the same address without the token (so it is not left in the history
 * or sent on as a Referer). A tampered or expired token is refused as the password would be.
 */
function acceptPreviewLink(
  ctx: EdgeContext,
  target: Extract<SiteTarget, { kind: 'preview' }>,
  request: EdgeRequest,
  reply: EdgeReply,
  query: URLSearchParams,
): void | Promise<void> {
  return then(ctx.cache.pointers(target.site), (pointers) => {
    const scope: PreviewScope = { siteId: target.site, releaseId: target.release, password: pointers.password };
    const token = query.get(PREVIEW_TOKEN_PARAM) ?? '';
    const check = checkPreviewToken(ctx.secretKey, scope, token);
    if (!check.ok) {
      refusePreview(target, reply);
      throw check.reason === 'expired'
        ? new AppError('preview_link_expired', 'This preview link has expired; ask for a new one.')
        : new AppError('preview_link_invalid', 'This preview link is not valid for this release.');
    }
    query.delete(PREVIEW_TOKEN_PARAM);
    const rest = query.toString();
    const pathOnly = request.url.slice(0, request.url.indexOf('?'));
    const maxAge = Math.max(0, Math.floor((check.expiresAt.getTime() - Date.now()) / 1000));
    const secure = ctx.secureCookies ? '; Secure' : '';
    const cookie = `${PREVIEW_COOKIE}=${token}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure}`;
    reply
      .code(303)
      .header('Location', rest ? `${pathOnly}?${rest}` : pathOnly)
      .header('Set-Cookie', cookie)
      .header('Cache-Control', 'no-store')
      .header('X-Robots-Tag', 'noindex')
      .header('Referrer-Policy', 'no-referrer')
      .send();
  });
}

/** Answers one GET or HEAD on a static host; synchronously when everything it needs is in memory. */
export function serveStatic(ctx: EdgeContext, request: EdgeRequest, reply: EdgeReply): void | Promise<void> {
  const target = request.target as SiteTarget;
  if (target.kind === 'preview' && request.url.includes(`${PREVIEW_TOKEN_PARAM}=`)) {
    const query = new URLSearchParams(request.url.slice(request.url.indexOf('?') + 1));
    if (query.has(PREVIEW_TOKEN_PARAM)) return acceptPreviewLink(ctx, target, request, reply, query);
  }
  return then(releaseFor(ctx, target, request, reply), (manifest) => {
    const path = decodePath(request.url);
    const queryIndex = request.url.indexOf('?');
    const query = queryIndex === -1 ? '' : request.url.slice(queryIndex + 1);
    const resolution = resolve(manifest, path, query);
    if (resolution.kind === 'file')
      return sendFile(ctx, request, reply, target, manifest, resolution.file, resolution.status, `/${path}`);
    if (target.kind !== 'site') reply.header('X-Robots-Tag', 'noindex');
    reply.header('Cache-Control', 'public, max-age=0, must-revalidate');
    if (resolution.kind === 'redirect') reply.code(resolution.status).header('Location', resolution.location).send();
    else reply.code(404).header('Content-Type', 'text/html; charset=utf-8').send(NOT_FOUND_PAGE);
  });
}

/**
 * The fast lane's stand-in reply. It answers only through `respond`'s direct path; a request that
 * needs anything else (a stream, a redirect, a 404 page, an error, a wait) is handed to Fastify,
 * which runs the edge again from the start. Writes that come after the hand-over are refused.
 */
class LaneReply implements EdgeReply {
  answered = false;
  handedOver = false;

  constructor(readonly raw: LaneSink) {}

  hijack(): this {
    if (this.handedOver) throw new Error('the request went to Fastify');
    this.answered = true;
    return this;
  }

  header(): this {
    return this;
  }

  headers(): this {
    return this;
  }

  code(): this {
    return this;
  }

  send(payload?: unknown): this {
    if (payload instanceof Readable) payload.destroy();
    this.handedOver = true;
    return this;
  }
}

/**
 * The static edge ahead of Fastify's router (docs/decisions/0023-edge-fast-lane.md): a GET or HEAD
 * on a static host whose site, pointers, manifest and bytes are all in memory is answered here,
 * with the same bytes and headers the routed edge writes. Everything else is passed on untouched.
 */
export function edgeFastLane(
  ctx: EdgeContext,
  surfaceOf: (request: LaneRequest) => SurfaceOf | undefined,
  closing: () => boolean,
): FastLane {
  return (request, sink) => {
    const { method, url } = request;
    if ((method !== 'GET' && method !== 'HEAD') || !url.startsWith('/') || closing()) return false;
    const found = surfaceOf(request);
    if (found?.surface !== 'static') return false;
    const reply = new LaneReply(sink);
    let result: void | Promise<void> = undefined;
    try {
      result = serveStatic(ctx, { target: found.target, headers: request.headers, url, method }, reply);
    } catch (error) {
      if (reply.answered) {
        sink.destroy(error as Error);
        return true;
      }
    }
    if (reply.answered) return true;
    reply.handedOver = true;
    if (result instanceof Promise) result.catch(() => undefined);
    return false;
  };
}
