// Benchmark: promote to first production response. Two releases are deployed through the real API,
// then promoted in turn; after each promote response, production is asked for `/` until it serves
// the new release. Measured on one node (embedded database, in-process pub/sub) and on two nodes
// sharing PostgreSQL and Redis (promote on A, serve from B). The anchor is a plain GET of a cached
// page on the same node in the same run: the floor of "first response". Prints p50/p99 over the
// promotes (target p99 <= 50 ms) and how many first responses were still the old release. Then the
// promote call itself while wrk saturates the same node's static edge (issue #20: API requests must
// not queue behind the edge).
//   npm run bench:promote [-- promotes]
// Servers run as `npm start` runs them (its flags, the default log level). BENCH_DATABASE_URL
// (default postgres://postgres@127.0.0.1:5432/test) names the server where a fresh database is
// created per run and dropped after; BENCH_REDIS_URL (default redis://127.0.0.1:6379).
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import {
  createSiteWithToken,
  hasCommand,
  machineLine,
  promote,
  request,
  SITES_DOMAIN,
  startServer,
  uploadArchive,
  type BlumeServer,
  type DeploySite,
} from './lib/blume.js';
import { recordRun } from './lib/history.js';

recordRun('promote');

const PROMOTES = Number(process.argv[2] ?? 50);
const TARGET_P99_MS = 50;
/** A bound for the promote call while the edge is saturated: the API keeps its own share of the node. */
const TARGET_SATURATED_P99_MS = 250;
const MAX_POLLS = 500;
const MAX_WAIT_MS = 5_000;
const SITE = 'promotebench';
const BASE_DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const SECRET_KEY = 'bench-secret-key-bench-secret-key-bench-secret-key';

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `blume_bench_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: BASE_DATABASE_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(BASE_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const dropper = new pg.Client({ connectionString: BASE_DATABASE_URL });
      await dropper.connect();
      await dropper.query(`drop database if exists ${name} with (force)`);
      await dropper.end();
    },
  };
}

async function deployTwoReleases(port: number, work: string, target: DeploySite): Promise<string[]> {
  const ids: string[] = [];
  for (const label of ['release-a', 'release-b']) {
    const dir = path.join(work, label);
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'index.html'), `<!doctype html><title>${label}</title><p>${label}</p>\n`);
    const archive = path.join(work, `${label}.tar.gz`);
    spawnSync('tar', ['-czf', archive, '-C', dir, '.']);
    const answer = await uploadArchive(port, target, archive);
    if (answer.status !== 201) throw new Error(`upload answered ${answer.status}: ${answer.body.toString()}`);
    ids.push((JSON.parse(answer.body.toString()) as { id: string }).id);
  }
  return ids;
}

interface Series {
  latencies: number[];
  staleFirst: number;
  anchor: number[];
  /** How long the promote call itself took to answer. */
  calls: number[];
}

/** Keeps the static edge of the node on `port` saturated (wrk, 50 connections) until stopped. */
function saturateEdge(port: number): () => Promise<void> {
  const wrk = spawn(
    'wrk',
    ['-t1', '-c50', '-d600s', '-H', `Host: ${SITE}.${SITES_DOMAIN}`, `http://127.0.0.1:${port}/`],
    { stdio: 'ignore' },
  );
  return async () => {
    const exited = once(wrk, 'exit');
    wrk.kill('SIGINT');
    await exited;
  };
}

/** Promotes on `writer`, then polls production on `reader` until it shows the new release. */
async function measure(writer: number, reader: number, target: DeploySite, ids: string[]): Promise<Series> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const promoteAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const host = `${SITE}.${SITES_DOMAIN}`;
  const series: Series = { latencies: [], staleFirst: 0, anchor: [], calls: [] };
  try {
    for (let i = 0; i < PROMOTES + 2; i += 1) {
      const release = ids[i % 2]!;
      const marker = i % 2 === 0 ? 'release-a' : 'release-b';
      const called = performance.now();
      const promoted = await promote(writer, target, release, promoteAgent);
      if (promoted.status !== 200) throw new Error(`promote answered ${promoted.status}: ${promoted.body.toString()}`);
      const started = performance.now();
      const call = started - called;
      let polls = 0;
      for (;;) {
        polls += 1;
        const answer = await request({ port: reader, path: '/', host, agent });
        if (answer.body.toString().includes(marker)) break;
        if (polls >= MAX_POLLS || performance.now() - started > MAX_WAIT_MS)
          throw new Error(`node on ${reader} still serves the old release after ${polls} polls`);
      }
      const elapsed = performance.now() - started;
      // The anchor: the same request again, now that the page is cached; the floor of any answer.
      const anchorStarted = performance.now();
      await request({ port: reader, path: '/', host, agent });
      const anchor = performance.now() - anchorStarted;
      // The first two promotes warm connections and caches up.
      if (i < 2) continue;
      series.latencies.push(elapsed);
      series.anchor.push(anchor);
      series.calls.push(call);
      if (polls > 1) series.staleFirst += 1;
    }
  } finally {
    agent.destroy();
    promoteAgent.destroy();
  }
  return series;
}

function report(label: string, series: Series): boolean {
  const p50 = percentile(series.latencies, 50);
  const p99 = percentile(series.latencies, 99);
  const anchor50 = percentile(series.anchor, 50);
  console.log(
    `  ${label.padEnd(44)} p50 ${p50.toFixed(2).padStart(6)} ms   p99 ${p99.toFixed(2).padStart(6)} ms   anchor GET p50 ${anchor50.toFixed(2)} ms (ratio ${(p50 / anchor50).toFixed(2)}x)   stale first answers ${series.staleFirst}/${series.latencies.length}`,
  );
  console.log(
    `  ${''.padEnd(44)} promote call p50 ${percentile(series.calls, 50).toFixed(2)} ms   p99 ${percentile(series.calls, 99).toFixed(2)} ms`,
  );
  return p99 <= TARGET_P99_MS && series.staleFirst === 0;
}

/** The promote call while the edge is saturated, against the same call idle: the API must not queue behind the edge. */
function reportSaturated(idle: Series, saturated: Series): boolean {
  const idle99 = percentile(idle.calls, 99);
  const busy99 = percentile(saturated.calls, 99);
  console.log(
    `  ${'one node, edge saturated by wrk (50 conns)'.padEnd(44)} promote call p50 ${percentile(saturated.calls, 50).toFixed(2)} ms   p99 ${busy99.toFixed(2)} ms (idle p99 ${idle99.toFixed(2)} ms, ratio ${(busy99 / idle99).toFixed(1)}x; target p99 <= ${TARGET_SATURATED_P99_MS} ms)`,
  );
  return busy99 <= TARGET_SATURATED_P99_MS;
}

async function main(): Promise<void> {
  const work = await mkdtemp(path.join(tmpdir(), 'blume-bench-promote-'));
  const servers: BlumeServer[] = [];
  let database: { url: string; drop(): Promise<void> } | undefined;
  let met = true;
  try {
    console.log(`Promote to first production response: ${PROMOTES} promotes per setup`);
    console.log(machineLine());

    const single = await startServer(
      { BLUME_DATA_DIR: path.join(work, 'single'), SECRET_KEY },
      path.join(work, 'single.log'),
    );
    servers.push(single);
    const singleSite = await createSiteWithToken(single.port, SITE);
    const singleIds = await deployTwoReleases(single.port, work, singleSite);
    const idle = await measure(single.port, single.port, singleSite, singleIds);
    met = report('one node (embedded database)', idle) && met;
    if (hasCommand('wrk')) {
      const stop = saturateEdge(single.port);
      try {
        met = reportSaturated(idle, await measure(single.port, single.port, singleSite, singleIds)) && met;
      } finally {
        await stop();
      }
    } else {
      console.log('  (wrk is missing: the saturated-edge row is skipped; apt-get install -y wrk)');
    }
    await single.stop();

    database = await freshDatabase();
    // Both nodes share the database, Redis and (as they would share a volume or a bucket) blobs.
    const env = {
      BLUME_DATA_DIR: path.join(work, 'shared'),
      SECRET_KEY,
      DATABASE_URL: database.url,
      BLUME_REDIS_ENABLED: 'True',
      BLUME_REDIS_URL: REDIS_URL,
    };
    const a = await startServer(env, path.join(work, 'a.log'));
    servers.push(a);
    const b = await startServer({ ...env, BLUME_AUTO_MIGRATE: 'False' }, path.join(work, 'b.log'));
    servers.push(b);
    const sharedSite = await createSiteWithToken(a.port, SITE);
    const sharedIds = await deployTwoReleases(a.port, work, sharedSite);
    met =
      report('two nodes (PostgreSQL + Redis), same node', await measure(a.port, a.port, sharedSite, sharedIds)) && met;
    met =
      report('two nodes (PostgreSQL + Redis), other node', await measure(a.port, b.port, sharedSite, sharedIds)) && met;
    console.log(`  ${met ? 'targets met' : 'TARGET MISSED'} (p99 <= ${TARGET_P99_MS} ms and no stale first answer)`);
  } finally {
    for (const server of servers) await server.stop();
    if (database) await database.drop();
    await rm(work, { recursive: true, force: true });
  }
}

await main();
