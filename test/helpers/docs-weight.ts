// The weight of a first visit to a page of a built docs site, as the edge sends it: the page's HTML
// and the CSS and JS files it links, each brotli-compressed as releases are (src/deploy/compression.ts).
// The search code and the search index are fetched on first use of the search box, so they are not
// part of a first load.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { compressSync } from '../../src/deploy/compression.js';

export interface FirstLoad {
  /** Brotli bytes of the HTML and its linked CSS and JS together. */
  bytes: number;
  htmlBytes: number;
  /** The site paths fetched, the page first. */
  files: string[];
}

const LINKED_ASSET = /<(?:link rel="stylesheet" href|script src)="([^"]+)"/g;

/** `pageFile` is the page's file in the site, e.g. `guide/install/index.html`. */
export async function firstLoad(site: string, pageFile: string): Promise<FirstLoad> {
  const html = await readFile(path.join(site, pageFile));
  const htmlBytes = compressSync(html, 'br').length;
  const files = [`/${pageFile}`];
  let bytes = htmlBytes;
  for (const match of html.toString('utf8').matchAll(LINKED_ASSET)) {
    const asset = match[1]!;
    files.push(asset);
    bytes += compressSync(await readFile(path.join(site, asset)), 'br').length;
  }
  return { bytes, htmlBytes, files };
}
