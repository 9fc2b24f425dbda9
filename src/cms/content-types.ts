// The content model of a site: the built-in `articles` type and custom types. Changing a type never
// loses entry data: a removed field keeps its values (reported in `removed_fields`), a field whose
// new definition would not hold every stored value is refused with 409 `lossy_type_change`, and each
// filterable field gets its own partial index (docs/decisions/0042-cms-storage.md), and each enum or
// boolean field one with every other such field after it (docs/decisions/0130-cms-paired-indexes.md).
import { createHash } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { queryRows, type Database, type Executor } from '../db/client.js';
import { preparedStatement } from '../db/prepared.js';
import { AppError } from '../http/errors.js';
import { newId } from '../lib/ids.js';
import { deriveEntryColumns } from './derived.js';
import {
  carryOver,
  fieldDefinitionProblems,
  fieldExpression,
  isIndexed,
  type FieldDefinition,
  type RemovedField,
} from './fields.js';
import { FORUM_TYPE_SLUGS } from './forum-types.js';
import { cmsContentTypes, cmsEntries, type ContentTypeRow } from './tables.js';

export const ARTICLES: Pick<ContentTypeRow, 'slug' | 'name' | 'fields'> = {
  slug: 'articles',
  name: 'Articles',
  fields: [
    { name: 'title', type: 'text', required: true, options: { max_length: 200 } },
    { name: 'body', type: 'markdown' },
    { name: 'excerpt', type: 'text', options: { max_length: 500 } },
    { name: 'cover_image', type: 'media' },
    { name: 'tags', type: 'json' },
    { name: 'author', type: 'text', options: { max_length: 100 } },
    { name: 'seo_title', type: 'text', options: { max_length: 70 } },
    { name: 'seo_description', type: 'text', options: { max_length: 160 } },
  ],
};

interface TypeInput {
  name: string;
  fields: FieldDefinition[];
}

function isUniqueViolation(error: unknown): boolean {
  const candidates = [error, (error as { cause?: unknown })?.cause];
  return candidates.some((e) => (e as { code?: string } | undefined)?.code === '23505');
}

/** The stored types of a site; the built-in `articles` is made on first use. */
export async function listStoredTypes(db: Executor, siteId: string): Promise<ContentTypeRow[]> {
  const rows = await db
    .select()
    .from(cmsContentTypes)
    .where(eq(cmsContentTypes.siteId, siteId))
    .orderBy(cmsContentTypes.slug);
  if (rows.some((row) => row.builtin === 'articles')) return rows;
  await createArticles(db, siteId);
  return listStoredTypes(db, siteId);
}

async function createArticles(db: Executor, siteId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const [row] = await tx
      .insert(cmsContentTypes)
      .values({ id: newId(), siteId, builtin: 'articles', ...ARTICLES })
      .onConflictDoNothing()
      .returning();
    if (row) {
      await createFieldIndexes(tx, row, row.fields);
      await syncPairedIndexes(tx, row.id, row.fields, new Set());
    }
  });
}

export async function findStoredType(db: Executor, siteId: string, slug: string): Promise<ContentTypeRow | undefined> {
  const [row] = await db
    .select()
    .from(cmsContentTypes)
    .where(and(eq(cmsContentTypes.siteId, siteId), eq(cmsContentTypes.slug, slug)));
  if (row || slug !== 'articles') return row;
  await createArticles(db, siteId);
  return findStoredType(db, siteId, slug);
}

const typeRead = preparedStatement('cms_type_read', (db) =>
  db
    .select()
    .from(cmsContentTypes)
    .where(
      and(eq(cmsContentTypes.siteId, sql.placeholder('siteId')), eq(cmsContentTypes.slug, sql.placeholder('slug'))),
    ),
);

/**
 * `findStoredType` outside a transaction, as a named statement (src/db/prepared.ts): every Content
 * API request reads its type, and building and planning the query each time cost more than running it.
 */
export async function readStoredType(db: Database, siteId: string, slug: string): Promise<ContentTypeRow | undefined> {
  const [row] = await typeRead(db, undefined).execute({ siteId, slug });
  return row || slug !== 'articles' ? row : findStoredType(db, siteId, slug);
}

async function lockType(db: Executor, siteId: string, slug: string): Promise<ContentTypeRow> {
  await findStoredType(db, siteId, slug);
  const [row] = await db
    .select()
    .from(cmsContentTypes)
    .where(and(eq(cmsContentTypes.siteId, siteId), eq(cmsContentTypes.slug, slug)))
    .for('update');
  if (!row) throw new AppError('content_type_not_found', `No content type "${slug}".`);
  return row;
}

/** Checks a whole field list: each definition, distinct names, relation targets that exist (stored or forum types). */
async function checkFields(db: Executor, siteId: string, selfSlug: string, fields: FieldDefinition[]): Promise<void> {
  const problems = fields.flatMap(fieldDefinitionProblems);
  const seen = new Set<string>();
  for (const field of fields) {
    if (seen.has(field.name)) problems.push(`field "${field.name}" is named twice`);
    seen.add(field.name);
  }
  for (const field of fields) {
    const target = field.type === 'relation' ? field.options?.type : undefined;
    if (!target || target === selfSlug || FORUM_TYPE_SLUGS.includes(target)) continue;
    if (!(await findStoredType(db, siteId, target)))
      problems.push(`field "${field.name}": no content type "${target}" to relate to`);
  }
  if (problems.length > 0) throw new AppError('invalid_content_type', problems.join('; '), { errors: problems });
}

function indexName(typeId: string, field: string, unique: boolean): string {
  return `${unique ? 'cmsu' : 'cmsx'}_${typeId}_${field}`;
}

/**
 * The field's statistics object: the planner ignores the statistics of a partial index's expression,
 * so without it every filter on a field looks as selective as 0.5% of the type and a sorted page
 * reads every match instead of the sort field's index in order.
 */
function statisticsName(typeId: string, field: string): string {
  return `cmss_${typeId}_${field}`;
}

async function createFieldIndexes(
  db: Executor,
  type: Pick<ContentTypeRow, 'id'>,
  fields: FieldDefinition[],
): Promise<void> {
  for (const field of fields) {
    if (!isIndexed(field)) continue;
    const expression = fieldExpression(field);
    // The type id is a generated base36 id, safe as a literal; the partial predicate needs one.
    const where = sql.raw(`where type_id = '${type.id}'`);
    const name = sql.identifier(indexName(type.id, field.name, !!field.unique));
    try {
      if (field.unique)
        await db.execute(sql`create unique index if not exists ${name} on cms_entries (${expression}) ${where}`);
      else await db.execute(sql`create index if not exists ${name} on cms_entries (${expression}, id) ${where}`);
      await db.execute(
        sql`create statistics if not exists ${sql.identifier(statisticsName(type.id, field.name))} on type_id, ${expression} from cms_entries`,
      );
    } catch (error) {
      if (isUniqueViolation(error))
        throw new AppError(
          'unique_violation',
          `Entries already share values of field "${field.name}"; it cannot be unique.`,
          { field: field.name },
        );
      throw error;
    }
  }
}

/**
 * Makes every content type's field indexes, statistics and paired indexes again: they are DDL made
 * when a type is written, which a restore (rows only) does not carry.
 */
export async function recreateTypeIndexes(db: Executor): Promise<number> {
  const types = await db.select().from(cmsContentTypes);
  for (const type of types) {
    await createFieldIndexes(db, type, type.fields);
    await syncPairedIndexes(db, type.id, type.fields, new Set());
  }
  return types.length;
}

/** At most this many paired indexes per type: each costs every write of the type's entries. */
export const MAX_PAIRED_INDEXES = 16;

/**
 * The pairs of fields a type's entries are indexed on together: an enum or boolean field (what lists
 * filter on by equality) first, then each other indexed field, in field order. A list filtered on
 * the first and sorted or bounded on the second reads one range of the pair's index in order.
 */
export function pairedFields(fields: readonly FieldDefinition[]): Array<[FieldDefinition, FieldDefinition]> {
  const indexed = fields.filter(isIndexed);
  const pairs: Array<[FieldDefinition, FieldDefinition]> = [];
  for (const first of indexed.filter((f) => f.type === 'enum' || f.type === 'boolean'))
    for (const second of indexed)
      if (second !== first && pairs.length < MAX_PAIRED_INDEXES) pairs.push([first, second]);
  return pairs;
}

/** Field names may be 40 characters each, so the pair is named by a digest (identifiers stop at 63). */
export function pairedIndexName(typeId: string, first: string, second: string): string {
  const digest = createHash('sha256').update(`${first}\n${second}`).digest('hex').slice(0, 12);
  return `cmsc_${typeId}_${digest}`;
}

/**
 * Makes the type's paired indexes those of `fields`: drops the ones no pair names any more, remakes
 * those of a pair with a `changed` field (its expression may differ), creates the missing ones.
 */
async function syncPairedIndexes(
  db: Executor,
  typeId: string,
  fields: readonly FieldDefinition[],
  changed: ReadonlySet<string>,
): Promise<void> {
  const existing = new Set(
    (
      await queryRows<{ indexname: string }>(
        db,
        sql`select indexname from pg_indexes where tablename = 'cms_entries' and indexname like ${`cmsc\\_${typeId}\\_%`}`,
      )
    ).map((row) => row.indexname),
  );
  const wanted = new Map(
    pairedFields(fields).map((pair) => [pairedIndexName(typeId, pair[0].name, pair[1].name), pair]),
  );
  for (const name of existing) {
    const pair = wanted.get(name);
    if (pair && !changed.has(pair[0].name) && !changed.has(pair[1].name)) continue;
    await db.execute(sql`drop index if exists ${sql.identifier(name)}`);
    existing.delete(name);
  }
  for (const [name, [first, second]] of wanted) {
    if (existing.has(name)) continue;
    const where = sql.raw(`where type_id = '${typeId}'`);
    await db.execute(
      sql`create index if not exists ${sql.identifier(name)} on cms_entries (${fieldExpression(first)}, ${fieldExpression(second)}, id) ${where}`,
    );
  }
}

async function dropFieldIndexes(db: Executor, typeId: string, fields: Pick<FieldDefinition, 'name'>[]): Promise<void> {
  for (const field of fields) {
    for (const unique of [true, false])
      await db.execute(sql`drop index if exists ${sql.identifier(indexName(typeId, field.name, unique))}`);
    await db.execute(sql`drop statistics if exists ${sql.identifier(statisticsName(typeId, field.name))}`);
  }
}

export async function createType(
  db: Executor,
  siteId: string,
  slug: string,
  input: TypeInput,
): Promise<ContentTypeRow> {
  if (slug === 'articles' || FORUM_TYPE_SLUGS.includes(slug))
    throw new AppError('content_type_exists', `"${slug}" is a built-in content type.`);
  return db.transaction(async (tx) => {
    await checkFields(tx, siteId, slug, input.fields);
    const [row] = await tx
      .insert(cmsContentTypes)
      .values({ id: newId(), siteId, slug, name: input.name, fields: input.fields })
      .onConflictDoNothing()
      .returning();
    if (!row) throw new AppError('content_type_exists', `A content type "${slug}" exists.`);
    await createFieldIndexes(tx, row, row.fields);
    await syncPairedIndexes(tx, row.id, row.fields, new Set());
    return row;
  });
}

const sameDefinition = (a: FieldDefinition, b: FieldDefinition): boolean =>
  JSON.stringify([a.type, !!a.required, !!a.unique, a.default, a.options ?? {}]) ===
  JSON.stringify([b.type, !!b.required, !!b.unique, b.default, b.options ?? {}]);

interface LostValues {
  field: string;
  entries: number;
  example: string;
  message: string;
}

/**
 * Carries every stored value of the changed fields over to their new definitions, or throws 409
 * listing what would be lost; writes nothing unless every value carries over.
 */
async function carryOverValues(
  db: Executor,
  type: ContentTypeRow,
  changed: FieldDefinition[],
  fields: FieldDefinition[],
): Promise<void> {
  if (changed.length === 0) return;
  const entries = await db
    .select({ id: cmsEntries.id, data: cmsEntries.data })
    .from(cmsEntries)
    .where(eq(cmsEntries.typeId, type.id))
    .for('update');
  const lost: LostValues[] = [];
  const rewritten = new Map<string, Record<string, unknown>>();
  for (const field of changed) {
    for (const entry of entries) {
      const value = entry.data[field.name];
      if (value === undefined || value === null) continue;
      const carried = carryOver(field, value);
      if (!carried.ok) {
        const counted = lost.find((l) => l.field === field.name);
        if (counted) counted.entries += 1;
        else lost.push({ field: field.name, entries: 1, example: entry.id, message: carried.message });
        continue;
      }
      if (JSON.stringify(carried.value) !== JSON.stringify(value)) {
        const data = rewritten.get(entry.id) ?? { ...entry.data };
        data[field.name] = carried.value;
        rewritten.set(entry.id, data);
      }
    }
  }
  if (lost.length > 0) {
    const detail = lost
      .map((l) => `field "${l.field}": ${l.entries} entries have values that ${l.message} (e.g. entry ${l.example})`)
      .join('; ');
    throw new AppError(
      'lossy_type_change',
      `The change would lose data: ${detail}. Change the entries first, or add a new field instead.`,
      { fields: lost },
    );
  }
  // Every entry is re-derived: a field that moved between text and Markdown changes the HTML and search text.
  for (const entry of entries) {
    const data = rewritten.get(entry.id) ?? entry.data;
    await db
      .update(cmsEntries)
      .set({ data, ...deriveEntryColumns(fields, data), version: sql`${cmsEntries.version} + 1` })
      .where(eq(cmsEntries.id, entry.id));
  }
}

/** Replaces a type's name and fields (DESIGN section 11: `PUT /content-types/{slug}`). */
export async function updateType(
  db: Executor,
  siteId: string,
  slug: string,
  input: TypeInput,
): Promise<ContentTypeRow> {
  if (FORUM_TYPE_SLUGS.includes(slug))
    throw new AppError('builtin_type', `"${slug}" is a view onto the forum; change the forum instead.`);
  return db.transaction(async (tx) => {
    const type = await lockType(tx, siteId, slug);
    if (type.builtin) throw new AppError('builtin_type', `"${slug}" is built in and cannot be changed.`);
    await checkFields(tx, siteId, slug, input.fields);
    const now = new Date().toISOString();
    const before = new Map(type.fields.map((f) => [f.name, f]));
    const removedBefore = new Map(type.removedFields.map((f) => [f.name, f]));
    const names = new Set(input.fields.map((f) => f.name));
    // A field is changed when its definition differs from the current one, or when it comes back.
    const changed = input.fields.filter((f) => {
      const old = before.get(f.name);
      return old ? !sameDefinition(old, f) : removedBefore.has(f.name);
    });
    const added = input.fields.filter((f) => !before.has(f.name));
    const removed: RemovedField[] = type.fields
      .filter((f) => !names.has(f.name))
      .map((f) => ({ ...f, removed_at: now }));
    const removedFields = [
      ...type.removedFields.filter((f) => !names.has(f.name) && !removed.some((r) => r.name === f.name)),
      ...removed,
    ];
    await carryOverValues(tx, type, changed, input.fields);
    await fillDefaults(tx, type, added);
    const reindexed = [...changed, ...removed];
    await dropFieldIndexes(tx, type.id, reindexed);
    await createFieldIndexes(tx, type, [...changed, ...added.filter((f) => !changed.includes(f))]);
    await syncPairedIndexes(tx, type.id, input.fields, new Set(reindexed.map((f) => f.name)));
    const [row] = await tx
      .update(cmsContentTypes)
      .set({ name: input.name, fields: input.fields, removedFields, updatedAt: new Date() })
      .where(eq(cmsContentTypes.id, type.id))
      .returning();
    return row!;
  });
}

/** A new field with a default gives it to the entries that have no value for it. */
async function fillDefaults(db: Executor, type: ContentTypeRow, added: FieldDefinition[]): Promise<void> {
  for (const field of added) {
    if (field.default === undefined || field.default === null) continue;
    const value = JSON.stringify(field.default);
    await db.execute(
      sql`update cms_entries set data = jsonb_set(data, ${`{${field.name}}`}::text[], ${value}::jsonb) where type_id = ${type.id} and not (data ? ${field.name})`,
    );
  }
}

export async function deleteType(db: Executor, siteId: string, slug: string): Promise<void> {
  if (FORUM_TYPE_SLUGS.includes(slug))
    throw new AppError('builtin_type', `"${slug}" is a view onto the forum and cannot be deleted.`);
  await db.transaction(async (tx) => {
    const type = await lockType(tx, siteId, slug);
    if (type.builtin) throw new AppError('builtin_type', `"${slug}" is built in and cannot be deleted.`);
    await tx.delete(cmsContentTypes).where(eq(cmsContentTypes.id, type.id));
    await dropFieldIndexes(tx, type.id, [...type.fields, ...type.removedFields]);
    await syncPairedIndexes(tx, type.id, [], new Set());
  });
}
