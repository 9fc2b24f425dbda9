// Benchmark: Content API reads at size, on PostgreSQL. A fresh database gets a custom type `products`
// (title, sku slug, price number, category enum, body Markdown) and 100,000 published entries
// through SQL generate_series; one `blume serve --single` then answers wrk (32 connections) on a
// filtered, sorted list page and a read by slug, with a `cms-read` key. The anchor of each is the
// same page as bare SQL through `pg` (a pool of 32 clients, 32 concurrent loops) in the same run:
// the rows and, for the list, the count the X-Pagination header carries. Prints req/s, p99 and the
// p99 ratio (targets: list p99 <= 20 ms, slug p99 <= 5 ms, ratio <= 2x). For context, a bare
// `node:http` server in this process answers the read by slug under the same wrk with the row as
// JSON through a pool of Blume's default size: what HTTP on this machine adds to the anchor.
// A node keeps published reads until a write changes them (decision 0105), so after the first
// request both pages come from what the server cached; a last row, for context, asks for a price
// above a random bound on every request: reads no node has cached, each a page and its count; and a
// server started with BLUME_CACHE_ANSWERS=off answers the list page itself, its statements each time.
// The server runs at `npm start`'s log level (`info`) unless BENCH_LOG_LEVEL says otherwise.
//   npm run bench:cms [-- seconds]
// BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test) names the server where the
// fresh database is created and dropped after.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { mintCredential } from '../src/core/credentials/service.js';
import { openDatabase } from '../src/db/client.js';
import { runMigrations } from '../src/db/migrate.js';
import { installAndSeed } from '../src/runtime.js';
import { createProductsType, seedProducts } from './lib/products.js';
import {
  benchLogLevel,
  machineLine,
  request,
  ROOT,
  measuredWrk,
  runWrk,
  startServer,
  type BlumeServer,
} from './lib/blume.js';
import { cmsListAnchor } from './lib/anchors.js';
import { latencyRow, loadSql, withFreshDatabase } from './lib/sql.js';
import { recordRun } from './lib/history.js';

recordRun('cms');

const SECONDS = Number(process.argv[2] ?? 10);
const ENTRIES = 100_000;
const CATEGORIES = 10;
const CONNECTIONS = 32;
const TARGET_LIST_P99_MS = 20;
const TARGET_SLUG_P99_MS = 5;
const TARGET_RATIO = 2;
const SITE = 'community';
/** A bare node:http server answering one row of `argv[2]`'s database as JSON; prints its port. */
const CEILING_SERVER = `
const [url, text, value] = process.argv.slice(1);
const pool = new (require('pg').Pool)({ connectionString: url, max: 10 });
const server = require('node:http').createServer((req, res) => {
  pool.query({ name: 'read', text, values: [value] }).then(
    (result) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result.rows[0])),
    () => res.writeHead(500).end(),
  );
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;
/** wrk's requests for reads no node has cached: the list page of LIST_PATH, under a random price bound each. */
const UNCACHED_LIST_SCRIPT = (listPath: string) => `
request = function()
  return wrk.format(nil, "${listPath}&filter[price][gt]=" .. math.random(0, 99999) / 100)
end
`;

async function seed(url: string): Promise<{ typeId: string; key: string }> {
  const handle = await openDatabase({ databaseUrl: url, poolSize: 2 });
  try {
    await runMigrations(handle);
    await installAndSeed(handle, SITE);
    const type = await createProductsType(handle.db, SITE, CATEGORIES);
    const { token } = await mintCredential(handle.db, {
      kind: 'api_key',
      name: 'bench',
      siteId: SITE,
      scopes: ['cms-read'],
    });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const started = performance.now();
      await seedProducts(client, {
        site: SITE,
        typeId: type.id,
        entries: ENTRIES,
        categories: CATEGORIES,
        now: 'now()',
      });
      // As autovacuum would have by the time a real site is read.
      await client.query('vacuum analyze');
      console.log(`  seeded ${ENTRIES} entries in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    } finally {
      await client.end();
    }
    return { typeId: type.id, key: token };
  } finally {
    await handle.close();
  }
}

async function run(url: string): Promise<void> {
  const work = await mkdtemp(path.join(tmpdir(), 'blume-bench-cms-'));
  let server: BlumeServer | undefined;
  let pool: pg.Pool | undefined;
  try {
    console.log(
      `Content API reads on PostgreSQL: ${ENTRIES} entries of one type, ${CONNECTIONS} concurrent clients, ${SECONDS} s per run`,
    );
    console.log(machineLine());
    const { typeId, key } = await seed(url);
    const env = {
      DATABASE_URL: url,
      BLUME_DATA_DIR: path.join(work, 'data'),
      ...benchLogLevel(),
      BLUME_INSTANCE_ID: SITE,
      BLUME_RATE_API_PER_MINUTE: '1000000',
    };
    server = await startServer(env, path.join(work, 'blume.log'), ['--single']);
    const headers = { authorization: `Bearer ${key}` };
    const base = `http://127.0.0.1:${server.port}`;
    const listPath = '/api/cms/v1/entries/products?filter[category]=c3&sort=-price&page=2&page_size=10';
    const slugPath = '/api/cms/v1/entries/products/product-54321';
    for (const p of [listPath, slugPath]) {
      const check = await request({ port: server.port, path: p, headers });
      if (check.status !== 200) throw new Error(`${p}: ${check.status} ${check.body.toString().slice(0, 300)}`);
    }

    // The same pages as bare SQL: what the list and the read select, with the list's count.
    const live = `type_id = '${typeId}' and status = 'published' and published_at <= now()`;
    const slugSql = `select * from cms_entries where ${live} and (id = $1 or slug = $1) order by id = $1 desc limit 1`;
    pool = new pg.Pool({ connectionString: url, max: CONNECTIONS });
    const sqlList = cmsListAnchor(typeId, 'c3');
    const sqlSlug = (client: pg.PoolClient) =>
      client.query({ name: 'slug', text: slugSql, values: ['product-54321'] }).then(() => undefined);

    console.log('');
    const pairs = [
      {
        label: 'list: filter[category], sort=-price, page 2',
        path: listPath,
        sql: sqlList,
        target: TARGET_LIST_P99_MS,
      },
      { label: 'read by slug', path: slugPath, sql: sqlSlug, target: TARGET_SLUG_P99_MS },
    ];
    const ratios: string[] = [];
    for (const pair of pairs) {
      const blume = await measuredWrk(pair.label, `${base}${pair.path}`, {
        connections: CONNECTIONS,
        threads: 2,
        seconds: SECONDS,
        headers,
      });
      await loadSql(pool, CONNECTIONS, 2, pair.sql);
      const bare = await loadSql(pool, CONNECTIONS, SECONDS, pair.sql);
      console.log(latencyRow(`Blume ${pair.label}`, blume, pair.target));
      console.log(latencyRow(`pg    ${pair.label}`, bare));
      const ratio = blume.p99Ms / bare.p99Ms;
      ratios.push(
        `  ${pair.label}: p99 ratio Blume / bare SQL ${ratio.toFixed(2)}x (goal <= ${TARGET_RATIO}x: ${ratio <= TARGET_RATIO ? 'met' : 'MISSED'})`,
      );
    }
    // Context, not a target: the same read over bare node:http (keep-alive, one named statement, a
    // pool of 10), in a child process, as wrk runs synchronously here.
    const ceiling = spawn(process.execPath, ['-e', CEILING_SERVER, url, slugSql, 'product-54321'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const port = await new Promise<string>((resolve, reject) => {
        ceiling.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
        ceiling.once('exit', (code) => reject(new Error(`the node:http server exited (${code})`)));
      });
      const ceilingUrl = `http://127.0.0.1:${port}/`;
      await runWrk(ceilingUrl, { connections: CONNECTIONS, threads: 2, seconds: 2 });
      console.log(
        latencyRow(
          'node:http + pg read by slug (context)',
          await runWrk(ceilingUrl, { connections: CONNECTIONS, threads: 2, seconds: SECONDS }),
        ),
      );
    } finally {
      ceiling.kill();
    }
    const script = path.join(work, 'uncached.lua');
    await writeFile(script, UNCACHED_LIST_SCRIPT(listPath));
    const uncached = await measuredWrk(
      'list under a random price bound',
      `${base}${listPath}`,
      { connections: CONNECTIONS, threads: 2, seconds: SECONDS, headers, script },
      0,
    );
    console.log(latencyRow('Blume list under a random price bound, not cached (context)', uncached));
    // The uncached path: the same list page from a server that caches no answers (BLUME_CACHE_ANSWERS=off),
    // so every request runs the list's statements (decision 0130: the pair of category and price).
    await server.stop();
    server = await startServer({ ...env, BLUME_CACHE_ANSWERS: 'off' }, path.join(work, 'blume-off.log'), ['--single']);
    const offBase = `http://127.0.0.1:${server.port}`;
    const off = await measuredWrk('list with answers off', `${offBase}${listPath}`, {
      connections: CONNECTIONS,
      threads: 2,
      seconds: SECONDS,
      headers,
    });
    console.log(latencyRow('Blume list, BLUME_CACHE_ANSWERS=off', off, TARGET_LIST_P99_MS));
    console.log('');
    for (const line of ratios) console.log(line);
  } finally {
    await pool?.end();
    if (server) await server.stop();
    await rm(work, { recursive: true, force: true });
  }
}

await withFreshDatabase('blume_bench_cms', run);
