// Opens everything a Blume process needs from its configuration: the data directory (and its lock
// when the database is embedded), the database with migrations and seeds, the cache and the blob store.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { createBlobStore, type BlobStore } from './adapters/blobs/index.js';
import { createCache, type CacheAdapter } from './adapters/cache/index.js';
import { createMailer, type Mailer } from './adapters/mail/index.js';
import type { Config } from './config/index.js';
import { seedFeatures } from './core/plans/service.js';
import { findSite, createSite } from './core/sites/service.js';
import { openDatabase, type DatabaseHandle } from './db/client.js';
import { acquireDataDirLock, type DataDirLock } from './db/lock.js';
import { migrationStatus, runMigrations } from './db/migrate.js';

export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupError';
  }
}

export interface Runtime {
  config: Config;
  database: DatabaseHandle;
  cache: CacheAdapter;
  blobs: BlobStore;
  mailer: Mailer;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  /**
   * `auto` follows BLUME_AUTO_MIGRATE (refusing to go on with pending migrations when it is off);
   * `always` migrates; `skip` leaves it to the caller (`db upgrade` reports what it applied).
   */
  migrations: 'auto' | 'always' | 'skip';
  /** Run install and seed steps (every server start does). */
  seed: boolean;
  /** In single-instance mode: the community site to ensure. */
  singleSite?: string | undefined;
  cachePrefix?: string;
}

export function pgliteDir(config: Config): string {
  return path.join(config.dataDir, 'db');
}

/** The database URL with any password replaced, for messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable URL)';
  }
}

export async function openRuntime(config: Config, options: RuntimeOptions): Promise<Runtime> {
  mkdirSync(config.dataDir, { recursive: true });
  let lock: DataDirLock | undefined;
  if (!config.databaseUrl) lock = acquireDataDirLock(config.dataDir, pgliteDir(config));
  const opened: Array<() => Promise<void> | void> = [() => lock?.release()];
  const closeAll = async (): Promise<void> => {
    for (const close of opened.reverse()) await close();
  };
  try {
    const migrate = options.migrations === 'always' || (options.migrations === 'auto' && config.autoMigrate);
    const database = await openDatabase({ databaseUrl: config.databaseUrl, pgliteDir: pgliteDir(config), migrateNewPglite: migrate });
    opened.push(() => database.close());
    try {
      await database.ping();
    } catch (error) {
      throw new StartupError(`Cannot reach the database at ${redactUrl(config.databaseUrl ?? '')}: ${(error as Error).message}`);
    }

    if (migrate) {
      await runMigrations(database);
    } else if (options.migrations === 'auto') {
      const status = await migrationStatus(database);
      if (status.pending > 0) {
        throw new StartupError(`${status.pending} database migration(s) are pending and BLUME_AUTO_MIGRATE is False: run \`blume db upgrade\` first.`);
      }
    }
    if (options.seed) await installAndSeed(database, options.singleSite);

    const cache = await createCache(config, options.cachePrefix);
    opened.push(() => cache.close());
    const blobs = await createBlobStore(config.blobs);
    const mailer = await createMailer(config.mail);
    opened.push(() => mailer.close());
    return { config, database, cache, blobs, mailer, close: closeAll };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

/** The idempotent install and seed steps: plan features, and the single instance's site. */
export async function installAndSeed(database: DatabaseHandle, singleSite?: string): Promise<{ features: number; siteCreated: boolean }> {
  const features = await seedFeatures(database.db);
  let siteCreated = false;
  if (singleSite && !(await findSite(database.db, singleSite))) {
    // A self-hosted instance has every feature: its operator pays for nothing.
    await createSite(database.db, null, { id: singleSite, kind: 'community', plan: 'business' });
    siteCreated = true;
  }
  return { features, siteCreated };
}
