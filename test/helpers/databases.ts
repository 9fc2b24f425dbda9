// Test databases: a fresh in-memory PGlite, or a fresh PostgreSQL database per call (created next to
// TEST_DATABASE_URL and dropped afterwards), both migrated with the committed migrations. A migrated
// PGlite starts from a copy of one migrated data folder (initdb and the migrations cost ~4 s, the
// copy ~0.5 s), made once for the migrations as they are and shared by the suite's processes
// through a file in the temporary folder. A migrated PostgreSQL database is likewise a copy
// (`create database ... template`, ~0.1 s against ~0.5 s for the migrations) of a template database
// named by the migrations' hash, made once on the server by whichever process needs it first.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { randomAlnum } from '../../src/lib/ids.js';
import { openDatabase, openPgliteAt, queryRows, type DatabaseHandle } from '../../src/db/client.js';
import { runMigrations } from '../../src/db/migrate.js';

export type DatabaseKind = 'pglite' | 'postgres';
export type CacheKind = 'memory' | 'redis';

const postgresUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;

/** Databases the suite runs on: PGlite always, PostgreSQL when TEST_DATABASE_URL is set. */
export const testDatabases: DatabaseKind[] = postgresUrl ? ['pglite', 'postgres'] : ['pglite'];
/** Caches the suite runs on: memory always, Redis when TEST_REDIS_URL is set. */
export const testCaches: CacheKind[] = redisUrl ? ['memory', 'redis'] : ['memory'];

export function testRedisUrl(): string {
  if (!redisUrl) throw new Error('TEST_REDIS_URL is not set');
  return redisUrl;
}

export interface TestDatabase {
  handle: DatabaseHandle;
  /** PostgreSQL URL of the fresh database (postgres kind only). */
  url?: string;
  drop(): Promise<void>;
}

const migrationsFolder = path.join(import.meta.dirname, '../../migrations');
let migratedDump: Promise<Blob> | undefined;
let migratedTemplate: Promise<string> | undefined;
/** Advisory lock taken while the PostgreSQL template is made. */
const TEMPLATE_LOCK = 71_149_013;

/** A short hash of the committed migrations (and of what else the copies depend on). */
function migrationsHash(extra: string): string {
  const hash = createHash('sha256').update(extra);
  for (const name of readdirSync(migrationsFolder, { recursive: true, encoding: 'utf8' }).sort()) {
    if (name.endsWith('.sql') || name.endsWith('.json'))
      hash.update(name).update(readFileSync(path.join(migrationsFolder, name)));
  }
  return hash.digest('hex').slice(0, 16);
}

/** The migrated PGlite data folder as a tarball: from the shared file, else made here and shared. */
function migratedPglite(): Promise<Blob> {
  migratedDump ??= (async () => {
    const version = JSON.parse(
      readFileSync(path.join(import.meta.dirname, '../../node_modules/@electric-sql/pglite/package.json'), 'utf8'),
    ).version;
    const file = path.join(tmpdir(), `blume-test-pglite-${migrationsHash(version)}.tar`);
    const kept = await readFile(file).catch(() => undefined);
    if (kept) return new Blob([kept]);
    const handle = await openDatabase({ pgliteDir: 'memory://' });
    await runMigrations(handle);
    const dump = await (handle.db as unknown as { $client: PGlite }).$client.dumpDataDir('none');
    await handle.close();
    const partial = `${file}.${process.pid}`;
    await writeFile(partial, Buffer.from(await dump.arrayBuffer()));
    await rename(partial, file);
    // Folders of earlier migrations are never read again.
    for (const name of readdirSync(tmpdir()))
      if (/^blume-test-pglite-[0-9a-f]{16}\.tar$/.test(name) && name !== path.basename(file))
        await rm(path.join(tmpdir(), name), { force: true });
    return dump;
  })();
  return migratedDump;
}

/**
 * The name of the migrated template database on the test server, made if missing. An advisory lock
 * lets one process make it while the others wait; it is made under a temporary name and renamed
 * once migrated, so a run killed halfway leaves no half-migrated template. Templates of other
 * migrations stay: another checkout may be copying from them.
 */
function migratedPostgres(admin: DatabaseHandle, serverUrl: string): Promise<string> {
  migratedTemplate ??= (async () => {
    const name = `blume_template_${migrationsHash('postgres')}`;
    const exists = async (db: DatabaseHandle['db']) =>
      (await queryRows(db, sql`select 1 from pg_database where datname = ${name}`)).length > 0;
    if (await exists(admin.db)) return name;
    await admin.exclusive(TEMPLATE_LOCK, async (db) => {
      if (await exists(db)) return;
      const partial = `${name}_${process.pid}`;
      await db.execute(sql.raw(`drop database if exists ${partial}`));
      await db.execute(sql.raw(`create database ${partial}`));
      const url = new URL(serverUrl);
      url.pathname = `/${partial}`;
      const handle = await openDatabase({ databaseUrl: url.toString(), poolSize: 1 });
      try {
        await runMigrations(handle);
      } finally {
        await handle.close();
      }
      await db.execute(sql.raw(`alter database ${partial} rename to ${name}`));
    });
    return name;
  })();
  migratedTemplate.catch(() => (migratedTemplate = undefined));
  return migratedTemplate;
}

export async function createTestDatabase(
  kind: DatabaseKind,
  options: { migrate?: boolean } = {},
): Promise<TestDatabase> {
  const migrate = options.migrate ?? true;
  if (kind === 'pglite') {
    const handle = migrate
      ? await openPgliteAt('memory://', await migratedPglite())
      : await openDatabase({ pgliteDir: 'memory://' });
    return { handle, drop: () => handle.close() };
  }
  if (!postgresUrl) throw new Error('TEST_DATABASE_URL is not set');
  const name = `blume_t_${randomAlnum(10)}`;
  const admin = await openDatabase({ databaseUrl: postgresUrl, poolSize: 1 });
  const template = migrate ? ` template ${await migratedPostgres(admin, postgresUrl)}` : '';
  await admin.db.execute(sql.raw(`create database ${name}${template}`));
  const url = new URL(postgresUrl);
  url.pathname = `/${name}`;
  const handle = await openDatabase({ databaseUrl: url.toString(), poolSize: 5 });
  return {
    handle,
    url: url.toString(),
    drop: async () => {
      await handle.close().catch(() => {});
      await admin.db.execute(sql.raw(`drop database if exists ${name} with (force)`));
      await admin.close();
    },
  };
}
