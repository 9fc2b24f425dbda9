// Entries of articles and custom types, stored in `cms_entries`.
import { AppError } from '../http/errors.js';
import {
  createEntry,
  deleteEntry,
  entriesById,
  etagOf,
  findEntry,
  listEntries,
  storedEntryExists,
  updateEntry,
  type RelationLookup,
} from './entries.js';
import type { StatusView } from './query.js';
import { FORUM_TYPE_SLUGS } from './forum-types.js';
import { forumSource } from './forum-views.js';
import type { FieldDefinition } from './fields.js';
import { authorizeStatusView } from './policy.js';
import { presentEntry } from './presenters.js';
import { authorOf } from './revision-log.js';
import { fieldList } from './query.js';
import type { EntryOut } from './schemas.js';
import type { EntrySource, ReadQuery, SourceContext } from './sources.js';
import type { ContentTypeRow, EntryRow } from './tables.js';

async function typeOf(ctx: SourceContext, slug: string): Promise<ContentTypeRow> {
  const type = await ctx.types.get(ctx.site.id, slug);
  if (!type) throw new AppError('content_type_not_found', `No content type "${slug}".`);
  return type;
}

/** A forum entry as `ctx` may see it under `status`, or undefined when there is none it may see. */
async function forumEntry(
  ctx: SourceContext,
  type: string,
  id: string,
  status: ReadQuery['status'],
): Promise<EntryOut | undefined> {
  try {
    const { entry } = await forumSource(type).read(ctx, id, { status });
    // Relations hold ids; the forum's reads also take slugs, which a relation must not.
    return entry.id === id ? entry : undefined;
  } catch (error) {
    if (error instanceof AppError && error.status === 404) return undefined;
    throw error;
  }
}

/** What relations of entries written by `ctx` may point at: stored entries, or forum entries that exist. */
export function relationLookup(ctx: SourceContext): RelationLookup {
  return async (type, id) =>
    FORUM_TYPE_SLUGS.includes(type)
      ? (await forumEntry(ctx, type, id, 'any')) !== undefined
      : storedEntryExists(ctx.db, ctx.site.id, type, id);
}

/**
 * The related entries `include=` asks for, presented, as far as the caller may see them: stored
 * entries by status, forum entries through the forum's visibility (guest for published reads).
 */
async function included(
  ctx: SourceContext,
  include: FieldDefinition[] | undefined,
  rows: EntryRow[],
  view: StatusView,
): Promise<Map<string, EntryOut>> {
  const out = new Map<string, EntryOut>();
  if (!include || include.length === 0) return out;
  const relatedView = view === 'any' || view === 'draft' ? 'any' : 'published';
  const idsOf = (fields: FieldDefinition[]) => [
    ...new Set(
      fields.flatMap((field) =>
        rows.map((row) => row.data[field.name]).filter((v): v is string => typeof v === 'string'),
      ),
    ),
  ];
  const stored = include.filter((field) => !FORUM_TYPE_SLUGS.includes(field.options!.type!));
  const related = await entriesById(ctx.db, ctx.site.id, idsOf(stored), relatedView);
  for (const field of stored) {
    const type = await ctx.types.get(ctx.site.id, field.options!.type!);
    if (!type) continue;
    for (const row of related.values()) if (row.typeId === type.id) out.set(row.id, presentEntry(type, row));
  }
  for (const field of include.filter((f) => FORUM_TYPE_SLUGS.includes(f.options!.type!))) {
    for (const id of idsOf([field])) {
      const entry = await forumEntry(ctx, field.options!.type!, id, relatedView);
      if (entry) out.set(id, entry);
    }
  }
  return out;
}

export function storedSource(slug: string): EntrySource {
  return {
    async list(ctx, query, page) {
      const type = await typeOf(ctx, slug);
      const view = authorizeStatusView(ctx.caller, query.status);
      const select = fieldList(type.fields, query.fields, 'fields');
      const include = fieldList(type.fields, query.include, 'include');
      const listed = async () => {
        const { rows, total, estimated } = await listEntries(
          ctx.db,
          type,
          { view, query, sort: query.sort, q: query.q },
          page,
        );
        const related = await included(ctx, include, rows, view);
        return {
          rows: rows.map((row) => presentEntry(type, row, { select, include, included: related })),
          total,
          estimated,
        };
      };
      // A read with include= spans types, whose writes end only their own generations: never cached.
      return include?.length ? listed() : ctx.reads.list(type, view, JSON.stringify([query, page]), listed);
    },
    async read(ctx, idOrSlug, query) {
      const type = await typeOf(ctx, slug);
      const view = authorizeStatusView(ctx.caller, query.status);
      const select = fieldList(type.fields, query.fields, 'fields');
      const include = fieldList(type.fields, query.include, 'include');
      const read = async () => {
        const row = await findEntry(ctx.db, type, idOrSlug, view);
        const related = await included(ctx, include, [row], view);
        return { entry: presentEntry(type, row, { select, include, included: related }), etag: etagOf(row) };
      };
      return include?.length ? read() : ctx.reads.entry(type, view, JSON.stringify([idOrSlug, query.fields]), read);
    },
    async create(ctx, input) {
      const type = await typeOf(ctx, slug);
      const row = await createEntry(ctx.db, type, input, relationLookup(ctx), { author: authorOf(ctx.caller) });
      return { entry: presentEntry(type, row), etag: etagOf(row) };
    },
    async update(ctx, id, input, ifMatch) {
      const type = await typeOf(ctx, slug);
      const row = await updateEntry(
        ctx.db,
        type,
        id,
        input,
        relationLookup(ctx),
        { author: authorOf(ctx.caller) },
        ifMatch,
      );
      return { entry: presentEntry(type, row), etag: etagOf(row) };
    },
    async remove(ctx, idOrSlug, ifMatch) {
      const type = await typeOf(ctx, slug);
      await deleteEntry(ctx.db, type, idOrSlug, ifMatch);
    },
  };
}
