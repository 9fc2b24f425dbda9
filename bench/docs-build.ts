// Benchmark: a generated 1,000-page Markdown site built by Blume (in process, and in the build
// sandbox as deploys run it) and by Hugo, the named anchor, in the same run. Prints wall times, CPU
// times (user + system, which a loaded machine disturbs less) and the ratio to Hugo; the target is
// Blume in the sandbox <= 1x Hugo (issue 19). Then the fastify+pino docs (from node_modules): build
// time, and the brotli weight, as the edge compresses, of a first page load (HTML, CSS, JS) and of
// a first search (the search code, the index file, the word file and the section files of
// the results). Hugo is skipped with a message when it is not installed (`apt-get install hugo`).
// On a shared machine one run says little: the sandboxed build and Hugo run alternately `rounds`
// times (default 3), each round's ratios printed, then their medians.
//   npx tsx bench/docs-build.ts [pages] [rounds]
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { readFile, readdir } from 'node:fs/promises';
import { buildDocsSite } from '../src/deploy/build/docs-site.js';
import { SEARCH_INDEX_FILE, shardKey, wordFile, type SearchIndex } from '../src/deploy/build/search-index.js';
import { compressSync } from '../src/deploy/compression.js';
import { firstLoad } from '../test/helpers/docs-weight.js';
import { writeFastifyPinoDocs } from '../test/helpers/fastify-pino-docs.js';
import { runSandboxedBuild } from '../src/deploy/build/sandboxed-build.js';
import { machineLine } from './lib/blume.js';
import { generateDocsSite, SECTIONS } from './lib/docs-sites.js';
import { recordRun } from './lib/history.js';

recordRun('docs');

const PAGES = Number(process.argv[2] ?? 1000);
const ROUNDS = Number(process.argv[3] ?? 3);
const TARGET_RATIO = 1;

/** CPU milliseconds (user + system) of this process's ended children and theirs (Linux /proc, 100 ticks a second). */
function childrenCpuMs(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

function ownCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

const brotli = async (file: string): Promise<number> => compressSync(await readFile(file), 'br').length;

/** Brotli bytes (as the edge compresses) of a first load of `url` and of a first search for `word` (search code and results' section files included). */
async function reportWeights(site: string, word: string, url: string): Promise<void> {
  const page = await firstLoad(site, `${url.slice(1)}index.html`);
  const html = await readFile(path.join(site, url, 'index.html'), 'utf8');
  const folder = path.join(site, /data-index="([^"]+)"/.exec(html)![1]!);
  const searchCode = /data-script="([^"]+)"/.exec(html)![1]!;
  const indexFile = path.join(folder, SEARCH_INDEX_FILE);
  const index = JSON.parse(await readFile(indexFile, 'utf8')) as SearchIndex;
  const shardFile = path.join(folder, wordFile(index.wordFiles, shardKey(word)));
  const shard = JSON.parse(await readFile(shardFile, 'utf8')) as Record<string, number[]>;
  // The ten best sections, scored as the search script scores them.
  const scores = new Map<number, number>();
  for (const [key, postings] of Object.entries(shard)) {
    if (!key.startsWith(word)) continue;
    let section = 0;
    for (const n of postings) {
      section += Math.floor(n / 4);
      const value = [0, 1, 5, 12][n % 4]! * (key === word ? 2 : 1);
      scores.set(section, Math.max(value, scores.get(section) ?? 0));
    }
  }
  const best = [...scores].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, 10);
  const chunks = new Set(best.map(([section]) => Math.floor(section / index.sectionsPerFile)));
  let search = (await brotli(path.join(site, searchCode))) + (await brotli(indexFile)) + (await brotli(shardFile));
  for (const chunk of chunks) search += await brotli(path.join(folder, `s${chunk}.json`));
  const files = (await readdir(folder)).length;
  console.log(
    `  first load of ${url}: ${(page.bytes / 1024).toFixed(1)} KB brotli (HTML ${(page.htmlBytes / 1024).toFixed(1)} KB); first search "${word}": ${(search / 1024).toFixed(1)} KB brotli (${files} index files)`,
  );
}

interface Run {
  wallMs: number;
  cpuMs: number;
  peakRssMb?: number | undefined;
}

/**
 * Writes out what earlier runs left in the page cache, so that a run does not pay for the one before
 * it: on a small machine the kernel flushing 60 MB of pages takes a core for a while.
 */
function settleDisk(): void {
  spawnSync('sync');
}

async function sandboxedRun(input: string, output: string): Promise<Run> {
  settleDisk();
  const started = performance.now();
  const run = await runSandboxedBuild({ inputDir: input, outputDir: output, timeoutMs: 300_000, memoryMb: 1024 });
  const wallMs = performance.now() - started;
  if (!run.ok) throw new Error(`sandboxed build failed: ${run.error}`);
  // The build process reports its own CPU time: under bubblewrap it is not a child this process waits for.
  return { wallMs, cpuMs: run.stats.cpuMs ?? NaN, peakRssMb: run.stats.peakRssMb };
}

function hugoRun(input: string, output: string): Run {
  settleDisk();
  const started = performance.now();
  const cpu = childrenCpuMs();
  const hugo = spawnSync('hugo', ['--quiet', '--source', input, '--destination', output], { encoding: 'utf8' });
  const wallMs = performance.now() - started;
  if (hugo.status !== 0) throw new Error(`hugo failed: ${hugo.stderr}`);
  return { wallMs, cpuMs: childrenCpuMs() - cpu };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function hugoAvailable(): boolean {
  return spawnSync('hugo', ['version'], { stdio: 'ignore' }).status === 0;
}

async function main(): Promise<void> {
  const work = await mkdtemp(path.join(tmpdir(), 'blume-bench-'));
  try {
    console.log(machineLine());
    console.log(`docs build benchmark: ${PAGES} pages in ${SECTIONS} sections`);
    const blumeSrc = path.join(work, 'blume-src');
    await generateDocsSite(blumeSrc, 'blume', PAGES);

    const inProcess = performance.now();
    const directCpu = ownCpuMs();
    const direct = await buildDocsSite(blumeSrc, path.join(work, 'blume-direct'));
    const directMs = performance.now() - inProcess;
    console.log(
      `blume (in process):  ${directMs.toFixed(0)} ms, CPU ${(ownCpuMs() - directCpu).toFixed(0)} ms  (${direct.pages} pages, ${direct.files} files, ${(direct.bytes / 1e6).toFixed(1)} MB; scan ${direct.timings.scanMs}, parse ${direct.timings.parseMs}, render ${direct.timings.renderMs}, write ${direct.timings.writeMs} ms)`,
    );

    // One small sandboxed build first, so a development run's one-off entry bundling is not timed.
    const warm = path.join(work, 'warm');
    await mkdir(warm);
    await writeFile(path.join(warm, 'index.md'), '# Warm\n');
    await runSandboxedBuild({ inputDir: warm, outputDir: path.join(work, 'warm-out') });

    await reportWeights(path.join(work, 'blume-direct'), 'widgets', '/section-3/page-7/');

    const fpSrc = path.join(work, 'fp-src');
    await writeFastifyPinoDocs(fpSrc);
    const fpStart = performance.now();
    const fp = await runSandboxedBuild({
      inputDir: fpSrc,
      outputDir: path.join(work, 'fp-out'),
      timeoutMs: 300_000,
      memoryMb: 1024,
    });
    if (!fp.ok) throw new Error(`fastify+pino build failed: ${fp.error}`);
    console.log(`fastify+pino docs (sandboxed): ${(performance.now() - fpStart).toFixed(0)} ms`);
    await reportWeights(path.join(work, 'fp-out'), 'econnreset', '/fastify/Reference/Server/');

    if (!hugoAvailable()) {
      const sandboxed = await sandboxedRun(blumeSrc, path.join(work, 'blume-sandboxed'));
      console.log(`blume (sandboxed):   ${sandboxed.wallMs.toFixed(0)} ms, CPU ${sandboxed.cpuMs} ms`);
      console.log('hugo: not installed, comparison skipped (apt-get install hugo)');
      return;
    }
    const hugoSrc = path.join(work, 'hugo-src');
    await generateDocsSite(hugoSrc, 'hugo', PAGES);
    console.log(
      `hugo ${spawnSync('hugo', ['version'], { encoding: 'utf8' }).stdout.trim().split(' ')[1] ?? ''}; ${ROUNDS} rounds, alternating which goes first`,
    );
    const wallRatios: number[] = [];
    const cpuRatios: number[] = [];
    for (let round = 1; round <= ROUNDS; round += 1) {
      const load = loadavg()[0]!.toFixed(1);
      const blumeOut = path.join(work, `blume-sandboxed-${round}`);
      const hugoOut = path.join(work, `hugo-out-${round}`);
      let blume: Run;
      let hugo: Run;
      if (round % 2 === 1) {
        blume = await sandboxedRun(blumeSrc, blumeOut);
        hugo = hugoRun(hugoSrc, hugoOut);
      } else {
        hugo = hugoRun(hugoSrc, hugoOut);
        blume = await sandboxedRun(blumeSrc, blumeOut);
      }
      wallRatios.push(blume.wallMs / hugo.wallMs);
      cpuRatios.push(blume.cpuMs / hugo.cpuMs);
      console.log(
        `round ${round} (load ${load}): blume sandboxed ${blume.wallMs.toFixed(0)} ms, CPU ${blume.cpuMs} ms (peak RSS ${blume.peakRssMb ?? '?'} MB); hugo ${hugo.wallMs.toFixed(0)} ms, CPU ${hugo.cpuMs} ms; ratio ${wallRatios.at(-1)!.toFixed(2)}x, CPU ${cpuRatios.at(-1)!.toFixed(2)}x`,
      );
    }
    const ratio = median(wallRatios);
    console.log(
      `ratio blume sandboxed / hugo, median of ${ROUNDS}: ${ratio.toFixed(2)}x (CPU time ${median(cpuRatios).toFixed(2)}x; target <= ${TARGET_RATIO}x) ${ratio <= TARGET_RATIO ? 'OK' : 'OVER TARGET'}`,
    );
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await main();
