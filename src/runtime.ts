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
import { checkInstallation, ModeMismatchError, recordInstallation, type RunMode } from './core/installation/service.js';
import { migrationStatus, runMigrations } from './db/migrate.js';

export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupError';
  }
}

interface Runtime {
  config: Config;
  database: DatabaseHandle;
  cache: CacheAdapter;
  blobs: BlobStore;
  mailer: Mailer;
  close(): Promise<void>;
}

interface RuntimeOptions {
  /**
   * `auto` follows BLUME_AUTO_MIGRATE (refusing to go on with pending migrations when it is off);
   * `always` migrates; `skip` leaves it to the caller (`db upgrade` reports what it applied).
   */
  migrations: 'auto' | 'always' | 'skip';
  /** Run install and seed steps (every server start does). */
  seed: boolean;
  /** What this process runs as; refused when the installation recorded another mode (decision 0025). */
  mode: RunMode;
  cachePrefix?: string;
}

function pgliteDir(config: Config): string {
  return path.join(config.dataDir, 'db');
}

/** What a process runs as, from its configuration and whether `--single` was passed. */
export function runModeOf(config: Config, single = false): RunMode {
  return single || config.mode === 'single' ? { mode: 'single', instanceId: config.instanceId } : { mode: 'platform' };
}

/** The innermost cause of a connection failure, on one line (drivers wrap it, sometimes twice). */
function causeOf(error: unknown): string {
  let current = error;
  while (current instanceof Error) {
    const next: unknown =
      current.cause ?? (current instanceof AggregateError && current.message === '' ? current.errors[0] : undefined);
    if (!(next instanceof Error)) break;
    current = next;
  }
  const message =
    current instanceof Error
      ? current.message || (current as NodeJS.ErrnoException).code || current.name
      : String(current);
  return message.replace(/\s+/g, ' ').trim();
}

/** The database URL with any password replaced, for messages. */
function redactUrl(url: string): string {
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
    const database = await openDatabase({
      databaseUrl: config.databaseUrl,
      pgliteDir: pgliteDir(config),
      migrateNewPglite: migrate,
    });
    opened.push(() => database.close());
    try {
      await database.ping();
    } catch (error) {
      throw new StartupError(`Cannot reach the database at ${redactUrl(config.databaseUrl ?? '')}: ${causeOf(error)}`);
    }
    // Redis, when configured, is required like the database (decision 0026): checked before anything
    // changes, so a node that cannot hear the others' changes never serves.
    let cache: CacheAdapter;
    try {
      cache = await createCache(config, options.cachePrefix);
    } catch (error) {
      throw new StartupError(`Cannot reach Redis at ${redactUrl(config.redis.url)}: ${causeOf(error)}`);
    }
    opened.push(() => cache.close());
    try {
      await checkInstallation(database.db, options.mode);
    } catch (error) {
      throw error instanceof ModeMismatchError ? new StartupError(error.message) : error;
    }

    if (migrate) {
      await runMigrations(database);
    } else if (options.migrations === 'auto') {
      const status = await migrationStatus(database);
      if (status.pending > 0) {
        throw new StartupError(
          `${status.pending} database migration(s) are pending and BLUME_AUTO_MIGRATE is False: run \`blume db upgrade\` first.`,
        );
      }
    }
    if (options.seed)
      await installAndSeed(database, options.mode.mode === 'single' ? options.mode.instanceId : undefined);

    const blobs = await createBlobStore(config.blobs);
    const mailer = await createMailer(config.mail);
    opened.push(() => mailer.close());
    return { config, database, cache, blobs, mailer, close: closeAll };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

/**
 * The idempotent install and seed steps: the installation's mode (recorded once, then checked), plan
 * features, and the single instance's site.
 */
export async function installAndSeed(
  database: DatabaseHandle,
  singleSite?: string,
): Promise<{ features: number; siteCreated: boolean }> {
  try {
    await recordInstallation(
      database.db,
      singleSite ? { mode: 'single', instanceId: singleSite } : { mode: 'platform' },
    );
  } catch (error) {
    throw error instanceof ModeMismatchError ? new StartupError(error.message) : error;
  }
  const features = await seedFeatures(database.db);
  let siteCreated = false;
  if (singleSite && !(await findSite(database.db, singleSite))) {
    // A self-hosted instance has every feature: its operator pays for nothing.
    await createSite(database.db, null, { id: singleSite, kind: 'community', plan: 'business' });
    siteCreated = true;
  }
  return { features, siteCreated };
}
