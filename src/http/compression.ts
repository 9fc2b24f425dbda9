// Brotli or gzip for the server-rendered pages and assets of the console, forum, CMS editor and help
// desk, as the static edge does for release files (decision 0124). Pages are compressed on the fly
// above a size threshold; an asset (a constant answered with `Cache-Control: public`) is compressed
// once, at the highest quality, and kept. Answers that already carry a `Content-Encoding` (the edge's
// precompressed variants) and streams pass through.
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip, type BrotliOptions, type ZlibOptions } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { acceptsEncoding } from '../lib/accept-encoding.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** False on routes that encode their own answers (the static edge, with a precompressed variant and ETag each). */
    compress?: boolean;
  }
}

type Coding = 'br' | 'gzip';

/** Below this, headers outweigh what compression saves. */
const MIN_BYTES = 1024;
/** Pages are compressed per request: brotli 5 keeps a 20 KB page well under a millisecond. */
const PAGE_OPTIONS: Record<Coding, BrotliOptions | ZlibOptions> = {
  br: { params: { [zlib.BROTLI_PARAM_QUALITY]: 5 } },
  gzip: { level: 6 },
};
/** Assets are compressed once per process, so the smallest answer wins. */
const ASSET_OPTIONS: Record<Coding, BrotliOptions | ZlibOptions> = {
  br: { params: { [zlib.BROTLI_PARAM_QUALITY]: zlib.BROTLI_MAX_QUALITY } },
  gzip: { level: 9 },
};
/** Assets kept compressed: the few constant stylesheets and scripts of the web UIs. */
const MAX_ASSETS = 64;

const compressors: Record<Coding, (body: Buffer, options: BrotliOptions | ZlibOptions) => Promise<Buffer>> = {
  br: promisify(brotliCompress),
  gzip: promisify(gzip),
};

const COMPRESSIBLE = /^(text\/|image\/svg\+xml|application\/(javascript|xml|atom\+xml|rss\+xml))/;

function chooseCoding(request: FastifyRequest): Coding | undefined {
  const accept = request.headers['accept-encoding'];
  if (acceptsEncoding(accept, 'br')) return 'br';
  if (acceptsEncoding(accept, 'gzip')) return 'gzip';
  return undefined;
}

function compressible(reply: FastifyReply, payload: unknown): payload is string | Buffer {
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return false;
  if (reply.statusCode < 200 || reply.statusCode === 204 || reply.statusCode === 206 || reply.statusCode === 304) {
    return false;
  }
  if (reply.hasHeader('content-encoding')) return false;
  const type = reply.getHeader('content-type');
  return typeof type === 'string' && COMPRESSIBLE.test(type);
}

function isAsset(reply: FastifyReply): boolean {
  const cacheControl = reply.getHeader('cache-control');
  return typeof cacheControl === 'string' && cacheControl.startsWith('public');
}

export function compressAnswers(app: FastifyInstance): void {
  const assets = new Map<string, Promise<Buffer>>();
  const compressAsset = (body: Buffer, coding: Coding): Promise<Buffer> => {
    const key = `${coding}:${body.toString('latin1')}`;
    let compressed = assets.get(key);
    if (!compressed) {
      if (assets.size >= MAX_ASSETS) assets.delete(assets.keys().next().value!);
      compressed = compressors[coding](body, ASSET_OPTIONS[coding]);
      assets.set(key, compressed);
    }
    return compressed;
  };

  // A callback hook: most answers (API JSON under the threshold, clients without the header) pass
  // through without a promise.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.routeOptions.config.compress === false || !compressible(reply, payload)) return done(null, payload);
    const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
    if (body.length < MIN_BYTES) return done(null, payload);
    reply.header('vary', mergeVary(reply.getHeader('vary')));
    const coding = chooseCoding(request);
    if (!coding) return done(null, payload);
    const compressed = isAsset(reply) ? compressAsset(body, coding) : compressors[coding](body, PAGE_OPTIONS[coding]);
    compressed.then(
      (bytes) => {
        reply.header('content-encoding', coding);
        reply.removeHeader('content-length');
        done(null, bytes);
      },
      (error: Error) => done(error),
    );
  });
}

function mergeVary(vary: unknown): string {
  if (typeof vary !== 'string' || vary === '') return 'Accept-Encoding';
  if (vary.split(',').some((name) => name.trim().toLowerCase() === 'accept-encoding')) return vary;
  return `${vary}, Accept-Encoding`;
}
