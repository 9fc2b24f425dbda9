// Benchmarks on PostgreSQL: a fresh database per run (created on BENCH_DATABASE_URL's server and
// dropped after), and the bare-SQL anchor: N concurrent loops over a pool, timed like wrk's requests.
import { performance } from 'node:perf_hooks';
import pg from 'pg';

export const BASE_DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: BASE_DATABASE_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** Runs `work` with the URL of a database made for it, dropped afterwards whatever happens. */
export async function withFreshDatabase<T>(prefix: string, work: (url: string) => Promise<T>): Promise<T> {
  const name = `${prefix}_${Date.now().toString(36)}`;
  const url = new URL(BASE_DATABASE_URL);
  url.pathname = `/${name}`;
  await adminQuery(`create database ${name}`);
  try {
    return await work(url.toString());
  } finally {
    await adminQuery(`drop database if exists ${name} with (force)`);
  }
}

export interface Latencies {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}

/** `connections` loops over a pool of as many clients, each running `run` back to back for `seconds`. */
export async function loadSql(
  pool: pg.Pool,
  connections: number,
  seconds: number,
  run: (client: pg.PoolClient) => Promise<void>,
): Promise<Latencies> {
  const samples: number[] = [];
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      const client = await pool.connect();
      try {
        while (performance.now() < end) {
          const started = performance.now();
          await run(client);
          samples.push(performance.now() - started);
        }
      } finally {
        client.release();
      }
    }),
  );
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!;
  return { requestsPerSecond: samples.length / seconds, p50Ms: at(0.5), p99Ms: at(0.99) };
}

export function latencyRow(label: string, result: Latencies, target?: number): string {
  const verdict =
    target === undefined ? '' : `  (target p99 <= ${target} ms: ${result.p99Ms <= target ? 'met' : 'MISSED'})`;
  return `  ${label.padEnd(40)} ${result.requestsPerSecond.toFixed(0).padStart(7)} req/s   p50 ${result.p50Ms.toFixed(2).padStart(7)} ms   p99 ${result.p99Ms.toFixed(2).padStart(7)} ms${verdict}`;
}
