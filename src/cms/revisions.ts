// Revision history of stored entries (docs/decisions/0139-cms-revisions-and-preview-links.md): the
// revisions an entry keeps, newest first, each with what it changed from the one before; and a
// restore, which saves a revision's slug and field values as a new revision of the entry.
import { and, count, desc, eq, lte } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { AppError } from '../http/errors.js';
import type { Page } from '../http/pagination.js';
import { updateEntry, type RelationLookup } from './entries.js';
import type { RevisionNote } from './revision-log.js';
import type { RevisionOut } from './schemas.js';
import { cmsEntryRevisions, type ContentTypeRow, type EntryRevisionRow, type EntryRow } from './tables.js';

/** What a revision shows beside its field values. */
const ENTRY_PARTS = ['slug', 'status', 'published_at'] as const;

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** A revision's value of a field of the type or of one of its ENTRY_PARTS. */
export function revisionValue(row: EntryRevisionRow, name: string): unknown {
  if (name === 'slug') return row.slug;
  if (name === 'status') return row.status;
  if (name === 'published_at') return row.publishedAt?.toISOString() ?? null;
  return row.data[name];
}

/** The type's fields, then slug, status and publication time, that differ between two revisions (all of them without a `before`). */
export function changedParts(
  fields: ContentTypeRow['fields'],
  row: EntryRevisionRow,
  before: EntryRevisionRow | undefined,
): string[] {
  const names = [...fields.map((f) => f.name), ...ENTRY_PARTS];
  if (!before)
    return names.filter((name) => revisionValue(row, name) !== undefined && revisionValue(row, name) !== null);
  return names.filter((name) => !same(revisionValue(row, name), revisionValue(before, name)));
}

export function presentRevision(
  fields: ContentTypeRow['fields'],
  row: EntryRevisionRow,
  before: EntryRevisionRow | undefined,
): RevisionOut {
  const data: Record<string, unknown> = {};
  for (const field of fields) if (row.data[field.name] !== undefined) data[field.name] = row.data[field.name];
  return {
    version: row.version,
    entry_id: row.entryId,
    slug: row.slug,
    status: row.status,
    published_at: row.publishedAt?.toISOString() ?? null,
    data,
    author: { kind: row.authorKind, id: row.authorId, name: row.authorName },
    restored_from: row.restoredFrom,
    changed: changedParts(fields, row, before),
    created_at: row.createdAt.toISOString(),
  };
}

/** A revision and the one kept before it, for what it changed. */
interface RevisionWithBefore {
  row: EntryRevisionRow;
  before: EntryRevisionRow | undefined;
}

/**
 * A page of an entry's revisions, newest first, each with the revision before it; and how many the
 * entry keeps. The page reads one row past its end: the last one's predecessor.
 */
export async function listRevisions(
  db: Executor,
  entry: Pick<EntryRow, 'id'>,
  page: Page,
): Promise<{ revisions: RevisionWithBefore[]; total: number }> {
  const [rows, all] = await Promise.all([
    db
      .select()
      .from(cmsEntryRevisions)
      .where(eq(cmsEntryRevisions.entryId, entry.id))
      .orderBy(desc(cmsEntryRevisions.version))
      .limit(page.pageSize + 1)
      .offset(page.offset),
    db.select({ n: count() }).from(cmsEntryRevisions).where(eq(cmsEntryRevisions.entryId, entry.id)),
  ]);
  const revisions = rows.slice(0, page.pageSize).map((row, i) => ({ row, before: rows[i + 1] }));
  return { revisions, total: all[0]?.n ?? 0 };
}

/** One revision of the entry and the one kept before it; 404 `revision_not_found` when it keeps none of that version. */
export async function findRevision(
  db: Executor,
  entry: Pick<EntryRow, 'id'>,
  version: number,
): Promise<RevisionWithBefore> {
  const [row, before] = await db
    .select()
    .from(cmsEntryRevisions)
    .where(and(eq(cmsEntryRevisions.entryId, entry.id), lte(cmsEntryRevisions.version, version)))
    .orderBy(desc(cmsEntryRevisions.version))
    .limit(2);
  if (row?.version !== version)
    throw new AppError('revision_not_found', `The entry keeps no revision ${version} (it keeps its last saves only).`);
  return { row, before };
}

/**
 * Saves revision `version`'s slug and field values as the entry's newest revision, in the state the
 * entry has now unless `status` says otherwise (its publication time stays). Values of fields the
 * type no longer has stay out; the save is checked like any other (If-Match, field rules, slug).
 */
export async function restoreRevision(
  db: Executor,
  type: ContentTypeRow,
  entry: Pick<EntryRow, 'id' | 'status'>,
  version: number,
  options: { status?: 'draft' | 'published' | undefined; ifMatch?: string | undefined },
  relations: RelationLookup,
  note: RevisionNote,
): Promise<EntryRow> {
  const { row } = await findRevision(db, entry, version);
  const data: Record<string, unknown> = {};
  for (const field of type.fields) if (row.data[field.name] !== undefined) data[field.name] = row.data[field.name];
  return updateEntry(
    db,
    type,
    entry.id,
    { slug: row.slug, status: options.status ?? entry.status, data },
    relations,
    { ...note, restoredFrom: version },
    options.ifMatch,
  );
}
