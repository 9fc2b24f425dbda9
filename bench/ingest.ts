// Benchmark: archive ingest. A generated 5,000-file, ~100 MiB site (half compressible text, half
// incompressible bytes) as tar.gz is uploaded through the real deploy API to one `blume serve`
// process on loopback; the time from request start to 201 is compared with the floor, `tar -xzf`
// then `sha256sum` of every file of the same archive, in the same run. Prints the ratio (target
// <= 2x) and the server's peak RSS (VmHWM, target < 300 MiB).
//   npm run bench:ingest [-- files MiB]
// DATABASE_URL, when set, runs the server on PostgreSQL instead of the embedded database;
// BENCH_SMAPS=1 also prints the server's resident memory by kind before the upload and at its peak.
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  benchLogLevel,
  createSiteWithToken,
  hasCommand,
  machineLine,
  memoryMap,
  peakRssMiB,
  startServer,
  uploadArchive,
  type BlumeServer,
} from './lib/blume.js';
import { recordRun } from './lib/history.js';

recordRun('ingest');

const FILES = Number(process.argv[2] ?? 5000);
const TOTAL_MIB = Number(process.argv[3] ?? 100);
const TARGET_RATIO = 2;
const TARGET_RSS_MIB = 300;
const FILES_PER_FOLDER = 100;

/** Text that gzip shrinks as it would real HTML/CSS/JS: words drawn from a small vocabulary. */
function compressibleText(bytes: number, seed: number): Buffer {
  const words = [
    'static',
    'site',
    'release',
    'edge',
    'blume',
    '<div class="card">',
    '</div>',
    'function',
    'return',
    'const',
    'margin: 0 auto;',
    'lorem',
    'ipsum',
    '\n',
  ];
  const hash = createHash('sha256').update(String(seed)).digest();
  const parts: string[] = [];
  let length = 0;
  for (let i = 0; length < bytes; i += 1) {
    const word = words[(hash[i % 32]! + i * 7) % words.length]!;
    parts.push(word, ' ');
    length += word.length + 1;
  }
  return Buffer.from(parts.join('').slice(0, bytes));
}

async function generateSite(root: string): Promise<number> {
  const average = Math.floor((TOTAL_MIB * 1024 * 1024) / FILES);
  let total = 0;
  for (let i = 0; i < FILES; i += 1) {
    const folder = path.join(root, `section-${Math.floor(i / FILES_PER_FOLDER)}`);
    if (i % FILES_PER_FOLDER === 0) await mkdir(folder, { recursive: true });
    // Sizes vary around the average so the site holds small and larger files alike.
    const size = Math.max(64, Math.floor(average * (0.25 + ((i * 37) % 150) / 100)));
    const incompressible = i % 2 === 1;
    const body = incompressible ? randomBytes(size) : compressibleText(size, i);
    await writeFile(path.join(folder, incompressible ? `image-${i}.bin` : `page-${i}.html`), body);
    total += size;
  }
  return total;
}

function timed(command: string, args: string[]): number {
  const started = performance.now();
  const run = spawnSync(command, args, { stdio: ['ignore', 'ignore', 'inherit'], timeout: 600_000 });
  if (run.status !== 0) throw new Error(`${command} failed with ${run.status}`);
  return performance.now() - started;
}

async function main(): Promise<void> {
  for (const command of ['tar', 'sha256sum', 'find', 'xargs']) {
    if (!hasCommand(command)) throw new Error(`${command} is not installed`);
  }
  const work = await mkdtemp(path.join(tmpdir(), 'blume-bench-ingest-'));
  let server: BlumeServer | undefined;
  try {
    const site = path.join(work, 'site');
    const bytes = await generateSite(site);
    const archive = path.join(work, 'site.tar.gz');
    timed('tar', ['-czf', archive, '-C', site, '.']);
    await rm(site, { recursive: true });
    const archiveMiB = (await stat(archive)).size / 1024 / 1024;

    console.log(
      `Archive ingest: ${FILES} files, ${(bytes / 1024 / 1024).toFixed(1)} MiB uncompressed, ${archiveMiB.toFixed(1)} MiB tar.gz`,
    );
    console.log(machineLine());

    // The floor: unpack the same archive and hash every file, as fast as the system tools can.
    const floorDir = path.join(work, 'floor');
    await mkdir(floorDir);
    spawnSync('sync');
    const floorMs = timed('sh', [
      '-c',
      `tar -xzf '${archive}' -C '${floorDir}' && find '${floorDir}' -type f -print0 | xargs -0 sha256sum > /dev/null`,
    ]);
    await rm(floorDir, { recursive: true });

    const env: Record<string, string> = { BLUME_DATA_DIR: path.join(work, 'data'), ...benchLogLevel() };
    if (process.env.DATABASE_URL) env.DATABASE_URL = process.env.DATABASE_URL;
    server = await startServer(env, path.join(work, 'blume.log'));
    const target = await createSiteWithToken(server.port, 'ingestbench');
    const idleRss = await peakRssMiB(server.pid);
    spawnSync('sync');
    // BENCH_SMAPS=1: which kinds of memory the upload adds, from smaps samples (they cost the server nothing).
    const total = (map: Record<string, number>) => Object.values(map).reduce((sum, mib) => sum + mib, 0);
    const pid = server.pid;
    const mapBefore = process.env.BENCH_SMAPS === '1' ? memoryMap(pid) : undefined;
    let mapAtPeak = mapBefore;
    const sampler = mapBefore
      ? setInterval(() => {
          const now = memoryMap(pid);
          if (total(now) > total(mapAtPeak!)) mapAtPeak = now;
        }, 15)
      : undefined;
    const started = performance.now();
    const answer = await uploadArchive(server.port, target, archive);
    const blumeMs = performance.now() - started;
    clearInterval(sampler);
    if (answer.status !== 201)
      throw new Error(`upload answered ${answer.status}: ${answer.body.toString().slice(0, 500)}`);
    const release = JSON.parse(answer.body.toString()) as { file_count: number; new_blobs: number };
    const peak = await peakRssMiB(server.pid);

    const ratio = blumeMs / floorMs;
    console.log(`  floor (tar -xzf + sha256sum)   ${(floorMs / 1000).toFixed(2).padStart(7)} s`);
    console.log(
      `  Blume upload -> 201            ${(blumeMs / 1000).toFixed(2).padStart(7)} s   (${release.file_count} files, ${release.new_blobs} new blobs, ${(archiveMiB / (blumeMs / 1000)).toFixed(1)} MiB/s compressed)`,
    );
    console.log(`  ratio Blume/floor ${ratio.toFixed(2)}x (target <= ${TARGET_RATIO})`);
    if (mapBefore && mapAtPeak) {
      const show = (map: Record<string, number>) =>
        `${total(map).toFixed(0)} MiB: ${Object.entries(map)
          .sort((a, b) => b[1] - a[1])
          .map(([kind, mib]) => `${kind} ${mib.toFixed(0)}`)
          .join(', ')}`;
      console.log(`  resident before the upload ${show(mapBefore)}`);
      console.log(`  resident at its peak       ${show(mapAtPeak)}`);
    }
    console.log(
      `  server peak RSS (VmHWM) ${peak?.toFixed(0)} MiB, ${idleRss?.toFixed(0)} MiB before the upload (target < ${TARGET_RSS_MIB})`,
    );
    console.log(`  ${ratio <= TARGET_RATIO && (peak ?? Infinity) < TARGET_RSS_MIB ? 'targets met' : 'TARGET MISSED'}`);
  } finally {
    if (server) await server.stop();
    await rm(work, { recursive: true, force: true });
  }
}

await main();
