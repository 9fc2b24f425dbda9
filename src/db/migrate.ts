// Applies the committed SQL migrations (drizzle-kit output in migrations/). Safe to run twice and
// from several nodes at once: PostgreSQL runs serialize on an advisory lock.
import { readFileSync } from 'node:fs';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { queryRows, type DatabaseHandle } from './client.js';

const migrationsFolder = fileURLToPath(new URL('../../migrations', import.meta.url));

const MIGRATION_LOCK = 71_149_012;

interface MigrationStatus {
  applied: number;
  pending: number;
}

/** `folder` is for tests that stop at an older schema; the app always uses the committed migrations. */
export async function migrationStatus(handle: DatabaseHandle, folder = migrationsFolder): Promise<MigrationStatus> {
  const files = readMigrationFiles({ migrationsFolder: folder });
  const [exists] = await queryRows<{ present: boolean }>(
    handle.db,
    sql`select to_regclass('drizzle.__drizzle_migrations') is not null as present`,
  );
  if (!exists?.present) return { applied: 0, pending: files.length };
  const [last] = await queryRows<{ created_at: string | null }>(
    handle.db,
    sql`select max(created_at)::text as created_at from drizzle.__drizzle_migrations`,
  );
  const lastApplied = Number(last?.created_at ?? 0);
  const pending = files.filter((file) => file.folderMillis > lastApplied).length;
  return { applied: files.length - pending, pending };
}

/** Applies pending migrations and answers how many ran. */
export async function runMigrations(handle: DatabaseHandle, folder = migrationsFolder): Promise<number> {
  if ((await migrationStatus(handle, folder)).pending === 0) return 0;
  return handle.exclusive(MIGRATION_LOCK, async (db) => {
    const before = await migrationStatus({ ...handle, db }, folder);
    if (before.pending === 0) return 0;
    if (handle.driver === 'postgres') {
      const { migrate } = await import('drizzle-orm/node-postgres/migrator');
      await migrate(db as never, { migrationsFolder: folder });
    } else {
      const { migrate } = await import('drizzle-orm/pglite/migrator');
      await migrate(db as never, { migrationsFolder: folder });
    }
    return before.pending;
  });
}

interface Journal {
  entries: Array<{ tag: string }>;
}

function readJournal(folder: string): Journal {
  return JSON.parse(readFileSync(path.join(folder, 'meta', '_journal.json'), 'utf8')) as Journal;
}

/** The tags of the migrations in `folder`, oldest first (`0003_builds`, ...). */
export function migrationTags(folder = migrationsFolder): string[] {
  return readJournal(folder).entries.map((entry) => entry.tag);
}

/**
 * Applies the first `count` migrations only (a backup's schema level, or the schema before a
 * migration under test), from a copy of the folder whose journal stops there; answers how many ran.
 */
export async function runFirstMigrations(
  handle: DatabaseHandle,
  count: number,
  folder = migrationsFolder,
): Promise<number> {
  const scratch = await mkdtemp(path.join(tmpdir(), 'blume-migrations-'));
  try {
    const older = path.join(scratch, 'migrations');
    await cp(folder, older, { recursive: true });
    const journal = readJournal(older);
    journal.entries = journal.entries.slice(0, count);
    await writeFile(path.join(older, 'meta', '_journal.json'), JSON.stringify(journal));
    return await runMigrations(handle, older);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
