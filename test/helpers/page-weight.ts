// The weight of a first visit to a server-rendered page, as a browser gets it: the page's HTML and the
// stylesheets and scripts it links, each fetched as a browser that accepts brotli and gzip asks for
// it, counted in the bytes that cross the wire (compressed where the server compresses). The docs
// sites' counterpart reads built files (docs-weight.ts).
import assert from 'node:assert/strict';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { LightMyRequestResponse } from 'fastify';

/** What a browser sends as Accept-Encoding. */
const BROWSER_ENCODINGS = { 'accept-encoding': 'gzip, deflate, br, zstd' };

interface ServedFirstLoad {
  /** Bytes on the wire of the page and its linked CSS and JS together. */
  bytes: number;
  /** The paths fetched, the page first. */
  files: string[];
}

const LINKED_ASSET = /<(?:link rel="stylesheet" href|script src)="([^"]+)"/g;

/** `get` fetches a path of the server with the headers given, e.g. a logged-in client's. */
export async function servedFirstLoad(
  get: (url: string, headers: Record<string, string>) => Promise<LightMyRequestResponse>,
  url: string,
): Promise<ServedFirstLoad> {
  const page = await get(url, BROWSER_ENCODINGS);
  assert.equal(page.statusCode, 200, url);
  const files = [url];
  let bytes = page.rawPayload.length;
  const coding = page.headers['content-encoding'];
  const raw = page.rawPayload;
  const html = coding === 'br' ? brotliDecompressSync(raw) : coding === 'gzip' ? gunzipSync(raw) : raw;
  for (const match of html.toString('utf8').matchAll(LINKED_ASSET)) {
    const asset = match[1]!;
    const response = await get(asset, BROWSER_ENCODINGS);
    assert.equal(response.statusCode, 200, asset);
    files.push(asset);
    bytes += response.rawPayload.length;
  }
  return { bytes, files };
}
