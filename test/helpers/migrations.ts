// Migration tests: a database at the schema just before a given migration, to insert rows the way
// an older Blume left them and then run the rest.
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DatabaseHandle } from '../../src/db/client.js';
import { migrationsFolder, runMigrations } from '../../src/db/migrate.js';

/** Applies the committed migrations before the one whose tag ends with `tagSuffix`; answers how many remain. */
export async function migrateUpTo(handle: DatabaseHandle, tagSuffix: string): Promise<number> {
  const scratch = await mkdtemp(path.join(tmpdir(), 'blume-migrations-'));
  try {
    const older = path.join(scratch, 'migrations');
    await cp(migrationsFolder, older, { recursive: true });
    const journalFile = path.join(older, 'meta', '_journal.json');
    const journal = JSON.parse(await readFile(journalFile, 'utf8')) as { entries: Array<{ tag: string }> };
    const index = journal.entries.findIndex((entry) => entry.tag.endsWith(tagSuffix));
    if (index <= 0) throw new Error(`no migration after the first ends with ${tagSuffix}`);
    const remaining = journal.entries.length - index;
    journal.entries = journal.entries.slice(0, index);
    await writeFile(journalFile, JSON.stringify(journal));
    await runMigrations(handle, older);
    return remaining;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
