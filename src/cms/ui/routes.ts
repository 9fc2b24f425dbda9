// The CMS editor in the community admin area (/admin/content, /admin/content-types, /admin/media):
// entries and media for the community's admins and the members they made content editors; the
// content model and the editors list for admins only (docs/decisions/0048-cms-editor.md; the media
// library, media picker, pasted images and chosen list columns in 0140). Writes go
// through the same entry sources, type and media services as the Content API, acting as `admin`
// for admins and as `cms-write` for editors.
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ADMIN_FORM, ADMIN_PAGE } from '../../forum/ui/admin/access.js';
import type { Flash } from '../../forum/ui/admin/views.js';
import { checkForm, loadUi } from '../../forum/ui/context.js';
import { authorizeAdmin, requireMember } from '../../forum/policy.js';
import { activeSuspension } from '../../forum/moderation.js';
import { addEditor, isEditor, listEditors, removeEditor, type AddEditorResult } from '../editors.js';
import { pageNumber, sendPage, totalPages } from '../../forum/ui/forms.js';
import { verifyCsrf } from '../../http/csrf.js';
import { field, seeOther } from '../../http/forms.js';
import { renderBody } from '../../forum/markdown.js';
import { AppError } from '../../http/errors.js';
import { createType, findStoredType, listStoredTypes, updateType } from '../content-types.js';
import { FIELD_NAME_PATTERN, FIELD_TYPES, type FieldDefinition, type FieldType } from '../fields.js';
import { FORUM_TYPES } from '../forum-types.js';
import { chooseColumns, chosenColumns } from '../list-columns.js';
import {
  MAX_MEDIA_BYTES,
  deleteMedia,
  findMedia,
  listMedia,
  mediaUses,
  presentMedia,
  storeMedia,
  updateMediaAlt,
} from '../media.js';
import { sendProblem } from '../../http/problem.js';
import type { MediaRow } from '../tables.js';
import { presentForumType, presentType } from '../presenters.js';
import type { ContentTypeOut, EntryOut } from '../schemas.js';
import { sourceFor } from '../source-for.js';
import { sourceContext, type SourceContext } from '../sources.js';
import type { EntryInput } from '../entries.js';
import { entryLabel, humanName, stateOf } from './labels.js';
import { findEntry } from '../entries.js';
import { presentEntry } from '../presenters.js';
import { DEFAULT_PREVIEW_HOURS, PREVIEW_LIFETIMES, previewLinkHolds, previewPath } from '../preview-links.js';
import { authorOf } from '../revision-log.js';
import { changedParts, listRevisions, restoreRevision, revisionValue } from '../revisions.js';
import { relationLookup } from '../stored-source.js';
import { partLabel, previewView, revisionsView, shareView, shownValue, type ShownRevision } from './revision-views.js';
import { EDITOR_JS } from './editor-script.js.js';
import { aiSettingsOf, generateDraft } from '../ai-drafting.js';
import { parseBoolean } from '../../config/index.js';
import { html } from '../../lib/html.js';
import { consumeRateLimit } from '../../http/rate-limit.js';
import {
  BLANK_ROWS,
  RULE_INPUTS,
  bulkDeleteView,
  columnChoices,
  entryFormView,
  entryListView,
  fieldRowValues,
  mediaView,
  typeEditorView,
  typesView,
  type FieldErrors,
  type FormValues,
  isJsonText,
  listColumns,
  listFilters,
  MAX_CHOSEN_COLUMNS,
  mediaDeleteView,
  type MediaUser,
  type RelationChoice,
  type RelationPicker,
} from './views.js';

const PAGE_SIZE = 20;
const TYPE_SLUG = /^[a-z][a-z0-9-]{0,62}$/;
const FIELD_NAME = new RegExp(FIELD_NAME_PATTERN);
const TypeParams = Type.Object({ type: Type.String({ minLength: 1, maxLength: 63 }) });
const EntryParams = Type.Object({
  type: Type.String({ minLength: 1, maxLength: 63 }),
  id: Type.String({ minLength: 1, maxLength: 100 }),
});
const MediaParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
const RevisionParams = Type.Object({
  ...EntryParams.properties,
  version: Type.String({ pattern: '^[1-9][0-9]{0,9}$' }),
});
type WithType = { Params: { type: string } };
type WithMedia = { Params: { id: string } };
type WithEntry = { Params: { type: string; id: string } };

/** Entries and media: admins, and members made content editors while no suspension stands. */
async function editorOnly(request: FastifyRequest): Promise<void> {
  const viewer = request.ui.viewer;
  if (
    viewer.kind === 'member' &&
    viewer.role !== 'admin' &&
    !activeSuspension(viewer.member) &&
    (await isEditor(request.server.deps.database.db, request.ui.site.id, viewer.member.id))
  )
    return;
  authorizeAdmin(viewer);
}

const EDITOR_PAGE = [loadUi, editorOnly];
const EDITOR_FORM = [loadUi, editorOnly, checkForm];

/**
 * The editor acts for the logged-in member: as the Content API's admin for admins, as `cms-write`
 * for editors, and reads forum views as that member (never as the site owner).
 */
function editorContext(request: FastifyRequest): SourceContext {
  const viewer = request.ui.viewer;
  requireMember(viewer);
  return sourceContext(request.server, request.ui.site, {
    kind: 'session',
    scope: viewer.role === 'admin' ? 'admin' : 'cms-write',
    id: viewer.member.id,
    name: viewer.member.username,
    member: viewer,
  });
}

const ADD_EDITOR_ERRORS: Record<Exclude<AddEditorResult, 'added'>, string> = {
  already: 'is a content editor already.',
  admin: 'is an admin: admins edit content already.',
  not_found: 'is not a member of this community (or is banned).',
};

async function contentType(request: FastifyRequest, slug: string): Promise<ContentTypeOut> {
  const forum = FORUM_TYPES.find((t) => t.slug === slug);
  if (forum) return presentForumType(forum.slug, forum.name, forum.fields);
  const row = await findStoredType(request.server.deps.database.db, request.ui.site.id, slug);
  if (!row) throw new AppError('content_type_not_found', `No content type "${slug}".`);
  return presentType(row);
}

/** The entry form's script (Markdown toolbar and live preview); the form works without it. */
const EDITOR_HEAD = html`<script src="/assets/cms-editor.js" defer></script>`;
/** A preview link's page stays out of search engines. */
const PREVIEW_HEAD = html`<meta name="robots" content="noindex, nofollow">`;
/** Live previews one editor may ask for a minute (the script asks at most every 300 ms of typing). */
const PREVIEWS_PER_MINUTE = 120;
const MAX_MARKDOWN_PREVIEW = 100_000;
/** The longest prompt for AI drafting, as the Content API takes it. */
const MAX_AI_PROMPT = 10_000;

/** Entries one bulk action takes: a list page's worth and more. */
const BULK_MAX = 100;
const BULK_DONE: Record<string, string> = { published: 'published', unpublished: 'unpublished', deleted: 'deleted' };

/** Entries of a relation's search: as many as fit beside the form. */
const RELATION_RESULTS = 10;
/** Related entries a list's relation filter matches at most (the Content API's `in` takes 100). */
const RELATED_FILTER_MAX = 100;

/**
 * Entries of the `related` type whose title holds `query` (drafts too: an entry may point to one
 * before it is published). The title is the type's first text field, searched as a substring; a
 * forum type, or a type without one, by its search text.
 */
async function findRelated(
  request: FastifyRequest,
  related: ContentTypeOut,
  query: string,
  limit: number,
): Promise<EntryOut[]> {
  const title = related.fields.find((r) => r.type === 'text' || r.type === 'slug');
  const { rows } = await sourceFor(related.slug).list(
    editorContext(request),
    {
      status: 'any',
      ...(title && related.source !== 'forum' ? { [`filter[${title.name}][contains]`]: query } : { q: query }),
    },
    { page: 1, pageSize: limit, offset: 0 },
  );
  return rows;
}

/**
 * The picker of each relation field of `type`: the chosen entry (from `values`) named by its title,
 * and, for each search in `queries`, the related type's entries whose title holds the words.
 */
async function relationPickers(
  request: FastifyRequest,
  type: ContentTypeOut,
  values: FormValues,
  queries: Record<string, string> = {},
): Promise<Record<string, RelationPicker>> {
  const pickers: Record<string, RelationPicker> = {};
  const now = new Date();
  for (const f of type.fields) {
    const slug = (f.options as { type?: string }).type;
    if (f.type !== 'relation' || !slug) continue;
    const related = await contentType(request, slug);
    const source = sourceFor(related.slug);
    const ctx = editorContext(request);
    const choice = (entry: EntryOut): RelationChoice => {
      const state = stateOf(entry, now);
      return { id: entry.id, label: entryLabel(related, entry), ...(state === 'Published' ? {} : { state }) };
    };
    const value = values[`data_${f.name}`] ?? '';
    let selected: RelationPicker['selected'];
    if (value !== '') {
      try {
        selected = choice((await source.read(ctx, value, { status: 'any' })).entry);
      } catch (error) {
        if (!(error instanceof AppError) || error.status !== 404) throw error;
        selected = { id: value, label: value, missing: true };
      }
    }
    const query = (queries[f.name] ?? '').trim();
    const results =
      query === ''
        ? undefined
        : (await findRelated(request, related, query, RELATION_RESULTS))
            .filter((entry) => entry.id !== selected?.id)
            .map(choice);
    pickers[f.name] = { typeName: related.name, query, selected, results };
  }
  return pickers;
}

/** The rules and choices typed for field row `p` that apply to its type, as the type's options. */
function fieldOptions(type: FieldType, p: string, values: FormValues, errors: FieldErrors): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  const rules =
    type === 'text' || type === 'markdown' || type === 'slug'
      ? (['min_length', 'max_length'] as const)
      : type === 'number'
        ? (['min', 'max'] as const)
        : [];
  for (const rule of rules) {
    const text = values[`${p}_${rule}`]!;
    if (text === '') continue;
    const number = Number(text);
    if (!Number.isFinite(number) || (rule.endsWith('length') && (!Number.isInteger(number) || number < 0)))
      errors[`${p}_${rule}`] = rule.endsWith('length') ? 'Enter a whole number of characters.' : 'Enter a number.';
    else options[rule] = number;
  }
  if (type === 'number' && values[`${p}_integer`] === 'on') options.integer = true;
  if (type === 'enum') {
    const choices = [
      ...new Set(
        values[`${p}_values`]!.split(/[\n,]/)
          .map((choice) => choice.trim())
          .filter((choice) => choice !== ''),
      ),
    ];
    if (choices.length === 0) errors[`${p}_values`] = 'Enter the choices, one per line.';
    else options.values = choices;
  }
  if (type === 'relation') {
    if (values[`${p}_relation`] === '') errors[`${p}_relation`] = 'Enter the slug of the related type, e.g. topics.';
    else options.type = values[`${p}_relation`];
  }
  return options;
}

/** The field rows of the type editor as definitions, or the problems by input name. */
function readFieldRows(request: FastifyRequest): {
  fields: FieldDefinition[];
  values: FormValues;
  errors: FieldErrors;
} {
  const rows = Math.min(Number(field(request, 'rows', 4)) || BLANK_ROWS, 100);
  const values: FormValues = { rows: String(rows) };
  const errors: FieldErrors = {};
  const fields: FieldDefinition[] = [];
  for (let i = 0; i < rows; i++) {
    const p = `f${i}`;
    for (const part of ['name', 'type', 'required', 'unique', 'values', 'integer', 'relation', ...RULE_INPUTS])
      values[`${p}_${part}`] = (field(request, `${p}_${part}`, 2000) ?? '').trim();
    const name = values[`${p}_name`]!;
    if (name === '') continue;
    if (!FIELD_NAME.test(name))
      errors[`${p}_name`] = 'Use a lower-case letter, then letters, digits or underscores (at most 40).';
    const type = values[`${p}_type`] as FieldType;
    const options = fieldOptions(type, p, values, errors);
    fields.push({
      name,
      type: FIELD_TYPES.includes(type) ? type : 'text',
      ...(values[`${p}_required`] === 'on' ? { required: true } : {}),
      ...(values[`${p}_unique`] === 'on' ? { unique: true } : {}),
      ...(Object.keys(options).length > 0 ? { options } : {}),
    });
  }
  return { fields, values, errors };
}

/** `2026-05-01T09:30` (a datetime-local input, read as UTC) to RFC 3339; '' stays undefined. */
function fromLocal(value: string): string | undefined {
  return value === '' ? undefined : `${value.length === 16 ? `${value}:00` : value}Z`;
}

function toLocal(iso: string | null | undefined): string {
  return iso ? iso.slice(0, 16) : '';
}

/**
 * A JSON field as the form shows it: an array of strings as tags separated by commas (when no tag
 * holds a comma), anything else as JSON.
 */
function jsonText(value: unknown): string {
  const tags = Array.isArray(value) && value.every((tag) => typeof tag === 'string' && !tag.includes(','));
  return tags ? (value as string[]).join(', ') : JSON.stringify(value);
}

/** Field values as the form's inputs show them (`data_<name>`), those without a value left out. */
function dataValues(type: ContentTypeOut, data: Record<string, unknown>): FormValues {
  const values: FormValues = {};
  for (const f of type.fields) {
    const value = data[f.name];
    if (value === undefined || value === null) continue;
    values[`data_${f.name}`] =
      f.type === 'boolean'
        ? value
          ? 'on'
          : ''
        : f.type === 'json'
          ? jsonText(value)
          : f.type === 'datetime'
            ? toLocal(String(value))
            : String(value as string | number);
  }
  return values;
}

/** An entry as form values, the way the form shows it. */
function entryValues(type: ContentTypeOut, entry: EntryOut, version: string): FormValues {
  return {
    slug: entry.slug ?? '',
    status: entry.status,
    published_at: toLocal(entry.published_at),
    version,
    ...dataValues(type, entry.data as Record<string, unknown>),
  };
}

/** The posted entry form as values (to show again) and as the input the entry source takes. */
function readEntry(
  request: FastifyRequest,
  type: ContentTypeOut,
): { values: FormValues; errors: FieldErrors; input: EntryInput } {
  const values: FormValues = {};
  const errors: FieldErrors = {};
  const data: Record<string, unknown> = {};
  for (const name of ['slug', 'status', 'published_at', 'version'])
    values[name] = (field(request, name, 200) ?? '').trim();
  for (const f of type.fields) {
    const raw = field(request, `data_${f.name}`, 200_000) ?? '';
    values[`data_${f.name}`] = raw;
    if (f.type === 'boolean') {
      data[f.name] = raw === 'on';
      continue;
    }
    if (raw.trim() === '') continue;
    if (f.type === 'number') {
      if (Number.isFinite(Number(raw))) data[f.name] = Number(raw);
      else errors[f.name] = 'Enter a number.';
    } else if (f.type === 'json') {
      if (isJsonText(raw)) {
        try {
          data[f.name] = JSON.parse(raw) as unknown;
        } catch {
          errors[f.name] = 'Enter valid JSON.';
        }
      } else {
        const tags = raw
          .split(',')
          .map((tag) => tag.trim())
          .filter((tag) => tag !== '');
        if (tags.length > 0) data[f.name] = tags;
      }
    } else if (f.type === 'datetime') {
      data[f.name] = fromLocal(raw);
    } else {
      data[f.name] = raw;
    }
  }
  const status = values.status === 'published' ? 'published' : 'draft';
  const input: EntryInput = {
    slug: values.slug === '' ? null : values.slug,
    status,
    published_at: status === 'published' ? (fromLocal(values.published_at!) ?? null) : null,
    data,
  };
  return { values, errors, input };
}

/** The service's refusals shown beside the fields they concern. */
function entryErrors(error: unknown): FieldErrors | undefined {
  if (!(error instanceof AppError)) return undefined;
  if (error.code === 'slug_taken') return { slug: error.message };
  if (error.code === 'precondition_failed')
    return {
      _form: 'Someone changed this entry since you opened it. Open it again to see their change, then redo yours.',
    };
  if (error.code === 'validation_failed') return { _form: error.message };
  const listed = error.extensions.errors as Array<{ field: string; message: string }> | undefined;
  if (listed) return Object.fromEntries(listed.map((e) => [e.field, `${humanName(e.field)} ${e.message}`]));
  if (error.code === 'unique_violation') return { [String(error.extensions.field ?? '_form')]: error.message };
  return undefined;
}

export async function editorRoutes(app: FastifyInstance): Promise<void> {
  await app.register(multipart, { limits: { files: 1, fields: 2, fieldSize: 1024, parts: 3 } });
  const db = app.deps.database.db;

  /** Whether the site drafts with AI: its plan has it and AI_CONTENT_ENABLED is on (the provider may still be unset). */
  async function aiOffered(request: FastifyRequest): Promise<boolean> {
    const site = request.ui.site;
    if (!(await app.services.plans.includes(site.plan, 'ai'))) return false;
    const settings = await app.instanceSettings.applied(site.id);
    return parseBoolean(settings.values.AI_CONTENT_ENABLED ?? '') ?? false;
  }

  /**
   * Field values drafted by the site's AI provider from the prompt, as form values; the entry being
   * edited (if any) goes along as it is now. Nothing is saved: the editor reviews, then saves.
   */
  async function aiDraft(request: FastifyRequest, type: ContentTypeOut, prompt: string, id: string | undefined) {
    const site = request.ui.site;
    await app.services.plans.require(site, 'ai');
    const ai = aiSettingsOf(await app.instanceSettings.applied(site.id), app.deps.config, request.log);
    const ctx = editorContext(request);
    const draft = await generateDraft(
      db,
      site.id,
      ai,
      { type: type.slug, prompt, ...(id ? { entry: id } : {}) },
      relationLookup(ctx),
      { author: authorOf(ctx.caller) },
    );
    return dataValues(type, draft.data);
  }

  // The entry form's "Draft with AI" from its script: the drafted values as JSON, filled in place.
  app.post<WithType>(
    '/admin/content/:type/ai-draft',
    { schema: { params: TypeParams }, preHandler: EDITOR_FORM },
    async (request, reply) => {
      const type = await contentType(request, request.params.type);
      storedType(type);
      const prompt = (field(request, 'ai_prompt', MAX_AI_PROMPT) ?? '').trim();
      reply.header('Cache-Control', 'no-store');
      if (prompt === '') return reply.code(422).send({ detail: 'Describe the entry to draft.' });
      const id = field(request, 'entry', 100) || undefined;
      try {
        const values = await aiDraft(request, type, prompt, id);
        return reply.send({ values, filled: Object.keys(values).length });
      } catch (error) {
        // What the form's round trip shows beside the prompt, for the script to show there.
        if (error instanceof AppError)
          return reply.code(error.status).send({ code: error.code, detail: error.message });
        throw error;
      }
    },
  );

  async function typesPage(request: FastifyRequest) {
    const stored = (await listStoredTypes(db, request.ui.site.id)).map(presentType);
    const forum = FORUM_TYPES.map((t) => presentForumType(t.slug, t.name, t.fields));
    return [...stored, ...forum].map((t) => ({
      slug: t.slug,
      name: t.name,
      source: t.source,
      fields: t.fields.length,
    }));
  }

  /** The content page; admins also get the type form (as typed, with its problems) and the editors. */
  async function contentPage(
    request: FastifyRequest,
    reply: FastifyReply,
    status = 200,
    shown: { create?: { values: FormValues; errors: FieldErrors }; editorError?: string; flash?: Flash } = {},
  ) {
    const admin = request.ui.viewer.kind === 'member' && request.ui.viewer.role === 'admin';
    const model = admin
      ? {
          create: shown.create ?? { values: { rows: String(BLANK_ROWS) }, errors: {} },
          editors: await listEditors(db, request.ui.site.id),
          ...(shown.editorError ? { editorError: shown.editorError } : {}),
        }
      : undefined;
    return sendPage(reply, request.ui, 'Content', typesView(request.ui, await typesPage(request), model, shown.flash), {
      status,
      private: true,
    });
  }

  app.get<{ Querystring: { editor?: string } }>('/admin/content', { preHandler: EDITOR_PAGE }, async (request, reply) =>
    contentPage(
      request,
      reply,
      200,
      request.query.editor === 'added'
        ? { flash: { kind: 'ok', text: 'Content editor added.' } }
        : request.query.editor === 'removed'
          ? { flash: { kind: 'ok', text: 'Content editor removed.' } }
          : {},
    ),
  );

  app.post('/admin/content-editors', { preHandler: ADMIN_FORM }, async (request, reply) => {
    const username = (field(request, 'username', 60) ?? '').trim();
    const result = username === '' ? 'not_found' : await addEditor(db, request.ui.site.id, username);
    if (result !== 'added')
      return contentPage(request, reply, 422, {
        editorError: username === '' ? 'Enter a username.' : `${username} ${ADD_EDITOR_ERRORS[result]}`,
      });
    return seeOther(reply, '/admin/content?editor=added');
  });

  app.post<{ Params: { member: string } }>(
    '/admin/content-editors/:member/remove',
    {
      schema: { params: Type.Object({ member: Type.String({ minLength: 1, maxLength: 100 }) }) },
      preHandler: ADMIN_FORM,
    },
    async (request, reply) => {
      if (!(await removeEditor(db, request.ui.site.id, request.params.member)))
        throw new AppError('member_not_found', 'That member is not a content editor.');
      return seeOther(reply, '/admin/content?editor=removed');
    },
  );

  app.post('/admin/content-types', { preHandler: ADMIN_FORM }, async (request, reply) => {
    const { fields, values, errors } = readFieldRows(request);
    values.name = (field(request, 'name', 100) ?? '').trim();
    values.slug = (field(request, 'slug', 63) ?? '').trim();
    if (values.name === '') errors.name = 'Enter a name.';
    if (!TYPE_SLUG.test(values.slug)) errors.slug = 'Use a lower-case letter, then letters, digits and hyphens.';
    const again = (shown: FieldErrors, status: number) =>
      contentPage(request, reply, status, { create: { values, errors: shown } });
    if (Object.keys(errors).length > 0) return again(errors, 422);
    try {
      await createType(db, request.ui.site.id, values.slug, { name: values.name, fields });
    } catch (error) {
      if (error instanceof AppError && error.status < 500) return again({ _form: error.message }, error.status);
      throw error;
    }
    return seeOther(reply, `/admin/content/${values.slug}`);
  });

  app.get<WithType>(
    '/admin/content-types/:type',
    { schema: { params: TypeParams }, preHandler: ADMIN_PAGE },
    async (request, reply) => {
      const type = await contentType(request, request.params.type);
      if (type.source !== 'custom')
        throw new AppError('builtin_type', `"${type.slug}" is built in; its fields cannot be changed.`);
      const values = { ...fieldRowValues(type.fields as FieldDefinition[]), name: type.name };
      return sendPage(reply, request.ui, `Edit type ${type.name}`, typeEditorView(request.ui, type, values, {}), {
        private: true,
      });
    },
  );

  app.post<WithType>(
    '/admin/content-types/:type',
    { schema: { params: TypeParams }, preHandler: ADMIN_FORM },
    async (request, reply) => {
      const type = await contentType(request, request.params.type);
      const { fields, values, errors } = readFieldRows(request);
      values.name = (field(request, 'name', 100) ?? '').trim();
      if (values.name === '') errors.name = 'Enter a name.';
      const again = (shown: FieldErrors, status: number) =>
        sendPage(reply, request.ui, `Edit type ${type.name}`, typeEditorView(request.ui, type, values, shown), {
          status,
          private: true,
        });
      if (Object.keys(errors).length > 0) return again(errors, 422);
      try {
        await updateType(db, request.ui.site.id, type.slug, { name: values.name, fields });
      } catch (error) {
        if (error instanceof AppError && error.status < 500) return again({ _form: error.message }, error.status);
        throw error;
      }
      return seeOther(reply, `/admin/content/${type.slug}`);
    },
  );

  app.get<WithType & { Querystring: Record<string, string> }>(
    '/admin/content/:type',
    { schema: { params: TypeParams }, preHandler: EDITOR_PAGE },
    async (request, reply) => {
      const type = await contentType(request, request.params.type);
      const status = ['published', 'draft'].includes(request.query.status ?? '') ? request.query.status! : 'any';
      const q = (request.query.q ?? '').slice(0, 200).trim();
      const page = pageNumber(request.query.page);
      const viewer = request.ui.viewer;
      requireMember(viewer);
      const columns = listColumns(type, await chosenColumns(db, viewer.member.id, type.slug));
      // Sorted by a listed column (or the update time), filtered by the type's enum, number, date and relation fields.
      const sortable = ['updated_at', ...columns.map((f) => f.name)];
      const asked = String(request.query.sort ?? '');
      const sort = sortable.includes(asked.replace(/^-/, '')) ? asked : '-updated_at';
      const filters: Record<string, string> = {};
      const conditions: Record<string, string> = {};
      const unmatched: string[] = [];
      for (const { field: f, inputs } of listFilters(type))
        for (const name of inputs) {
          const value = String(request.query[name] ?? '')
            .slice(0, 100)
            .trim();
          if (value === '') continue;
          filters[name] = value;
          if (f.type === 'relation') {
            // The related entries whose title holds the words; none found, the list is empty.
            const related = await contentType(request, (f.options as { type: string }).type);
            const found = await findRelated(request, related, value, RELATED_FILTER_MAX);
            if (found.length === 0) unmatched.push(f.name);
            else conditions[`filter[${f.name}][in]`] = found.map((entry) => entry.id).join(',');
            continue;
          }
          // A date filter covers whole days, read as UTC.
          conditions[name] =
            f.type === 'datetime' && /^\d{4}-\d{2}-\d{2}$/.test(value)
              ? `${value}${name.endsWith('[gte]') ? 'T00:00:00Z' : 'T23:59:59.999Z'}`
              : value;
        }
      const query = {
        status: status as 'any',
        ...(q ? { q } : {}),
        ...(type.source === 'forum' ? {} : { sort, ...conditions }),
      };
      const {
        rows,
        total,
        estimated = false,
      } = type.slug === 'posts' || unmatched.length > 0
        ? { rows: [], total: 0 }
        : await sourceFor(type.slug).list(editorContext(request), query, {
            page,
            pageSize: PAGE_SIZE,
            offset: (page - 1) * PAGE_SIZE,
          });
      const list = {
        type,
        entries: rows,
        status,
        q,
        sort,
        filters,
        page,
        pages: totalPages(total, PAGE_SIZE),
        total,
        estimated,
        columns,
        unmatched,
      };
      const done = BULK_DONE[String(request.query.done)];
      const count = Number(request.query.count) || 0;
      const flash = done
        ? { kind: 'ok' as const, text: `${count} entr${count === 1 ? 'y' : 'ies'} ${done}.` }
        : undefined;
      return sendPage(reply, request.ui, type.name, entryListView(request.ui, list, new Date(), flash), {
        private: true,
      });
    },
  );

  // The columns this editor wants on a type's list (`col_<field>=on`), or the default ones again.
  app.post<WithType>(
    '/admin/content/:type/columns',
    { schema: { params: TypeParams }, preHandler: EDITOR_FORM },
    async (request, reply) => {
      const type = await contentType(request, request.params.type);
      storedType(type);
      const viewer = request.ui.viewer;
      requireMember(viewer);
      const chosen =
        field(request, 'action', 10) === 'reset'
          ? undefined
          : columnChoices(type)
              .filter((f) => field(request, `col_${f.name}`, 3) === 'on')
              .map((f) => f.name)
              .slice(0, MAX_CHOSEN_COLUMNS);
      await chooseColumns(db, request.ui.site.id, viewer.member.id, type.slug, chosen);
      return seeOther(reply, `/admin/content/${type.slug}`);
    },
  );

  // Bulk actions on a list's selected entries (`pick_<id>=on`): publish, unpublish, delete after a
  // confirmation page. Each goes through the entry source with the entry's version, as one edit would.
  app.post<WithType>(
    '/admin/content/:type/bulk',
    { schema: { params: TypeParams }, preHandler: EDITOR_FORM },
    async (request, reply) => {
      const type = await contentType(request, request.params.type);
      storedType(type);
      const action = field(request, 'action', 10);
      if (action !== 'publish' && action !== 'unpublish' && action !== 'delete')
        throw new AppError('validation_failed', 'Choose publish, unpublish or delete.');
      const ids = Object.keys((request.body ?? {}) as Record<string, string>)
        .filter((name) => name.startsWith('pick_'))
        .map((name) => name.slice('pick_'.length))
        .slice(0, BULK_MAX);
      if (ids.length === 0) return seeOther(reply, `/admin/content/${type.slug}`);
      const source = sourceFor(type.slug);
      const ctx = editorContext(request);
      const read = await Promise.all(ids.map((id) => source.read(ctx, id, { status: 'any' })));
      if (action === 'delete' && field(request, 'confirm', 3) !== 'yes')
        return sendPage(
          reply,
          request.ui,
          `Delete ${type.name} entries`,
          bulkDeleteView(
            request.ui,
            type,
            read.map((r) => r.entry),
          ),
          { private: true },
        );
      for (const { entry, etag } of read) {
        if (action === 'delete') {
          await source.remove(ctx, entry.id, etag);
          continue;
        }
        const publish = action === 'publish';
        if ((entry.status === 'published') === publish) continue;
        await source.update(
          ctx,
          entry.id,
          {
            slug: entry.slug,
            status: publish ? 'published' : 'draft',
            published_at: null,
            data: entry.data as Record<string, unknown>,
          },
          etag,
        );
      }
      request.server.cms.webhooks.wake();
      const done = { publish: 'published', unpublish: 'unpublished', delete: 'deleted' }[action];
      return seeOther(reply, `/admin/content/${type.slug}?done=${done}&count=${read.length}`);
    },
  );

  app.get('/assets/cms-editor.js', async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('Cache-Control', 'public, max-age=3600').send(EDITOR_JS),
  );

  // The live preview of a Markdown field: the same renderer and sanitizer as the form's Preview.
  app.post('/admin/content/preview', { preHandler: EDITOR_FORM }, async (request, reply) => {
    const viewer = request.ui.viewer;
    requireMember(viewer);
    await consumeRateLimit(
      app.deps.cache.cache,
      `cms:preview:${request.ui.site.id}:${viewer.member.id}`,
      PREVIEWS_PER_MINUTE,
      60,
      'previews',
    );
    const body = field(request, 'body', MAX_MARKDOWN_PREVIEW);
    if (body === undefined) throw new AppError('payload_too_large', 'The text is over 100,000 characters.');
    return reply.header('Cache-Control', 'no-store').type('text/html; charset=utf-8').send(renderBody(body).html);
  });

  async function entryForm(
    request: FastifyRequest,
    type: ContentTypeOut,
    values: FormValues,
    queries?: Record<string, string>,
  ) {
    const { rows } = await listMedia(db, request.ui.site.id, { page: 1, pageSize: 100, offset: 0 });
    return {
      type,
      media: rows.map(presentMedia),
      relations: await relationPickers(request, type, values, queries),
      ai: await aiOffered(request),
    };
  }

  function storedType(type: ContentTypeOut): void {
    if (type.source === 'forum') throw new AppError('forbidden', 'Forum content is written in the forum itself.');
  }

  app.get<WithType>(
    '/admin/content/:type/new',
    { schema: { params: TypeParams }, preHandler: EDITOR_PAGE },
    async (request, reply) => {
      const type = await contentType(request, request.params.type);
      storedType(type);
      const values = { status: 'draft' };
      const form = await entryForm(request, type, values);
      return sendPage(
        reply,
        request.ui,
        `New ${type.name} entry`,
        entryFormView(request.ui, { ...form, values, errors: {} }),
        { private: true, head: EDITOR_HEAD },
      );
    },
  );

  app.get<WithEntry & { Querystring: { saved?: string; restored?: string } }>(
    '/admin/content/:type/:id',
    { schema: { params: EntryParams }, preHandler: EDITOR_PAGE },
    async (request, reply) => {
      const type = await contentType(request, request.params.type);
      storedType(type);
      const { entry, etag } = await sourceFor(type.slug).read(editorContext(request), request.params.id, {
        status: 'any',
      });
      const values = entryValues(type, entry, etag ?? '');
      const form = await entryForm(request, type, values);
      return sendPage(
        reply,
        request.ui,
        `Edit ${type.name} entry`,
        entryFormView(request.ui, {
          ...form,
          entry,
          values,
          errors: {},
          flash: request.query.saved
            ? { kind: 'ok', text: 'Saved.' }
            : /^\d{1,10}$/.test(request.query.restored ?? '')
              ? { kind: 'ok', text: `Restored revision ${request.query.restored} as a new revision.` }
              : undefined,
        }),
        { private: true, head: EDITOR_HEAD },
      );
    },
  );

  async function postEntry(request: FastifyRequest, reply: FastifyReply, slug: string, id: string | undefined) {
    const type = await contentType(request, slug);
    storedType(type);
    const { values, errors, input } = readEntry(request, type);
    const entry = id
      ? (await sourceFor(type.slug).read(editorContext(request), id, { status: 'any' })).entry
      : undefined;
    const action = field(request, 'action', 10);
    // A relation's Search (also what Enter in a box above it presses) searches every relation whose
    // search box is filled, and shows the form again.
    const searching = action === 'find';
    const queries: Record<string, string> = {};
    if (searching)
      for (const f of type.fields)
        if (f.type === 'relation') queries[f.name] = (field(request, `find_${f.name}`, 200) ?? '').trim();
    const form = await entryForm(request, type, values, queries);
    const title = entry ? `Edit ${type.name} entry` : `New ${type.name} entry`;
    const show = (shown: FieldErrors, status: number, preview?: Record<string, string>, flash?: Flash) =>
      sendPage(
        reply,
        request.ui,
        title,
        entryFormView(request.ui, { ...form, entry, values, errors: shown, preview, flash }),
        { status, private: true, head: EDITOR_HEAD },
      );
    if (searching) return show(errors, 200);
    if (action === 'ai') {
      values.ai_prompt = (field(request, 'ai_prompt', MAX_AI_PROMPT) ?? '').trim();
      if (values.ai_prompt === '') return show({ ai_prompt: 'Describe the entry to draft.' }, 422);
      try {
        const drafted = await aiDraft(request, type, values.ai_prompt, entry?.id);
        Object.assign(values, drafted);
        const n = Object.keys(drafted).length;
        return show({}, 200, undefined, {
          kind: 'ok',
          text: `AI filled ${n} field${n === 1 ? '' : 's'}. Review ${n === 1 ? 'it' : 'them'}, then Save: nothing is saved yet.`,
        });
      } catch (error) {
        // The provider's failures (502, 504) too: the form and what was typed stay.
        if (error instanceof AppError) return show({ ai_prompt: error.message }, error.status);
        throw error;
      }
    }
    if (action === 'preview') {
      const preview: Record<string, string> = {};
      for (const f of type.fields)
        if (f.type === 'markdown' && typeof input.data[f.name] === 'string')
          preview[f.name] = renderBody(input.data[f.name] as string).html;
      return show(errors, 200, preview);
    }
    if (Object.keys(errors).length > 0) return show(errors, 422);
    try {
      const source = sourceFor(type.slug);
      const saved = id
        ? await source.update(editorContext(request), id, input, values.version || undefined)
        : await source.create(editorContext(request), input);
      request.server.cms.webhooks.wake();
      return seeOther(reply, `/admin/content/${type.slug}/${saved.entry.id}?saved=1`);
    } catch (error) {
      const shown = entryErrors(error);
      if (shown) return show(shown, (error as AppError).status);
      throw error;
    }
  }

  app.post<WithType>(
    '/admin/content/:type/new',
    { schema: { params: TypeParams }, preHandler: EDITOR_FORM },
    async (request, reply) => postEntry(request, reply, request.params.type, undefined),
  );
  app.post<WithEntry>(
    '/admin/content/:type/:id',
    { schema: { params: EntryParams }, preHandler: EDITOR_FORM },
    async (request, reply) => postEntry(request, reply, request.params.type, request.params.id),
  );

  /** The stored type a history or preview route names; 404 for forum types and unknown ones. */
  async function storedTypeRow(request: FastifyRequest, slug: string) {
    const row = await findStoredType(db, request.ui.site.id, slug);
    if (!row) throw new AppError('content_type_not_found', `No content type "${slug}" keeps revisions.`);
    return row;
  }

  async function historyPage(
    request: FastifyRequest<WithEntry & { Querystring: { page?: string } }>,
    reply: FastifyReply,
    flash?: Flash,
    status = 200,
  ) {
    const typeRow = await storedTypeRow(request, request.params.type);
    const type = presentType(typeRow);
    const { entry, etag = '' } = await sourceFor(type.slug).read(editorContext(request), request.params.id, {
      status: 'any',
    });
    const page = pageNumber(request.query.page);
    const { revisions, total } = await listRevisions(db, entry, {
      page,
      pageSize: PAGE_SIZE,
      offset: (page - 1) * PAGE_SIZE,
    });
    const shown: ShownRevision[] = revisions.map(({ row, before }) => ({
      version: row.version,
      author: row.authorName,
      at: row.createdAt,
      restoredFrom: row.restoredFrom,
      changes: before
        ? changedParts(typeRow.fields, row, before).map((name) => ({
            label: partLabel(name),
            before: shownValue(revisionValue(before, name)),
            after: shownValue(revisionValue(row, name)),
          }))
        : undefined,
    }));
    const label = entryLabel(type, entry);
    const current = Number(/\.(\d+)"$/.exec(etag)?.[1] ?? 0);
    return sendPage(
      reply,
      request.ui,
      `History of ${label}`,
      revisionsView(
        request.ui,
        { type, entry, label, revisions: shown, current, etag, page, pages: totalPages(total, PAGE_SIZE) },
        flash,
      ),
      { status, private: true },
    );
  }

  app.get<WithEntry & { Querystring: { page?: string } }>(
    '/admin/content/:type/:id/revisions',
    { schema: { params: EntryParams }, preHandler: EDITOR_PAGE },
    async (request, reply) => historyPage(request, reply),
  );

  // A restore saves the revision's values as a new revision, if the entry is still as the page showed it.
  app.post<WithEntry & { Params: { version: string }; Querystring: { page?: string } }>(
    '/admin/content/:type/:id/revisions/:version/restore',
    { schema: { params: RevisionParams }, preHandler: EDITOR_FORM },
    async (request, reply) => {
      const typeRow = await storedTypeRow(request, request.params.type);
      const ctx = editorContext(request);
      const { entry } = await sourceFor(typeRow.slug).read(ctx, request.params.id, { status: 'any' });
      const version = Number(request.params.version);
      try {
        await restoreRevision(
          db,
          typeRow,
          entry,
          version,
          { ifMatch: field(request, 'version', 200) || undefined },
          relationLookup(ctx),
          { author: authorOf(ctx.caller) },
        );
      } catch (error) {
        if (!(error instanceof AppError) || error.status >= 500) throw error;
        const text =
          error.code === 'precondition_failed'
            ? 'Someone saved this entry since the history was shown; look at their change, then restore again.'
            : error.message;
        return historyPage(request, reply, { kind: 'error', text }, error.status);
      }
      request.server.cms.webhooks.wake();
      return seeOther(reply, `/admin/content/${typeRow.slug}/${entry.id}?restored=${version}`);
    },
  );

  // A signed, expiring link to the entry's read-only preview (decision 0139).
  app.post<WithEntry>(
    '/admin/content/:type/:id/share',
    { schema: { params: EntryParams }, preHandler: EDITOR_FORM },
    async (request, reply) => {
      const typeRow = await storedTypeRow(request, request.params.type);
      const type = presentType(typeRow);
      const { entry } = await sourceFor(type.slug).read(editorContext(request), request.params.id, { status: 'any' });
      const asked = Number(field(request, 'hours', 4));
      const hours = (PREVIEW_LIFETIMES as readonly number[]).includes(asked) ? asked : DEFAULT_PREVIEW_HOURS;
      const expiresAt = new Date(Date.now() + hours * 3600_000);
      const path = previewPath(app.deps.config.secretKey, request.ui.site.id, type.slug, entry.id, expiresAt);
      const url = `${request.protocol}://${request.host}${path}`;
      const label = entryLabel(type, entry);
      return sendPage(
        reply,
        request.ui,
        `Preview link for ${label}`,
        shareView(request.ui, type, entry, label, { url, expiresAt }),
        { private: true },
      );
    },
  );

  // What a preview link opens, without signing in: the entry as it is now, read-only, out of search engines.
  app.get<WithEntry & { Querystring: { expires?: string; sig?: string } }>(
    '/preview/:type/:id',
    { schema: { params: EntryParams }, preHandler: loadUi },
    async (request, reply) => {
      reply.header('X-Robots-Tag', 'noindex, nofollow');
      const { type: slug, id } = request.params;
      const holds = previewLinkHolds(app.deps.config.secretKey, request.ui.site.id, {
        type: slug,
        entryId: id,
        expires: String(request.query.expires ?? ''),
        sig: String(request.query.sig ?? '').slice(0, 100),
      });
      if (!holds)
        throw new AppError('draft_preview_invalid', 'This preview link is wrong or has expired; ask for a new one.');
      const typeRow = await findStoredType(db, request.ui.site.id, slug);
      if (!typeRow) throw new AppError('draft_preview_invalid', 'The entry of this preview link is gone.');
      let row;
      try {
        row = await findEntry(db, typeRow, id, 'any');
      } catch (error) {
        if (error instanceof AppError && error.code === 'entry_not_found')
          throw new AppError('draft_preview_invalid', 'The entry of this preview link is gone.');
        throw error;
      }
      const type = presentType(typeRow);
      const entry = presentEntry(typeRow, row);
      const label = entryLabel(type, entry);
      return sendPage(
        reply,
        request.ui,
        `Preview: ${label}`,
        previewView(type, entry, label, new Date(Number(request.query.expires) * 1000)),
        { private: true, head: PREVIEW_HEAD },
      );
    },
  );

  const MEDIA_PAGE_SIZE = 48;

  async function mediaPage(
    request: FastifyRequest,
    reply: FastifyReply,
    shown: { q?: string; page?: number; error?: string; status?: number; flash?: Flash } = {},
  ) {
    const q = (shown.q ?? '').slice(0, 200).trim();
    const page = shown.page ?? 1;
    const { rows, total } = await listMedia(
      db,
      request.ui.site.id,
      { page, pageSize: MEDIA_PAGE_SIZE, offset: (page - 1) * MEDIA_PAGE_SIZE },
      q,
    );
    const library = {
      media: rows.map(presentMedia),
      q,
      total,
      page,
      pages: totalPages(total, MEDIA_PAGE_SIZE),
      error: shown.error,
    };
    return sendPage(reply, request.ui, 'Media library', mediaView(request.ui, library, shown.flash), {
      status: shown.status ?? 200,
      private: true,
    });
  }

  app.get<{ Querystring: Record<string, string> }>(
    '/admin/media',
    { preHandler: EDITOR_PAGE },
    async (request, reply) => {
      const { q, page, done } = request.query;
      const flash =
        done === 'alt'
          ? { kind: 'ok' as const, text: 'Alt text saved.' }
          : done === 'deleted'
            ? { kind: 'ok' as const, text: 'Deleted.' }
            : undefined;
      return mediaPage(request, reply, { q: String(q ?? ''), page: pageNumber(page), flash });
    },
  );

  // Multipart: the CSRF token is the form's first field, the alt text the second, read before the
  // file. The Markdown editor's script posts here too, asking for JSON: it gets the media's
  // description (201) or a problem.
  app.post('/admin/media', { preHandler: [loadUi, editorOnly] }, async (request, reply) => {
    const json = request.headers.accept === 'application/json';
    const part = await request.file({ limits: { fileSize: MAX_MEDIA_BYTES } });
    const fields = (part?.fields ?? {}) as Record<string, { value?: unknown } | undefined>;
    const text = (name: string) => {
      const value = fields[name]?.value;
      return typeof value === 'string' ? value : undefined;
    };
    verifyCsrf(request, request.ui.site.id, request.ui.sessionId, text('_csrf'));
    const refuse = (error: AppError) =>
      json ? sendProblem(reply, error) : mediaPage(request, reply, { error: error.message, status: error.status });
    if (!part || part.fieldname !== 'file' || part.filename === '') {
      part?.file.resume();
      return refuse(new AppError('media_missing', 'Choose a file to upload.'));
    }
    let row: MediaRow;
    try {
      const bytes = await part.toBuffer();
      row = await storeMedia(
        db,
        app.deps.blobs,
        request.ui.site.id,
        { filename: part.filename, declaredType: part.mimetype, bytes },
        text('alt') ?? '',
      );
    } catch (error) {
      if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE')
        return refuse(new AppError('media_too_large', 'The file is over 10 MiB.', { max_bytes: MAX_MEDIA_BYTES }));
      if (error instanceof AppError && error.status < 500) return refuse(error);
      throw error;
    }
    if (json) return reply.code(201).header('Cache-Control', 'no-store').send(presentMedia(row));
    return seeOther(reply, `/admin/media#media-${row.id}`);
  });

  app.post<WithMedia>(
    '/admin/media/:id/alt',
    { schema: { params: MediaParams }, preHandler: EDITOR_FORM },
    async (request, reply) => {
      const alt = field(request, 'alt', 1000) ?? '';
      await updateMediaAlt(db, request.ui.site.id, request.params.id, alt);
      return seeOther(reply, `/admin/media?done=alt#media-${request.params.id}`);
    },
  );

  /** The entries that use an upload, named by their titles and linked to their forms. */
  async function mediaUsers(request: FastifyRequest, row: MediaRow): Promise<MediaUser[]> {
    const uses = await mediaUses(db, row);
    const types = new Map<string, ContentTypeOut>();
    for (const slug of new Set(uses.map((use) => use.typeSlug))) types.set(slug, await contentType(request, slug));
    return uses.map((use) => {
      const type = types.get(use.typeSlug)!;
      return { href: `/admin/content/${type.slug}/${use.id}`, label: entryLabel(type, use), typeName: type.name };
    });
  }

  async function deletePage(request: FastifyRequest<WithMedia>, reply: FastifyReply, status = 200) {
    const row = await findMedia(db, request.ui.site.id, request.params.id);
    const users = await mediaUsers(request, row);
    return sendPage(
      reply,
      request.ui,
      `Delete ${row.filename}`,
      mediaDeleteView(request.ui, presentMedia(row), users),
      { status, private: true },
    );
  }

  app.get<WithMedia>(
    '/admin/media/:id/delete',
    { schema: { params: MediaParams }, preHandler: EDITOR_PAGE },
    async (request, reply) => deletePage(request, reply),
  );

  app.post<WithMedia>(
    '/admin/media/:id/delete',
    { schema: { params: MediaParams }, preHandler: EDITOR_FORM },
    async (request, reply) => {
      try {
        await deleteMedia(db, app.deps.blobs, request.ui.site.id, request.params.id);
      } catch (error) {
        // An entry took it up since the page asked: the page again, naming it.
        if (error instanceof AppError && error.code === 'media_in_use') return deletePage(request, reply, 409);
        throw error;
      }
      return seeOther(reply, '/admin/media?done=deleted');
    },
  );
}
