// Entries of articles and custom types, stored in `cms_entries`.
import type { Executor } from '../db/client.js';
import { AppError } from '../http/errors.js';
import { findStoredType } from './content-types.js';
import { createEntry, deleteEntry, entriesById, etagOf, findEntry, listEntries, updateEntry, type StatusView } from './entries.js';
import type { FieldDefinition } from './fields.js';
import { authorizeStatusView } from './policy.js';
import { presentEntry } from './presenters.js';
import { fieldList } from './query.js';
import type { EntryOut } from './schemas.js';
import type { EntrySource, SourceContext } from './sources.js';
import type { ContentTypeRow, EntryRow } from './tables.js';

async function typeOf(ctx: SourceContext, slug: string): Promise<ContentTypeRow> {
  const type = await findStoredType(ctx.db, ctx.site.id, slug);
  if (!type) throw new AppError('content_type_not_found', `No content type "${slug}".`);
  return type;
}

/** The related entries `include=` asks for, presented, as far as the caller may see them. */
async function included(db: Executor, siteId: string, include: FieldDefinition[] | undefined, rows: EntryRow[], view: StatusView): Promise<Map<string, EntryOut>> {
  const out = new Map<string, EntryOut>();
  if (!include || include.length === 0) return out;
  const ids = [...new Set(include.flatMap((field) => rows.map((row) => row.data[field.name]).filter((v): v is string => typeof v === 'string')))];
  const related = await entriesById(db, siteId, ids, view === 'any' || view === 'draft' ? 'any' : 'published');
  for (const field of include) {
    const type = await findStoredType(db, siteId, field.options!.type!);
    if (!type) continue;
    for (const row of related.values()) if (row.typeId === type.id) out.set(row.id, presentEntry(type, row));
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
      const { rows, total } = await listEntries(ctx.db, type, { view, query, sort: query.sort, q: query.q }, page);
      const related = await included(ctx.db, ctx.site.id, include, rows, view);
      return { rows: rows.map((row) => presentEntry(type, row, { select, include, included: related })), total };
    },
    async read(ctx, idOrSlug, query) {
      const type = await typeOf(ctx, slug);
      const view = authorizeStatusView(ctx.caller, query.status);
      const select = fieldList(type.fields, query.fields, 'fields');
      const include = fieldList(type.fields, query.include, 'include');
      const row = await findEntry(ctx.db, type, idOrSlug, view);
      const related = await included(ctx.db, ctx.site.id, include, [row], view);
      return { entry: presentEntry(type, row, { select, include, included: related }), etag: etagOf(row) };
    },
    async create(ctx, input) {
      const type = await typeOf(ctx, slug);
      const row = await createEntry(ctx.db, type, input);
      return { entry: presentEntry(type, row), etag: etagOf(row) };
    },
    async update(ctx, id, input, ifMatch) {
      const type = await typeOf(ctx, slug);
      const row = await updateEntry(ctx.db, type, id, input, ifMatch);
      return { entry: presentEntry(type, row), etag: etagOf(row) };
    },
    async remove(ctx, idOrSlug, ifMatch) {
      await deleteEntry(ctx.db, await typeOf(ctx, slug), idOrSlug, ifMatch);
    },
  };
}
