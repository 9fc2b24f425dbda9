// The bundled build entry: what a build process loads at start leaves out KaTeX and the HTML
// sanitizer (loaded only for pages that need them), and `npm run build` makes the bundle dist/ runs.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { bundleBuilderEntry } from './entry-bundle.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const LAZY = ['node_modules/katex/', 'node_modules/sanitize-html/'];

/** Files a module loads before it runs: its static imports, followed through the bundle's chunks. */
async function staticImports(dir: string, file: string, seen: Set<string>): Promise<void> {
  if (seen.has(file)) return;
  seen.add(file);
  const code = await readFile(path.join(dir, file), 'utf8');
  for (const match of code.matchAll(/^(?:import|export)\s[^;]*?["']\.\/([\w.-]+\.mjs)["']/gms))
    await staticImports(dir, match[1]!, seen);
}

/** What every build loads: the entry, the modules it imports itself (statically or not), and theirs. */
async function loadedAtStart(dir: string, entry: string): Promise<Set<string>> {
  const seen = new Set<string>();
  await staticImports(dir, entry, seen);
  const code = await readFile(path.join(dir, entry), 'utf8');
  for (const match of code.matchAll(/\bimport\(["']\.\/([\w.-]+\.mjs)["']\)/g))
    await staticImports(dir, match[1]!, seen);
  return seen;
}

describe('the bundled build entry', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'blume-entry-bundle-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps KaTeX and the sanitizer out of what a build loads at start', async () => {
    const script = await bundleBuilderEntry(path.join(here, 'build-entry.ts'), dir);
    const atStart = await loadedAtStart(dir, path.basename(script));
    const files = await readdir(dir);
    for (const marker of LAZY) {
      const holders = [];
      for (const file of files) if ((await readFile(path.join(dir, file), 'utf8')).includes(marker)) holders.push(file);
      assert.ok(holders.length > 0, `${marker} is in the bundle`);
      for (const file of holders) assert.ok(!atStart.has(file), `${file} (${marker}) is loaded at start`);
    }
    assert.ok(atStart.size > 1, 'the entry loads its chunks');
  });

  it('is made by npm run build for dist/', () => {
    const manifest = JSON.parse(readFileSync(path.join(here, '../../../package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    assert.match(manifest.scripts.build!, /&& node dist\/deploy\/build\/entry-bundle\.js$/);
  });
});
