// The columns each editor chose for a type's entry list in the CMS editor (cms_list_columns): field
// names in order. No row means the list's default columns (docs/decisions/0140-cms-media-library.md).
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { cmsListColumns } from './tables.js';

/** The field names a member chose for a type's list, or undefined when they chose none. */
export async function chosenColumns(db: Executor, memberId: string, typeSlug: string): Promise<string[] | undefined> {
  const [row] = await db
    .select({ columns: cmsListColumns.columns })
    .from(cmsListColumns)
    .where(and(eq(cmsListColumns.memberId, memberId), eq(cmsListColumns.typeSlug, typeSlug)));
  return row?.columns;
}

/** Keeps a member's columns for a type's list; undefined goes back to the default columns. */
export async function chooseColumns(
  db: Executor,
  siteId: string,
  memberId: string,
  typeSlug: string,
  columns: string[] | undefined,
): Promise<void> {
  if (!columns) {
    await db
      .delete(cmsListColumns)
      .where(and(eq(cmsListColumns.memberId, memberId), eq(cmsListColumns.typeSlug, typeSlug)));
    return;
  }
  await db
    .insert(cmsListColumns)
    .values({ siteId, memberId, typeSlug, columns })
    .onConflictDoUpdate({
      target: [cmsListColumns.memberId, cmsListColumns.typeSlug],
      set: { columns, updatedAt: new Date() },
    });
}
