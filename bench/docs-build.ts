// Benchmark: a generated 1,000-page Markdown site built by Blume (in process, and in the build
// sandbox as deploys run it) and by Hugo, the named anchor, in the same run. Prints wall times and
// the ratio to Hugo; the target is Blume in the sandbox <= 3x Hugo. Then the fastify+pino docs
// (from node_modules): build time, and the brotli weight of a first page load (HTML, CSS, JS) and of
// a first search (the word file and the section files of the results). Hugo is skipped with a message
// when it is not installed (`apt-get install hugo`).
//   npx tsx bench/docs-build.ts [pages]
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { readFile, readdir } from 'node:fs/promises';
import { brotliCompressSync } from 'node:zlib';
import { buildDocsSite } from '../src/deploy/build/docs-site.js';
import { shardKey } from '../src/deploy/build/search-index.js';
import { writeFastifyPinoDocs } from '../test/helpers/fastify-pino-docs.js';
import { runSandboxedBuild } from '../src/deploy/build/sandboxed-build.js';

const PAGES = Number(process.argv[2] ?? 1000);
const SECTIONS = 10;
const TARGET_RATIO = 3;

function pageBody(section: number, index: number, perSection: number): string {
  const next = (index + 1) % perSection;
  const other = (section + 1) % SECTIONS;
  return `
Page ${index} of section ${section} explains **widgets**, _gadgets_ and \`sprockets\` in some depth, with
a [link to the next page](page-${next}.md) and one [to another section](../section-${other}/page-${index % perSection}.md#usage).

## Overview

${'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. '.repeat(4)}

## Usage

\`\`\`ts
export function configure(name: string, retries = 3): Promise<void> {
  const started = Date.now(); // measure
  return run({ name, retries, started });
}
\`\`\`

| Option | Default | Meaning |
| ------ | ------- | ------- |
| retries | 3 | how often to retry |
| timeout | 30s | when to give up |

### Details

- [x] works offline
- [ ] works on Mars

${'Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat. '.repeat(3)}

## Reference

\`\`\`bash
acme run --name demo --retries 5
\`\`\`
`;
}

async function generate(root: string, flavour: 'blume' | 'hugo'): Promise<void> {
  const perSection = PAGES / SECTIONS;
  const content = flavour === 'hugo' ? path.join(root, 'content') : root;
  for (let s = 0; s < SECTIONS; s += 1) {
    const dir = path.join(content, `section-${s}`);
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, flavour === 'hugo' ? '_index.md' : 'index.md'), `---\ntitle: Section ${s}\nweight: ${s}\norder: ${s}\n---\n\nAll about section ${s}.\n`);
    await Promise.all(
      Array.from({ length: perSection }, (_, i) =>
        writeFile(path.join(dir, `page-${i}.md`), `---\ntitle: Page ${s}.${i}\ndescription: Page ${i} of section ${s}\norder: ${i}\nweight: ${i}\n---\n${pageBody(s, i, perSection)}`),
      ),
    );
  }
  await writeFile(path.join(content, flavour === 'hugo' ? '_index.md' : 'index.md'), '---\ntitle: Bench docs\n---\n\nWelcome.\n');
  if (flavour === 'hugo') await writeHugoSite(root);
}

/** A small Hugo theme doing what Blume's does: full navigation, table of contents, highlighting. */
async function writeHugoSite(root: string): Promise<void> {
  await mkdir(path.join(root, 'layouts', '_default'), { recursive: true });
  await writeFile(
    path.join(root, 'hugo.toml'),
    `baseURL = "https://bench.test/"\ntitle = "Bench docs"\ndisableKinds = ["taxonomy", "term", "RSS"]\n[markup.highlight]\nnoClasses = false\n[markup.tableOfContents]\nstartLevel = 2\nendLevel = 3\n`,
  );
  await writeFile(
    path.join(root, 'layouts', '_default', 'baseof.html'),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{{ .Title }} · {{ .Site.Title }}</title></head><body>
<nav>{{ partialCached "nav.html" . .Section }}</nav>
<main>{{ block "main" . }}{{ end }}</main></body></html>`,
  );
  // Cached per section, as Blume renders closed sections once.
  await mkdir(path.join(root, 'layouts', 'partials'), { recursive: true });
  await writeFile(
    path.join(root, 'layouts', 'partials', 'nav.html'),
    `<ul><li><a href="/">Home</a></li>{{ range .Site.Sections }}<li><details{{ if eq $.Section .Section }} open{{ end }}><summary><a href="{{ .RelPermalink }}">{{ .Title }}</a></summary><ul>{{ range .Pages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}</ul></details></li>{{ end }}</ul>`,
  );
  await writeFile(path.join(root, 'layouts', '_default', 'single.html'), `{{ define "main" }}<aside>{{ .TableOfContents }}</aside><article><h1>{{ .Title }}</h1>{{ .Content }}</article>{{ end }}`);
  await writeFile(path.join(root, 'layouts', '_default', 'list.html'), `{{ define "main" }}<article><h1>{{ .Title }}</h1>{{ .Content }}<ul>{{ range .Pages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}</ul></article>{{ end }}`);
}

const brotli = async (file: string): Promise<number> => brotliCompressSync(await readFile(file)).length;

/** Brotli bytes of a first load of `url` and of a first search for `word` (results' section files included). */
async function reportWeights(site: string, word: string, url: string): Promise<void> {
  const html = await readFile(path.join(site, url, 'index.html'), 'utf8');
  const assets = [...html.matchAll(/(?:href|src)="(\/_blume\/[^"]+\.(?:css|js))"/g)].map((m) => m[1]!);
  let page = await brotli(path.join(site, url, 'index.html'));
  for (const asset of assets) page += await brotli(path.join(site, asset));
  const index = /data-index="([^"]+)"/.exec(html)![1]!;
  const folder = path.join(site, index);
  const shardFile = path.join(folder, `w${shardKey(word)}.json`);
  const shard = JSON.parse(await readFile(shardFile, 'utf8')) as Record<string, number[]>;
  const sections = new Set<number>();
  for (const [key, postings] of Object.entries(shard)) {
    if (!key.startsWith(word)) continue;
    let section = 0;
    for (const n of postings) {
      section += Math.floor(n / 4);
      sections.add(section);
    }
  }
  const perFile = JSON.parse(await readFile(path.join(folder, 's0.json'), 'utf8')).length as number;
  const chunks = new Set([...sections].slice(0, 10).map((s) => Math.floor(s / perFile)));
  let search = await brotli(shardFile);
  for (const chunk of chunks) search += await brotli(path.join(folder, `s${chunk}.json`));
  const files = (await readdir(folder)).length;
  console.log(`  first load of ${url}: ${(page / 1024).toFixed(1)} KB brotli; first search "${word}": ${(search / 1024).toFixed(1)} KB brotli (${files} index files)`);
}

function hugoAvailable(): boolean {
  return spawnSync('hugo', ['version'], { stdio: 'ignore' }).status === 0;
}

async function main(): Promise<void> {
  const work = await mkdtemp(path.join(tmpdir(), 'blume-bench-'));
  try {
    console.log(`docs build benchmark: ${PAGES} pages in ${SECTIONS} sections`);
    const blumeSrc = path.join(work, 'blume-src');
    await generate(blumeSrc, 'blume');

    const inProcess = performance.now();
    const direct = await buildDocsSite(blumeSrc, path.join(work, 'blume-direct'));
    const directMs = performance.now() - inProcess;
    console.log(`blume (in process):  ${directMs.toFixed(0)} ms  (${direct.pages} pages, ${direct.files} files, ${(direct.bytes / 1e6).toFixed(1)} MB; scan ${direct.timings.scanMs}, parse ${direct.timings.parseMs}, render ${direct.timings.renderMs}, write ${direct.timings.writeMs} ms)`);

    // One small sandboxed build first, so a development run's one-off entry bundling is not timed.
    const warm = path.join(work, 'warm');
    await mkdir(warm);
    await writeFile(path.join(warm, 'index.md'), '# Warm\n');
    await runSandboxedBuild({ inputDir: warm, outputDir: path.join(work, 'warm-out') });

    const sandboxStart = performance.now();
    const sandboxed = await runSandboxedBuild({ inputDir: blumeSrc, outputDir: path.join(work, 'blume-sandboxed'), timeoutMs: 300_000, memoryMb: 1024 });
    const sandboxMs = performance.now() - sandboxStart;
    if (!sandboxed.ok) throw new Error(`sandboxed build failed: ${sandboxed.error}`);
    console.log(`blume (sandboxed):   ${sandboxMs.toFixed(0)} ms  (peak RSS ${sandboxed.stats.peakRssMb ?? '?'} MB)`);

    await reportWeights(path.join(work, 'blume-direct'), 'widgets', '/section-3/page-7/');

    const fpSrc = path.join(work, 'fp-src');
    await writeFastifyPinoDocs(fpSrc);
    const fpStart = performance.now();
    const fp = await runSandboxedBuild({ inputDir: fpSrc, outputDir: path.join(work, 'fp-out'), timeoutMs: 300_000, memoryMb: 1024 });
    if (!fp.ok) throw new Error(`fastify+pino build failed: ${fp.error}`);
    console.log(`fastify+pino docs (sandboxed): ${(performance.now() - fpStart).toFixed(0)} ms`);
    await reportWeights(path.join(work, 'fp-out'), 'econnreset', '/fastify/Reference/Server/');

    if (!hugoAvailable()) {
      console.log('hugo: not installed, comparison skipped (apt-get install hugo)');
      return;
    }
    const hugoSrc = path.join(work, 'hugo-src');
    await generate(hugoSrc, 'hugo');
    const hugoStart = performance.now();
    const hugo = spawnSync('hugo', ['--quiet', '--source', hugoSrc, '--destination', path.join(work, 'hugo-out')], { encoding: 'utf8' });
    const hugoMs = performance.now() - hugoStart;
    if (hugo.status !== 0) throw new Error(`hugo failed: ${hugo.stderr}`);
    console.log(`hugo:                ${hugoMs.toFixed(0)} ms  (${spawnSync('hugo', ['version'], { encoding: 'utf8' }).stdout.trim().split(' ')[1] ?? ''})`);
    const ratio = sandboxMs / hugoMs;
    console.log(`ratio blume sandboxed / hugo: ${ratio.toFixed(2)}x (in process ${(directMs / hugoMs).toFixed(2)}x; target <= ${TARGET_RATIO}x) ${ratio <= TARGET_RATIO ? 'OK' : 'OVER TARGET'}`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await main();
