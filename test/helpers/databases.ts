import { sql } from 'drizzle-orm';
// Test databases: a fresh in-memory PGlite, or a fresh PostgreSQL database per call (created next to
// TEST_DATABASE_URL and dropped afterwards), both migrated with the committed migrations.
import { randomAlnum } from '../../src/lib/ids.js';
import { openDatabase, type DatabaseHandle } from '../../src/db/client.js';
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

export async function createTestDatabase(kind: DatabaseKind, options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const migrate = options.migrate ?? true;
  if (kind === 'pglite') {
    const handle = await openDatabase({ pgliteDir: 'memory://' });
    if (migrate) await runMigrations(handle);
    return { handle, drop: () => handle.close() };
  }
  if (!postgresUrl) throw new Error('TEST_DATABASE_URL is not set');
  const name = `blume_t_${randomAlnum(10)}`;
  const admin = await openDatabase({ databaseUrl: postgresUrl, poolSize: 1 });
  await admin.db.execute(sql.raw(`create database ${name}`));
  const url = new URL(postgresUrl);
  url.pathname = `/${name}`;
  const handle = await openDatabase({ databaseUrl: url.toString(), poolSize: 5 });
  if (migrate) await runMigrations(handle);
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
