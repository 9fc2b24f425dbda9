// Migration tests: a database at the schema just before a given migration, to insert rows the way
// an older Blume left them and then run the rest.
import type { DatabaseHandle } from '../../src/db/client.js';
import { migrationTags, runFirstMigrations } from '../../src/db/migrate.js';

/** Applies the committed migrations before the one whose tag ends with `tagSuffix`; answers how many remain. */
export async function migrateUpTo(handle: DatabaseHandle, tagSuffix: string): Promise<number> {
  const tags = migrationTags();
  const index = tags.findIndex((tag) => tag.endsWith(tagSuffix));
  if (index <= 0) throw new Error(`no migration after the first ends with ${tagSuffix}`);
  await runFirstMigrations(handle, index);
  return tags.length - index;
}
