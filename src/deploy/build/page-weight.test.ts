// Page weight of built docs sites (a size check, not a timed test): a typical first page load, HTML
// plus the CSS and JS it links, brotli-compressed as the edge sends it, stays at or under 10 KB.
// "Typical" is the median page of fastify's and pino's own docs (58 pages, from node_modules).
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { firstLoad, type FirstLoad } from '../../../test/helpers/docs-weight.js';
import { writeFastifyPinoDocs } from '../../../test/helpers/fastify-pino-docs.js';
import { buildDocsSite } from './docs-site.js';

const TYPICAL_FIRST_LOAD_MAX = 10 * 1024;

describe('first page load weight of a docs site', () => {
  let scratch: string;
  let output: string;
  const loads = new Map<string, FirstLoad>();

  before(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'blume-docs-weight-'));
    output = path.join(scratch, 'out');
    await writeFastifyPinoDocs(path.join(scratch, 'in'));
    await buildDocsSite(path.join(scratch, 'in'), output, { siteUrl: 'https://docs.test' });
    for (const file of await readdir(output, { recursive: true })) {
      if (file.endsWith('index.html')) loads.set(file, await firstLoad(output, file));
    }
  });
  after(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it('is at most 10 KB brotli for the median page', (t) => {
    const sorted = [...loads].sort((a, b) => a[1].bytes - b[1].bytes);
    assert.ok(sorted.length > 50, `only ${sorted.length} pages were built`);
    const [file, median] = sorted[Math.floor(sorted.length / 2)]!;
    const server = loads.get('fastify/Reference/Server/index.html')!;
    t.diagnostic(
      `median first load: ${file}, ${median.bytes} bytes (HTML ${median.htmlBytes}); fastify Server reference: ${server.bytes} bytes (HTML ${server.htmlBytes})`,
    );
    assert.ok(
      median.bytes <= TYPICAL_FIRST_LOAD_MAX,
      `the median first load (${file}) is ${median.bytes} bytes brotli, over ${TYPICAL_FIRST_LOAD_MAX}`,
    );
  });

  it('fetches one stylesheet and one script, and no search code or index', async () => {
    for (const [file, load] of loads) {
      assert.equal(load.files.length, 3, `${file}: ${load.files.join(', ')}`);
      assert.match(load.files[1]!, /^\/_blume\/blume\.[0-9a-f]{10}\.css$/);
      assert.match(load.files[2]!, /^\/_blume\/blume\.[0-9a-f]{10}\.js$/);
    }
    const script = await readFile(path.join(output, [...loads.values()][0]!.files[2]!), 'utf8');
    assert.doesNotMatch(script, /fetch\(/, 'the search code is loaded on first use, not with the page');
  });
});
