// Opens the database: embedded PGlite in the data dir by default, PostgreSQL when DATABASE_URL is set.
// Both drivers give the same Drizzle API over the same schema and migrations.
import path from 'node:path';
import { sql, type SQL } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { ErrorReporter } from '../lib/error-reporter.js';
import { ensurePgliteDir, pgliteOptions } from './pglite.js';
import * as schema from './schema.js';

type Schema = typeof schema;
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
export type Transaction = Parameters<Parameters<Database['transaction']>[0]>[0];
/** A database or an open transaction: services accept either so callers can compose them. */
export type Executor = Database | Transaction;

/** Rows of a raw SQL query; the two drivers both answer `{ rows }`. */
export async function queryRows<T>(db: Executor, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}

export interface DatabaseHandle {
  db: Database;
  driver: 'pglite' | 'postgres';
  /** Where errors of idle connections are told (rate-limited warnings); the app attaches its logger. */
  errors: ErrorReporter;
  /** Runs `select 1`; throws when the database cannot answer. */
  ping(): Promise<void>;
  /**
   * Runs `fn` holding a database-wide advisory lock on one dedicated connection, so work such as
   * migrations runs once even when several nodes start together.
   */
  exclusive<T>(lockId: number, fn: (db: Database) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

interface OpenOptions {
  /** PostgreSQL URL; without it PGlite is used. */
  databaseUrl?: string | undefined;
  /** PGlite data folder; `memory://` for a throwaway in-memory database. */
  pgliteDir?: string;
  /** A new PGlite data folder is made in a child process; with this, it is migrated there too. */
  migrateNewPglite?: boolean;
  poolSize?: number;
}

export async function openDatabase(options: OpenOptions): Promise<DatabaseHandle> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options.poolSize ?? 10);
  const dir = options.pgliteDir ?? 'memory://';
  if (dir.startsWith('memory://')) return openPgliteAt(dir);
  await ensurePgliteDir(path.resolve(dir), { migrate: options.migrateNewPglite ?? false });
  return openPgliteAt(path.resolve(dir));
}

/**
 * Named prepared statements (src/db/prepared.ts) run their generic plan from the first execution:
 * they are written so that it is a good one, and planning the forum page query anew on every
 * request cost a third of its time in PostgreSQL (docs/decisions/0022-forum-deep-pages.md).
 * Unnamed statements, every other query, are planned with their values as always. No statement
 * starts parallel workers: a generic plan's guess of thousands of rows would start them for a search
 * that finds a few, and a node's requests already keep the cores busy (decision 0148). Nothing is
 * compiled just in time: a statement whose estimate passes `jit_above_cost` paid milliseconds of
 * compiling on every execution for work of a fraction of one (decision 0153).
 */
export const POSTGRES_SESSION_OPTIONS =
  '-c plan_cache_mode=force_generic_plan -c max_parallel_workers_per_gather=0 -c jit=off';

async function openPostgres(url: string, poolSize: number): Promise<DatabaseHandle> {
  const { default: pg } = await import('pg');
  const { drizzle } = await import('drizzle-orm/node-postgres');
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: 5000,
    options: POSTGRES_SESSION_OPTIONS,
  });
  // An idle client losing its connection must not crash the process; the next query fails on its
  // own, and the loss is warned about (at most once a minute).
  // Every client reports its own: the pool listens only to its idle clients, and one in use (a
  // transaction, `exclusive`) whose connection drops between statements would throw its 'error'
  // event at the process (its statements fail with the error too).
  const errors = new ErrorReporter();
  pool.on('connect', (client) => client.on('error', (error) => errors.report('database pool', error)));
  // The pool passes an idle client's error on as its own, which would throw without a listener; the
  // client's listener above has reported it.
  pool.on('error', () => {});
  const db = drizzle(pool, { schema }) as unknown as Database;
  return {
    db,
    driver: 'postgres',
    errors,
    ping: async () => {
      await db.execute(sql`select 1`);
    },
    exclusive: async (lockId, fn) => {
      const client = await pool.connect();
      try {
        await client.query('select pg_advisory_lock($1)', [lockId]);
        try {
          return await fn(drizzle(client, { schema }) as unknown as Database);
        } finally {
          await client.query('select pg_advisory_unlock($1)', [lockId]);
        }
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

/**
 * PGlite on `dir` as it is (or `memory://`): a folder without a database gets initdb in this process,
 * or the data folder of `dump` (a `dumpDataDir()` tarball) when given.
 */
export async function openPgliteAt(dir: string, dump?: Blob): Promise<DatabaseHandle> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { drizzle } = await import('drizzle-orm/pglite');
  const options = { ...(await pgliteOptions()), ...(dump ? { loadDataDir: dump } : {}) };
  const client = dir.startsWith('memory://') ? new PGlite(options) : new PGlite(dir, options);
  await client.waitReady;
  const db = drizzle(client, { schema }) as unknown as Database;
  return {
    db,
    driver: 'pglite',
    errors: new ErrorReporter(),
    ping: async () => {
      if (client.closed) throw new Error('database is closed');
      await client.query('select 1');
    },
    // One process owns a PGlite directory, so there is nobody to lock against.
    exclusive: (_lockId, fn) => fn(db),
    close: () => client.close(),
  };
}
