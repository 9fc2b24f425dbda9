// Entries of stored content types (articles and custom types): validation against the type's
// fields, writes with optimistic concurrency (ETag = id and version), and reads filtered by status.
// `published` means live: published with `published_at` not in the future (scheduled publishing).
import { and, eq, inArray, lte, or, sql, type Placeholder, type SQL } from 'drizzle-orm';
import { unionAll } from 'drizzle-orm/pg-core';
import type { Database, Executor } from '../db/client.js';
import { listTotal } from '../db/count.js';
import { preparedStatement } from '../db/prepared.js';
import { AppError } from '../http/errors.js';
import type { Page } from '../http/pagination.js';
import { newId } from '../lib/ids.js';
import { findStoredType } from './content-types.js';
import { deriveEntryColumns } from './derived.js';
import { checkValue, type FieldDefinition } from './fields.js';
import { MEDIA_PATH, missingMedia } from './media.js';
import { presentEntry } from './presenters.js';
import { recordRevision, type RevisionNote } from './revision-log.js';
import { filterConditions, sortOrder, type SortOrder, type StatusView } from './query.js';
import { cmsEntries, type ContentTypeRow, type EntryRow } from './tables.js';
import { emitEntryEvent } from './webhooks.js';

export interface EntryInput {
  slug?: string | null | undefined;
  status?: 'draft' | 'published' | undefined;
  published_at?: string | null | undefined;
  data: Record<string, unknown>;
}

interface FieldError {
  field: string;
  code: 'unknown_field' | 'invalid_field_value' | 'relation_not_found';
  message: string;
}

/** The SQL condition of a status view on `cms_entries`. */
function statusWhere(view: StatusView): SQL | undefined {
  const live = and(eq(cmsEntries.status, 'published'), lte(cmsEntries.publishedAt, sql`now()`))!;
  if (view === 'published') return live;
  if (view === 'draft') return sql`not (${live})`;
  return undefined;
}

/** The entry's ETag: changes with every write. */
export function etagOf(row: Pick<EntryRow, 'id' | 'version'>): string {
  return `"${row.id}.${row.version}"`;
}

/** Whether an If-Match header (absent = no precondition) matches the entry. */
function ifMatchHolds(header: string | undefined, row: EntryRow): boolean {
  if (header === undefined) return true;
  const tags = header.split(',').map((tag) => tag.trim());
  return tags.includes('*') || tags.includes(etagOf(row));
}

/**
 * Whether an entry of `type` with this id exists for relations to point at. Stored types answer
 * from `cms_entries`; the forum types through the forum's own reads (stored-source.ts builds it).
 */
export type RelationLookup = (type: string, id: string) => Promise<boolean>;

/** The lookup of stored types alone: whether `id` is an entry of the site's stored type `slug`. */
export async function storedEntryExists(db: Executor, siteId: string, slug: string, id: string): Promise<boolean> {
  const target = await findStoredType(db, siteId, slug);
  if (!target) return false;
  const [found] = await db
    .select({ id: cmsEntries.id })
    .from(cmsEntries)
    .where(and(eq(cmsEntries.typeId, target.id), eq(cmsEntries.id, id)));
  return !!found;
}

async function checkRelations(
  relations: RelationLookup,
  fields: readonly FieldDefinition[],
  data: Record<string, unknown>,
  errors: FieldError[],
): Promise<void> {
  for (const field of fields) {
    const value = data[field.name];
    if (field.type !== 'relation' || typeof value !== 'string') continue;
    if (!(await relations(field.options!.type!, value)))
      errors.push({
        field: field.name,
        code: 'relation_not_found',
        message: `no ${field.options!.type} entry "${value}"`,
      });
  }
}

/** A `media` field holding a site media path must name media of the site. */
async function checkMedia(
  db: Executor,
  siteId: string,
  fields: readonly FieldDefinition[],
  data: Record<string, unknown>,
  errors: FieldError[],
): Promise<void> {
  for (const field of fields) {
    const value = data[field.name];
    if (field.type !== 'media' || typeof value !== 'string' || !value.startsWith(MEDIA_PATH)) continue;
    if ((await missingMedia(db, siteId, [value])).length > 0)
      errors.push({ field: field.name, code: 'invalid_field_value', message: `names no uploaded media (${value})` });
  }
}

/**
 * The data to store for an entry: every value checked and normalized, defaults filled in, and the
 * values of removed fields kept from the entry's previous data. Throws 422 listing every problem.
 */
async function checkData(
  db: Executor,
  type: ContentTypeRow,
  relations: RelationLookup,
  data: Record<string, unknown>,
  previous: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const errors: FieldError[] = [];
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(data)) {
    if (!type.fields.some((f) => f.name === name))
      errors.push({ field: name, code: 'unknown_field', message: `type "${type.slug}" has no field "${name}"` });
  }
  for (const field of type.fields) {
    const value = data[field.name] ?? field.default;
    if (value === undefined || value === null) {
      if (field.required) errors.push({ field: field.name, code: 'invalid_field_value', message: 'is required' });
      continue;
    }
    const checked = checkValue(field, value);
    if (checked.ok) out[field.name] = checked.value;
    else errors.push({ field: field.name, code: 'invalid_field_value', message: checked.message });
  }
  for (const removed of type.removedFields)
    if (previous[removed.name] !== undefined) out[removed.name] = previous[removed.name];
  if (errors.length === 0) await checkRelations(relations, type.fields, out, errors);
  if (errors.length === 0) await checkMedia(db, type.siteId, type.fields, out, errors);
  if (errors.length > 0) {
    const code =
      errors.find((e) => e.code === 'unknown_field')?.code ??
      errors.find((e) => e.code === 'relation_not_found')?.code ??
      'invalid_field_value';
    throw new AppError(code, errors.map((e) => `${e.field} ${e.message}`).join('; '), { errors });
  }
  return out;
}

function constraintOf(error: unknown): string | undefined {
  for (const candidate of [error, (error as { cause?: unknown })?.cause]) {
    const e = candidate as { code?: string; constraint?: string; message?: string } | undefined;
    if (e?.code !== '23505') continue;
    return e.constraint ?? /unique constraint "([^"]+)"/.exec(e.message ?? '')?.[1] ?? '';
  }
  return undefined;
}

/** Runs a write, turning a unique violation into 409 `slug_taken` or `unique_violation`. */
async function uniqueWrite<T>(
  type: ContentTypeRow,
  slug: string | null | undefined,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const constraint = constraintOf(error);
    if (constraint === undefined) throw error;
    if (constraint === 'cms_entries_slug_key')
      throw new AppError('slug_taken', `Another ${type.slug} entry has the slug "${slug}".`);
    const field = constraint.startsWith(`cmsu_${type.id}_`) ? constraint.slice(`cmsu_${type.id}_`.length) : undefined;
    throw new AppError(
      'unique_violation',
      field
        ? `Another ${type.slug} entry has this value in field "${field}".`
        : 'Another entry has a value that must be unique.',
      field ? { field } : {},
    );
  }
}

function publishedAtFor(input: EntryInput, previous?: EntryRow): Date | null {
  if ((input.status ?? 'draft') === 'draft') return null;
  if (input.published_at) return new Date(input.published_at);
  return previous?.publishedAt ?? new Date();
}

export async function createEntry(
  db: Executor,
  type: ContentTypeRow,
  input: EntryInput,
  relations: RelationLookup,
  note: RevisionNote,
): Promise<EntryRow> {
  const data = await checkData(db, type, relations, input.data);
  return db.transaction((tx) =>
    uniqueWrite(type, input.slug, async () => {
      const [row] = await tx
        .insert(cmsEntries)
        .values({
          id: newId(),
          siteId: type.siteId,
          typeId: type.id,
          slug: input.slug ?? null,
          status: input.status ?? 'draft',
          data,
          ...deriveEntryColumns(type.fields, data),
          publishedAt: publishedAtFor(input),
        })
        .returning();
      await recordRevision(tx, row!, note);
      await entryEvents(tx, type, undefined, row!);
      return row!;
    }),
  );
}

const isPublished = (row: EntryRow | undefined): boolean => row?.status === 'published';

/**
 * The webhook events of one entry write, queued in its transaction (webhooks.ts): `entry.published`
 * when it becomes published (held back until a scheduled `published_at`), `entry.updated` for other
 * writes of a published entry (unpublishing included), `entry.deleted` when a published one goes.
 * Drafts stay private.
 */
async function entryEvents(
  tx: Executor,
  type: ContentTypeRow,
  before: EntryRow | undefined,
  after: EntryRow | undefined,
): Promise<void> {
  if (after && isPublished(after) && !isPublished(before)) {
    // Scheduled: the delivery waits on the job queue until the entry goes live.
    // A second past go-live, so a receiver that reads the entry back finds it live.
    const untilLive = (after.publishedAt?.getTime() ?? 0) - Date.now();
    const delayMs = untilLive > 0 ? untilLive + 1000 : 0;
    await emitEntryEvent(
      tx,
      type.siteId,
      'entry.published',
      { site: type.siteId, type: type.slug, entry: presentEntry(type, after) },
      delayMs,
    );
  } else if (after && isPublished(before)) {
    await emitEntryEvent(tx, type.siteId, 'entry.updated', {
      site: type.siteId,
      type: type.slug,
      entry: presentEntry(type, after),
    });
  } else if (!after && before && isPublished(before)) {
    await emitEntryEvent(tx, type.siteId, 'entry.deleted', {
      site: type.siteId,
      type: type.slug,
      entry: { id: before.id, type: type.slug, slug: before.slug },
    });
  }
}

/** The entry that `ref` names, its id first, then its slug (`ref` is both placeholders' value). */
function entryWhere(typeId: string | Placeholder, ref: string | Placeholder, view: StatusView): SQL | undefined {
  return and(eq(cmsEntries.typeId, typeId), or(eq(cmsEntries.id, ref), eq(cmsEntries.slug, ref)), statusWhere(view));
}

/** An entry by id, or by slug when no entry has that id, locked for update in `tx`; undefined when there is none. */
async function lockEntryByIdOrSlug(
  tx: Executor,
  type: ContentTypeRow,
  idOrSlug: string,
): Promise<EntryRow | undefined> {
  const [row] = await tx
    .select()
    .from(cmsEntries)
    .where(entryWhere(type.id, idOrSlug, 'any'))
    .orderBy(sql`${cmsEntries.id} = ${idOrSlug} desc`)
    .limit(1)
    .for('update');
  return row;
}

/**
 * The read of one entry, the Content API's hottest query: a named statement per status view, built
 * once and run with its generic plan (src/db/prepared.ts), an index probe by id or by `(type_id, slug)`.
 */
const entryRead = preparedStatement(
  'cms_entry_read',
  (db, view: StatusView) =>
    db
      .select()
      .from(cmsEntries)
      .where(entryWhere(sql.placeholder('typeId'), sql.placeholder('ref'), view))
      .orderBy(sql`${cmsEntries.id} = ${sql.placeholder('ref')} desc`)
      .limit(1),
  (view) => view,
);

/** An entry by id, or by slug when no entry has that id, as `view` lets it be seen. */
export async function findEntry(
  db: Database,
  type: ContentTypeRow,
  idOrSlug: string,
  view: StatusView,
): Promise<EntryRow> {
  const [row] = await entryRead(db, view).execute({ typeId: type.id, ref: idOrSlug });
  if (!row) throw new AppError('entry_not_found', `No ${type.slug} entry "${idOrSlug}".`);
  return row;
}

/** Replaces an entry's data (and slug and status when given), if `ifMatch` still names it; records the revision. */
export async function updateEntry(
  db: Executor,
  type: ContentTypeRow,
  id: string,
  input: EntryInput,
  relations: RelationLookup,
  note: RevisionNote,
  ifMatch?: string,
): Promise<EntryRow> {
  return db.transaction(async (tx) => {
    const [current] = await tx
      .select()
      .from(cmsEntries)
      .where(and(eq(cmsEntries.typeId, type.id), eq(cmsEntries.id, id)))
      .for('update');
    if (!current) throw new AppError('entry_not_found', `No ${type.slug} entry "${id}".`);
    if (!ifMatchHolds(ifMatch, current))
      throw new AppError(
        'precondition_failed',
        `The entry is at ${etagOf(current)}; read it again and redo the change.`,
      );
    const data = await checkData(tx, type, relations, input.data, current.data);
    const status = input.status ?? current.status;
    const slug = input.slug === undefined ? current.slug : input.slug;
    return uniqueWrite(type, slug, async () => {
      const [row] = await tx
        .update(cmsEntries)
        .set({
          slug,
          status,
          data,
          ...deriveEntryColumns(type.fields, data),
          publishedAt: publishedAtFor({ ...input, status }, current),
          version: current.version + 1,
          updatedAt: new Date(),
        })
        .where(eq(cmsEntries.id, current.id))
        .returning();
      await recordRevision(tx, row!, note);
      await entryEvents(tx, type, current, row!);
      return row!;
    });
  });
}

export async function deleteEntry(
  db: Executor,
  type: ContentTypeRow,
  idOrSlug: string,
  ifMatch?: string,
): Promise<void> {
  await db.transaction(async (tx) => {
    const current = await lockEntryByIdOrSlug(tx, type, idOrSlug);
    if (!current) throw new AppError('entry_not_found', `No ${type.slug} entry "${idOrSlug}".`);
    if (!ifMatchHolds(ifMatch, current))
      throw new AppError('precondition_failed', `The entry is at ${etagOf(current)}; read it again.`);
    await tx.delete(cmsEntries).where(eq(cmsEntries.id, current.id));
    await entryEvents(tx, type, current, undefined);
  });
}

export interface ListOptions {
  view: StatusView;
  /** The raw query: its `filter[...]` parameters. */
  query: Record<string, unknown>;
  sort?: string | undefined;
  q?: string | undefined;
}

/**
 * The statements of a list page: its rows, and the rows its total counts (a `select` without order
 * or limit, for src/db/count.ts). Each field's index serves a filter or sort on it, the paired index
 * of an enum or boolean field and another a filter on the first with a sort or bound on the second
 * (content-types.ts).
 */
export function listStatements(db: Executor, type: ContentTypeRow, options: ListOptions, page: Page) {
  // The type id as a literal: the planner then matches each field's partial index (its predicate names it).
  const where = and(
    sql.raw(`type_id = '${type.id}'`),
    statusWhere(options.view),
    options.q
      ? sql`to_tsvector('english', ${cmsEntries.searchText}) @@ plainto_tsquery('english', ${options.q})`
      : undefined,
    ...filterConditions(type.fields, options.query),
  );
  const { order, split } = sortOrder(
    type.fields,
    options.sort,
    options.view === 'published' ? '-published_at' : '-updated_at',
    options.view,
  );
  const rows = split
    ? splitPage(db, where, order, split, page)
    : db
        .select()
        .from(cmsEntries)
        .where(where)
        .orderBy(...order)
        .limit(page.pageSize)
        .offset(page.offset);
  const counted = db
    .select({ one: sql`1` })
    .from(cmsEntries)
    .where(where)
    .getSQL();
  return { rows, counted };
}

/** A page of entries and the list's total: exact up to a threshold, the planner's estimate past it (src/db/count.ts). */
export async function listEntries(
  db: Executor,
  type: ContentTypeRow,
  options: ListOptions,
  page: Page,
): Promise<{ rows: EntryRow[]; total: number; estimated: boolean }> {
  const { rows, counted } = listStatements(db, type, options, page);
  const [found, { total, estimated }] = await Promise.all([rows, listTotal(db, counted)]);
  return { rows: found, total, estimated };
}

/**
 * A page sorted first by a descending key that may be null, as two parts each an index can read in
 * order: the entries with a value (backwards, nulls first, which there are none of), then those
 * without; each part stops at the page's end. The outer query is named `cms_entries` as the table,
 * so the sort terms read its columns.
 */
function splitPage(
  db: Executor,
  where: SQL | undefined,
  order: SQL[],
  split: NonNullable<SortOrder['split']>,
  page: Page,
) {
  const end = page.offset + page.pageSize;
  const withValue = db
    .select()
    .from(cmsEntries)
    .where(and(where, sql`${split.expression} is not null`))
    .orderBy(split.first, ...split.rest)
    .limit(end);
  const withoutValue = db
    .select()
    .from(cmsEntries)
    .where(and(where, sql`${split.expression} is null`))
    .orderBy(...split.rest)
    .limit(end);
  return db
    .select()
    .from(unionAll(withValue, withoutValue).as('cms_entries'))
    .orderBy(...order)
    .limit(page.pageSize)
    .offset(page.offset);
}

/** Entries by id across the site's stored types (for `include=`), as the status view allows. */
export async function entriesById(
  db: Executor,
  siteId: string,
  ids: string[],
  view: StatusView,
): Promise<Map<string, EntryRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select()
    .from(cmsEntries)
    .where(and(eq(cmsEntries.siteId, siteId), inArray(cmsEntries.id, ids), statusWhere(view)));
  return new Map(rows.map((row) => [row.id, row]));
}
