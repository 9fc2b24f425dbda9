// Pages of the CMS editor in the community admin area: content types, entry lists with filters, the
// entry form generated from a type's fields (with Markdown preview and a media picker), the
// content-type editor and the media library. Server-rendered without script, like the forum UI.
import { adminFrame, type Flash } from '../../forum/ui/admin/views.js';
import { checkbox, selectField, textArea, textField } from '../../forum/ui/admin/fields.js';
import type { UiContext } from '../../forum/ui/context.js';
import { html, trustedHtml, type SafeHtml } from '../../lib/html.js';
import { csrfField, pager, postButton, time } from '../../forum/ui/layout.js';
import type { EditorView } from '../editors.js';
import { FIELD_TYPES, type FieldDefinition } from '../fields.js';
import type { ContentTypeOut, EntryOut, MediaOut } from '../schemas.js';
import { entryLabel, humanName, stateOf } from './labels.js';
import { sharePanel } from './revision-views.js';

/** Problems of a submitted form by field name; `_form` for the form as a whole. */
export type FieldErrors = Partial<Record<string, string>>;
/** A form as typed: raw strings by input name. */
export type FormValues = Record<string, string>;

interface TypeSummary {
  slug: string;
  name: string;
  source: ContentTypeOut['source'];
  fields: number;
}

/**
 * The content page: the types to write entries of, and for admins (`model` given) the type editor's
 * entry points, a new type's form and the content editors.
 */
export function typesView(
  ui: UiContext,
  types: TypeSummary[],
  model?: { create: { values: FormValues; errors: FieldErrors }; editors: EditorView[]; editorError?: string },
  flash?: Flash,
): SafeHtml {
  return adminFrame(
    ui,
    'content',
    'Content',
    html`<p class="actions"><a href="/admin/media">Media library</a></p>
<table class="list"><caption class="sr-only">Content types</caption><thead><tr><th scope="col">Type</th><th scope="col">Fields</th><th scope="col">Kind</th>${model ? html`<th scope="col"><span class="sr-only">Actions</span></th>` : ''}</tr></thead><tbody>${types.map(
      (t) =>
        html`<tr><td><a href="/admin/content/${t.slug}">${t.name}</a> <span class="muted">${t.slug}</span></td><td>${t.fields}</td><td>${t.source === 'forum' ? 'Forum view' : t.source === 'builtin' ? 'Built-in' : 'Custom'}</td>${
          model
            ? html`<td>${t.source === 'custom' ? html`<a href="/admin/content-types/${t.slug}">Edit type<span class="sr-only"> ${t.name}</span></a>` : ''}</td>`
            : ''
        }</tr>`,
    )}</tbody></table>
${model ? modelSections(ui, model) : ''}`,
    flash,
  );
}

function modelSections(
  ui: UiContext,
  model: { create: { values: FormValues; errors: FieldErrors }; editors: EditorView[]; editorError?: string },
): SafeHtml {
  const { create, editors } = model;
  return html`<section class="panel" aria-labelledby="new-type-heading"><h2 id="new-type-heading">New content type</h2>
<form method="post" action="/admin/content-types" class="stack">${csrfField(ui)}
${create.errors._form ? html`<p class="field-error" role="alert">${create.errors._form}</p>` : ''}
${textField('name', 'Name', create.values.name ?? '', 'text', { id: 'type-name', required: true, maxlength: 100, error: create.errors.name })}
${textField('slug', 'Slug', create.values.slug ?? '', 'text', { id: 'type-slug', required: true, maxlength: 63, pattern: '^[a-z][a-z0-9\\-]{0,62}$', hint: 'Lower-case letters, digits and hyphens, starting with a letter; the API path /entries/{slug}.', error: create.errors.slug })}
${fieldRows(create.values, create.errors)}
<div class="actions"><button type="submit">Create type</button></div></form></section>
<section class="panel" aria-labelledby="editors-heading"><h2 id="editors-heading">Content editors</h2>
<p class="hint">Editors write, publish and delete entries and upload media here; the content types, the forum and the rest of the admin area stay with admins.</p>
${
  editors.length === 0
    ? html`<p class="muted">No content editors yet.</p>`
    : html`<ul class="plain">${editors.map((e) => html`<li><a href="/u/${e.username}">${e.username}</a> <span class="muted">since ${time(e.since)}</span> ${postButton(ui, `/admin/content-editors/${e.memberId}/remove`, `Remove ${e.username}`)}</li>`)}</ul>`
}
<form method="post" action="/admin/content-editors" class="stack">${csrfField(ui)}
${textField('username', 'Username of the member', '', 'text', { id: 'editor-username', required: true, maxlength: 60, error: model.editorError })}
<div class="actions"><button type="submit">Make content editor</button></div></form></section>`;
}

export const BLANK_ROWS = 3;

/** The rules of a field typed as numbers: lengths of text and Markdown, bounds of numbers. */
export const RULE_INPUTS = ['min_length', 'max_length', 'min', 'max'] as const;

const RULE_LABELS: Record<(typeof RULE_INPUTS)[number], string> = {
  min_length: 'shortest length (text)',
  max_length: 'longest length (text)',
  min: 'smallest number',
  max: 'largest number',
};
const RULE_NAMES = ['values', 'relation', ...RULE_INPUTS];

/** The rows of the field editor: one per field, then blank rows to add fields. */
export function fieldRowValues(fields: readonly FieldDefinition[]): FormValues {
  const values: FormValues = { rows: String(fields.length + BLANK_ROWS) };
  fields.forEach((field, i) => {
    values[`f${i}_name`] = field.name;
    values[`f${i}_type`] = field.type;
    if (field.required) values[`f${i}_required`] = 'on';
    if (field.unique) values[`f${i}_unique`] = 'on';
    const options = field.options ?? {};
    if (options.values) values[`f${i}_values`] = options.values.join('\n');
    for (const rule of RULE_INPUTS) if (options[rule] !== undefined) values[`f${i}_${rule}`] = String(options[rule]);
    if (options.integer) values[`f${i}_integer`] = 'on';
    if (options.type) values[`f${i}_relation`] = options.type;
  });
  return values;
}

function fieldRows(values: FormValues, errors: FieldErrors): SafeHtml {
  const rows = Math.min(Number(values.rows ?? BLANK_ROWS) || BLANK_ROWS, 100);
  return html`<fieldset><legend>Fields</legend><p class="hint">Clear a name to remove the field (its values stay stored and come back if the field does). Each field's choices and rules apply to its type: choices to an enum, lengths to text and Markdown, bounds to numbers, the related type to a relation.</p>
<input type="hidden" name="rows" value="${rows}">
${Array.from({ length: rows }, (_, i) => {
  const p = `f${i}`;
  return html`<div class="field-row" role="group" aria-label="Field ${i + 1}">
${textField(`${p}_name`, `Field ${i + 1} name`, values[`${p}_name`] ?? '', 'text', { maxlength: 40, error: errors[`${p}_name`] })}
${selectField(
  `${p}_type`,
  `Field ${i + 1} type`,
  values[`${p}_type`] ?? 'text',
  FIELD_TYPES.map((t) => [t, t] as const),
)}
${checkbox(`${p}_required`, 'Required', values[`${p}_required`] === 'on', { id: `${p}_required` })}
${checkbox(`${p}_unique`, 'Unique', values[`${p}_unique`] === 'on', { id: `${p}_unique` })}
<details class="field-rules"${Object.keys(values).some((k) => k.startsWith(`${p}_`) && /_(values|min_length|max_length|min|max|relation)$/.test(k) && values[k] !== '') || RULE_NAMES.some((r) => errors[`${p}_${r}`]) ? html` open` : ''}><summary>Field ${i + 1} choices and rules</summary>
${textArea(`${p}_values`, `Field ${i + 1} choices (enum), one per line`, values[`${p}_values`] ?? '', { id: `${p}_values`, error: errors[`${p}_values`] })}
<div class="rule-row">${RULE_INPUTS.map((rule) => textField(`${p}_${rule}`, `Field ${i + 1} ${RULE_LABELS[rule]}`, values[`${p}_${rule}`] ?? '', 'number', { id: `${p}_${rule}`, error: errors[`${p}_${rule}`] }))}</div>
${checkbox(`${p}_integer`, 'Whole numbers only (number)', values[`${p}_integer`] === 'on', { id: `${p}_integer` })}
${textField(`${p}_relation`, `Field ${i + 1} related type (relation), its slug`, values[`${p}_relation`] ?? '', 'text', { id: `${p}_relation`, maxlength: 63, error: errors[`${p}_relation`] })}
</details>
</div>`;
})}</fieldset>`;
}

export function typeEditorView(ui: UiContext, type: ContentTypeOut, values: FormValues, errors: FieldErrors): SafeHtml {
  return adminFrame(
    ui,
    'content',
    `Edit type: ${type.name}`,
    html`<p class="crumbs"><a href="/admin/content">Content</a> › <a href="/admin/content/${type.slug}">${type.name}</a></p>
${type.removed_fields.length > 0 ? html`<p class="muted">Removed fields whose values are kept: ${type.removed_fields.map((f) => f.name).join(', ')}.</p>` : ''}
<form method="post" action="/admin/content-types/${type.slug}" class="stack wide">${csrfField(ui)}
${errors._form ? html`<p class="field-error" role="alert">${errors._form}</p>` : ''}
${textField('name', 'Name', values.name ?? '', 'text', { id: 'type-name', required: true, maxlength: 100, error: errors.name })}
${fieldRows(values, errors)}
<div class="actions"><button type="submit">Save type</button><a href="/admin/content/${type.slug}">Cancel</a></div></form>`,
  );
}

interface EntryListPage {
  type: ContentTypeOut;
  entries: EntryOut[];
  status: string;
  q: string;
  /** The list's order as the API takes it, e.g. `-updated_at` or `price`. */
  sort: string;
  /** The filters as typed, by input name (`filter[kind][eq]`...). */
  filters: Record<string, string>;
  page: number;
  pages: number;
  total: number;
  /** The total is the planner's estimate (a long list). */
  estimated: boolean;
  /** The fields shown as columns (listColumns). */
  columns: Field[];
  /** A relation filter found no entry with those words in its title, by field. */
  unmatched: string[];
}

/** Field types shown as list columns, sorted by and (but text) filtered. */
const LISTED_TYPES = new Set(['text', 'slug', 'number', 'boolean', 'datetime', 'enum']);
/** Longest text field (its `max_length`) shown as a column: names and labels, not excerpts. */
const MAX_TEXT_COLUMN = 100;
/** Columns beside the entry's own: the type's first listable fields after its title. */
const MAX_FIELD_COLUMNS = 3;

type Field = ContentTypeOut['fields'][number];

/** The title field of a type: its first text or slug field (the entry's own column). */
const titleField = (type: ContentTypeOut): Field | undefined =>
  type.fields.find((f) => f.type === 'text' || f.type === 'slug');

/** The fields an editor may choose as a list's columns (stored types only; forum views keep their own). */
export function columnChoices(type: ContentTypeOut): Field[] {
  if (type.source === 'forum') return [];
  const title = titleField(type);
  return type.fields.filter((f) => f !== title && LISTED_TYPES.has(f.type));
}

/** Columns an editor may choose for one list. */
export const MAX_CHOSEN_COLUMNS = 6;

/**
 * The fields an entry list shows as columns: the ones the editor chose (in their order), else the
 * type's first short listable fields after its title.
 */
export function listColumns(type: ContentTypeOut, chosen?: readonly string[]): Field[] {
  const choices = columnChoices(type);
  if (chosen)
    return chosen
      .map((name) => choices.find((f) => f.name === name))
      .filter((f): f is Field => f !== undefined)
      .slice(0, MAX_CHOSEN_COLUMNS);
  const short = (f: Field) =>
    (f.type !== 'text' && f.type !== 'slug') ||
    ((f.options as { max_length?: number }).max_length ?? 255) <= MAX_TEXT_COLUMN;
  return choices.filter(short).slice(0, MAX_FIELD_COLUMNS);
}

/**
 * The filter inputs of a type's list, by field: enum (one value), number and date (from, to), and a
 * relation by words of the related entries' titles (`related[<field>]`, which the list turns into
 * the ids of the entries found).
 */
export function listFilters(type: ContentTypeOut): Array<{ field: Field; inputs: string[] }> {
  if (type.source === 'forum') return [];
  return type.fields.flatMap((field) => {
    if (field.type === 'enum') return [{ field, inputs: [`filter[${field.name}][eq]`] }];
    if (field.type === 'number' || field.type === 'datetime')
      return [{ field, inputs: [`filter[${field.name}][gte]`, `filter[${field.name}][lte]`] }];
    if (field.type === 'relation') return [{ field, inputs: [`related[${field.name}]`] }];
    return [];
  });
}

function cell(field: Field, entry: EntryOut): SafeHtml | string {
  const value = (entry.data as Record<string, unknown>)[field.name];
  if (value === undefined || value === null || value === '') return '';
  if (field.type === 'boolean') return value ? 'Yes' : 'No';
  if (field.type === 'datetime') return time(new Date(String(value)));
  if (field.type === 'enum') return humanName(String(value));
  return String(value as string | number);
}

function filterControls(list: EntryListPage): SafeHtml {
  return html`${listFilters(list.type).map(({ field, inputs }) => {
    const label = humanName(field.name);
    const id = `filter-${field.name}`;
    if (field.type === 'enum') {
      const values = (field.options as { values?: string[] }).values ?? [];
      return selectField(
        inputs[0]!,
        label,
        list.filters[inputs[0]!] ?? '',
        [['', 'Any'], ...values.map((v) => [v, humanName(v)] as const)],
        { id },
      );
    }
    if (field.type === 'relation')
      return textField(inputs[0]!, `${label} (title has)`, list.filters[inputs[0]!] ?? '', 'search', {
        id,
        maxlength: 100,
      });
    const kind = field.type === 'number' ? 'number' : 'date';
    return html`<fieldset class="range"><legend>${label}</legend>${inputs.map(
      (name, i) =>
        html`<div><label for="${id}-${i}">${i === 0 ? 'From' : 'To'}</label><input type="${kind}" id="${id}-${i}" name="${name}" value="${list.filters[name] ?? ''}"${kind === 'number' ? html` step="any"` : ''}></div>`,
    )}</fieldset>`;
  })}`;
}

export function entryListView(ui: UiContext, list: EntryListPage, now: Date, flash?: Flash): SafeHtml {
  const { type } = list;
  const editable = type.source !== 'forum';
  const columns = list.columns;
  const params = (change: Record<string, string>) =>
    new URLSearchParams({ status: list.status, q: list.q, sort: list.sort, ...list.filters, ...change }).toString();
  const query = (page: number) => `/admin/content/${type.slug}?${params({ page: String(page) })}`;
  /** A column heading that sorts by it: ascending first, descending when it already sorts ascending. */
  const sortable = (name: string, label: string) => {
    const current = list.sort === name ? 'ascending' : list.sort === `-${name}` ? 'descending' : undefined;
    const next = current === 'ascending' ? `-${name}` : name;
    return html`<th scope="col"${current ? html` aria-sort="${current}"` : ''}><a href="/admin/content/${type.slug}?${params({ sort: next, page: '1' })}">${label}<span class="sr-only"> (sort ${next.startsWith('-') ? 'descending' : 'ascending'})</span></a>${current ? html` <span aria-hidden="true">${current === 'ascending' ? '▲' : '▼'}</span>` : ''}</th>`;
  };
  return adminFrame(
    ui,
    'content',
    type.name,
    html`<p class="crumbs"><a href="/admin/content">Content</a></p>
<div class="toolbar">${editable ? html`<a class="button" href="/admin/content/${type.slug}/new">New entry</a>` : html`<p class="muted">Forum content is written in the forum and its admin area; here it is listed as the Content API serves it.</p>`}</div>
<form method="get" action="/admin/content/${type.slug}" class="filters" role="search" aria-label="Filter ${type.name}">
<input type="hidden" name="sort" value="${list.sort}">
${selectField(
  'status',
  'Status',
  list.status,
  [
    ['any', 'All'],
    ['published', 'Published (live)'],
    ['draft', 'Drafts and scheduled'],
  ],
  { id: 'filter-status' },
)}
${textField('q', 'Search', list.q, 'search', { id: 'filter-q', maxlength: 200 })}
${filterControls(list)}
<div class="actions"><button type="submit" class="secondary">Filter</button></div></form>
${columnChooser(ui, type, columns)}
${list.unmatched.map((name) => html`<p class="muted" role="status">No ${humanName(name)} entry has "${list.filters[`related[${name}]`] ?? ''}" in its title.</p>`)}
<p class="muted">${list.estimated ? 'About ' : ''}${list.total} entr${list.total === 1 ? 'y' : 'ies'}</p>
${editable ? html`<form method="post" action="/admin/content/${type.slug}/bulk" id="bulk">${csrfField(ui)}<div class="actions bulk" role="group" aria-label="With the selected entries"><button type="submit" name="action" value="publish" class="secondary">Publish</button><button type="submit" name="action" value="unpublish" class="secondary">Unpublish</button><button type="submit" name="action" value="delete" class="secondary danger">Delete…</button></div></form>` : ''}
<div class="table-scroll"><table class="list"><caption class="sr-only">${type.name} entries</caption><thead><tr>${editable ? html`<th scope="col"><span class="sr-only">Selected</span></th>` : ''}<th scope="col">Entry</th>${columns.map((f) => sortable(f.name, humanName(f.name)))}<th scope="col">State</th>${editable ? sortable('updated_at', 'Updated') : html`<th scope="col">Updated</th>`}</tr></thead><tbody>${list.entries.map(
      (entry) =>
        html`<tr>${editable ? html`<td><input type="checkbox" form="bulk" name="pick_${entry.id}" id="pick-${entry.id}" aria-label="Select ${entryLabel(type, entry)}"></td>` : ''}<td>${editable ? html`<a href="/admin/content/${type.slug}/${entry.id}">${entryLabel(type, entry)}</a>` : entryLabel(type, entry)}</td>${columns.map((f) => html`<td>${cell(f, entry)}</td>`)}<td><span class="badge">${stateOf(entry, now)}</span></td><td>${time(new Date(entry.updated_at))}</td></tr>`,
    )}</tbody></table></div>
${pager(list.page, list.pages, query)}`,
    flash,
  );
}

/** The columns of a type's list as this editor chose them: a checkbox per field that can be one. */
function columnChooser(ui: UiContext, type: ContentTypeOut, columns: Field[]): SafeHtml | string {
  const choices = columnChoices(type);
  if (choices.length === 0) return '';
  return html`<details class="columns"><summary>Columns</summary>
<form method="post" action="/admin/content/${type.slug}/columns">${csrfField(ui)}<fieldset><legend>Columns shown (at most ${MAX_CHOSEN_COLUMNS})</legend>
${choices.map((f) => checkbox(`col_${f.name}`, humanName(f.name), columns.includes(f), { id: `col-${f.name}` }))}</fieldset>
<div class="actions"><button type="submit" name="action" value="save" class="secondary">Save columns</button><button type="submit" name="action" value="reset" class="secondary">Default columns</button></div></form></details>`;
}

/** Asks before deleting the selected entries; the form posts them again with `confirm=yes`. */
export function bulkDeleteView(ui: UiContext, type: ContentTypeOut, entries: EntryOut[]): SafeHtml {
  return adminFrame(
    ui,
    'content',
    `Delete ${entries.length} ${type.name} entr${entries.length === 1 ? 'y' : 'ies'}?`,
    html`<p class="crumbs"><a href="/admin/content">Content</a> › <a href="/admin/content/${type.slug}">${type.name}</a></p>
<p>These entries are deleted for good; the Content API stops serving them at once.</p>
<ul>${entries.map((entry) => html`<li>${entryLabel(type, entry)} <span class="muted">${entry.id}</span></li>`)}</ul>
<form method="post" action="/admin/content/${type.slug}/bulk">${csrfField(ui)}
<input type="hidden" name="action" value="delete"><input type="hidden" name="confirm" value="yes">
${entries.map((entry) => html`<input type="hidden" name="pick_${entry.id}" value="on">`)}
<div class="actions"><button type="submit" class="danger">Delete</button><a href="/admin/content/${type.slug}">Cancel</a></div></form>`,
  );
}

/** An entry a relation field can point to, as the picker names it. */
export interface RelationChoice {
  id: string;
  label: string;
  /** The entry's state when it is not live, e.g. "Draft". */
  state?: string | undefined;
}

/** What a relation field's picker shows: the chosen entry by its title, and the answers to a search. */
export interface RelationPicker {
  /** The related type's name. */
  typeName: string;
  /** The search as typed; empty when none was asked. */
  query: string;
  /** The chosen entry; `label` is the id itself when no such entry is found. */
  selected?: (RelationChoice & { missing?: boolean }) | undefined;
  /** Entries whose title matched the search, the chosen one left out; undefined when none was asked. */
  results?: RelationChoice[] | undefined;
}

interface EntryFormPage {
  type: ContentTypeOut;
  /** Undefined for a new entry. */
  entry?: EntryOut | undefined;
  values: FormValues;
  errors: FieldErrors;
  media: MediaOut[];
  /** The picker of each relation field, by field name. */
  relations: Record<string, RelationPicker>;
  /** Rendered Markdown of a preview round trip, by field. */
  preview?: Record<string, string> | undefined;
  flash?: Flash | undefined;
  /** Whether the site drafts with AI: the form then has a prompt box. */
  ai?: boolean | undefined;
}

/** The prompt box of AI drafting: it posts the form back (`action=ai`), or the script fills the fields in place. */
function aiPanel(type: ContentTypeOut, entry: EntryOut | undefined, values: FormValues, errors: FieldErrors): SafeHtml {
  return html`<fieldset class="ai-draft" data-ai-draft="/admin/content/${type.slug}/ai-draft"${entry ? html` data-entry="${entry.id}"` : ''}><legend>Draft with AI</legend>
${textArea('ai_prompt', 'What should the entry say?', values.ai_prompt ?? '', { id: 'ai-prompt', hint: 'The AI fills the text, number, date and choice fields from this; you review them, then Save.', error: errors.ai_prompt })}
<div class="actions"><button type="submit" name="action" value="ai" class="secondary" data-ai-button>Draft with AI</button></div>
<p class="hint" data-ai-status role="status" aria-live="polite"></p></fieldset>`;
}

/**
 * A media field: a select of the library's uploads (what works without script) and the chosen
 * image's thumbnail. The script adds "Choose from the library", a dialog of thumbnails with a
 * search, which sets the same select; each option carries what the dialog shows.
 */
function mediaPicker(
  name: string,
  label: string,
  value: string,
  media: MediaOut[],
  error: string | undefined,
): SafeHtml {
  const id = `field-${name.replace(/^data_/, '')}`;
  const chosen = media.find((m) => m.url === value);
  const known = value === '' || chosen !== undefined;
  const described = [`${id}-hint`, error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return html`<div class="media-field" data-media-field><label for="${id}">${label}</label>
<div class="media-choice"><div class="media-thumb small" data-media-thumb${chosen && isImage(chosen) ? '' : html` hidden`}>${chosen && isImage(chosen) ? thumbnail(chosen, '') : ''}</div>
<select id="${id}" name="${name}" aria-describedby="${described}"${error ? html` aria-invalid="true"` : ''}><option value=""${value === '' ? html` selected` : ''}>None</option>${media.map(
    (m) =>
      html`<option value="${m.url}" data-type="${m.content_type}" data-alt="${m.alt}"${m.width && m.height ? html` data-width="${m.width}" data-height="${m.height}"` : ''}${m.url === value ? html` selected` : ''}>${m.filename}${m.alt ? ` (${m.alt})` : ''}</option>`,
  )}${known ? '' : html`<option value="${value}" selected>${value}</option>`}</select></div>
<span class="hint" id="${id}-hint">Choose an upload from the media library. <a href="/admin/media">Upload media</a></span>${error ? html`<span class="field-error" id="${id}-error">${error}</span>` : ''}</div>`;
}

/** What an entry of the picker says: its title, its state when not live, and its id. */
function choiceText(choice: RelationChoice): SafeHtml {
  return html`${choice.label}${choice.state ? html` <span class="badge">${choice.state}</span>` : ''} <span class="muted">${choice.id}</span>`;
}

/**
 * A relation field: the chosen entry by title and the entries a title search found, as radio
 * buttons of one name, and the search box. Searching posts the form back (every value kept), so it
 * works without script; Enter in a box above the first Search button searches too, which keeps all.
 */
function relationPicker(
  name: string,
  label: string,
  field: ContentTypeOut['fields'][number],
  picker: RelationPicker,
  error: string | undefined,
): SafeHtml {
  const id = `field-${field.name}`;
  const selected = picker.selected;
  const radio = (value: string, checked: boolean, text: SafeHtml | string, suffix: string) =>
    html`<label class="check" for="${id}-${suffix}"><input type="radio" id="${id}-${suffix}" name="${name}" value="${value}"${checked ? html` checked` : ''}> <span>${text}</span></label>`;
  return html`<fieldset class="relation" id="${id}"${error ? html` aria-describedby="${id}-error"` : ''}><legend>${label}</legend>
<div role="radiogroup" aria-label="${label}: chosen entry">${radio('', !selected, 'None', 'none')}
${selected ? radio(selected.id, true, selected.missing ? html`${selected.id} <span class="muted">(no such ${picker.typeName} entry)</span>` : choiceText(selected), 'chosen') : ''}
${(picker.results ?? []).map((choice, i) => radio(choice.id, false, choiceText(choice), `result-${i}`))}</div>
${picker.results && picker.results.length === 0 ? html`<p class="muted" role="status">No ${picker.typeName} entry has "${picker.query}" in its title.</p>` : ''}
<div class="relation-search"><label for="${id}-find">Search ${picker.typeName} by title</label><div class="row"><input type="search" id="${id}-find" name="find_${field.name}" value="${picker.query}" maxlength="200"><button type="submit" name="action" value="find" class="secondary">Search<span class="sr-only"> ${picker.typeName}</span></button></div></div>
${error ? html`<span class="field-error" id="${id}-error">${error}</span>` : ''}</fieldset>`;
}

/**
 * Whether a JSON field's text is JSON (it starts with `[`, `{` or `"`) rather than tags separated by
 * commas, which the form stores as a list of strings.
 */
export function isJsonText(text: string): boolean {
  return /^\s*[[{"]/.test(text);
}

const MARK_BUTTONS: ReadonlyArray<readonly [string, string]> = [
  ['bold', 'Bold'],
  ['italic', 'Italic'],
  ['link', 'Link'],
  ['list', 'List'],
  ['code', 'Code'],
];

/** Enum values past this many are a select; fewer are radio buttons, all in sight. */
const MAX_ENUM_RADIOS = 8;

/** An enum field as labelled choices: radio buttons ("None" first unless required), or a select when many. */
function enumChoices(
  name: string,
  label: string,
  value: string,
  required: boolean,
  values: readonly string[],
  common: { id: string; error: string | undefined },
): SafeHtml {
  const choices: Array<readonly [string, string]> = [
    ...(required ? [] : [['', 'None'] as const]),
    ...values.map((v) => [v, humanName(v)] as const),
  ];
  if (values.length > MAX_ENUM_RADIOS) return selectField(name, label, value, choices, common);
  const { id, error } = common;
  return html`<fieldset class="choices" id="${id}"${error ? html` aria-describedby="${id}-error"` : ''}><legend>${label}</legend>
${choices.map(
  ([choice, shown], i) =>
    html`<label class="check" for="${id}-${i}"><input type="radio" id="${id}-${i}" name="${name}" value="${choice}"${choice === value ? html` checked` : ''}${required ? html` required` : ''}> ${shown}</label>`,
)}${error ? html`<span class="field-error" id="${id}-error">${error}</span>` : ''}</fieldset>`;
}

function fieldControl(
  field: ContentTypeOut['fields'][number],
  values: FormValues,
  errors: FieldErrors,
  media: MediaOut[],
  relations: Record<string, RelationPicker>,
  preview?: Record<string, string>,
): SafeHtml {
  const name = `data_${field.name}`;
  const value = values[name] ?? '';
  const label = `${humanName(field.name)}${field.required ? ' (required)' : ''}`;
  const common = { id: `field-${field.name}`, error: errors[field.name] };
  const options = field.options as { max_length?: number; values?: string[]; type?: string };
  switch (field.type) {
    case 'markdown':
      return html`<div class="markdown-field" data-markdown><div class="markdown-toolbar" data-toolbar role="toolbar" aria-label="${label}: formatting" hidden>${MARK_BUTTONS.map(([mark, text]) => html`<button type="button" class="secondary small" data-mark="${mark}">${text}</button>`)}<button type="button" class="secondary small" data-image>Image…</button><input type="file" data-image-file accept="image/png,image/jpeg,image/gif,image/webp,image/avif" hidden tabindex="-1" aria-hidden="true"></div>
<p class="upload-status" data-upload-status role="status" aria-live="polite" hidden></p>
<div class="markdown-panes">${textArea(name, label, value, { ...common, hint: 'Markdown. Preview shows it as it will be served.' })}
<div class="post markdown-preview" data-preview-pane${preview?.[field.name] ? '' : html` hidden`}><h3 class="hint" id="${common.id}-preview-label">Preview</h3><div class="body" data-preview aria-labelledby="${common.id}-preview-label" role="region" aria-live="polite">${preview?.[field.name] ? trustedHtml(preview[field.name]!) : ''}</div></div></div></div>`;
    case 'json':
      return isJsonText(value)
        ? textArea(name, label, value, { ...common, hint: 'JSON; clear it to write tags separated by commas.' })
        : textField(name, label, value, 'text', {
            ...common,
            hint: 'Tags separated by commas, e.g. news, release (stored as a list); or JSON starting with [ or {.',
          });
    case 'boolean':
      return checkbox(name, label, value === 'on', { id: common.id });
    case 'number':
      return textField(name, label, value, 'number', common);
    case 'datetime':
      return html`<div><label for="${common.id}">${label}</label><input type="datetime-local" id="${common.id}" name="${name}" value="${value}"${common.error ? html` aria-invalid="true" aria-describedby="${common.id}-error"` : html` aria-describedby="${common.id}-hint"`}><span class="hint" id="${common.id}-hint">UTC</span>${common.error ? html`<span class="field-error" id="${common.id}-error">${common.error}</span>` : ''}</div>`;
    case 'enum':
      return enumChoices(name, label, value, field.required === true, options.values ?? [], common);
    case 'media':
      return mediaPicker(name, label, value, media, common.error);
    case 'relation':
      return relationPicker(
        name,
        label,
        field,
        relations[field.name] ?? {
          typeName: options.type ?? '',
          query: '',
          selected: value === '' ? undefined : { id: value, label: value },
        },
        common.error,
      );
    default:
      return textField(name, label, value, 'text', {
        ...common,
        ...(options.max_length ? { maxlength: options.max_length } : {}),
      });
  }
}

export function entryFormView(ui: UiContext, page: EntryFormPage): SafeHtml {
  const { type, entry, values, errors } = page;
  const action = entry ? `/admin/content/${type.slug}/${entry.id}` : `/admin/content/${type.slug}/new`;
  return adminFrame(
    ui,
    'content',
    entry ? `Edit ${type.name} entry` : `New ${type.name} entry`,
    html`<p class="crumbs"><a href="/admin/content">Content</a> › <a href="/admin/content/${type.slug}">${type.name}</a></p>
<form method="post" action="${action}" class="stack wide">${csrfField(ui)}
${entry ? html`<input type="hidden" name="version" value="${values.version ?? ''}">` : ''}
${errors._form ? html`<p class="field-error" role="alert">${errors._form}</p>` : ''}
${page.ai ? aiPanel(type, entry, values, errors) : ''}
${type.fields.map((field) => fieldControl(field, values, errors, page.media, page.relations, page.preview))}
<fieldset><legend>Publishing</legend>
${textField('slug', 'Slug', values.slug ?? '', 'text', { id: 'entry-slug', maxlength: 100, hint: 'Optional; lower-case letters, digits and hyphens. Entries are read by id or slug.', error: errors.slug })}
${selectField(
  'status',
  'Status',
  values.status ?? 'draft',
  [
    ['draft', 'Draft'],
    ['published', 'Published'],
  ],
  { id: 'entry-status' },
)}
<div><label for="entry-published-at">Publish at (UTC)</label><input type="datetime-local" id="entry-published-at" name="published_at" value="${values.published_at ?? ''}" aria-describedby="entry-published-at-hint${errors.published_at ? ' entry-published-at-error' : ''}"${errors.published_at ? html` aria-invalid="true"` : ''}><span class="hint" id="entry-published-at-hint">Leave empty to publish now; a future time schedules a published entry (the API shows it from then on).</span>${errors.published_at ? html`<span class="field-error" id="entry-published-at-error">${errors.published_at}</span>` : ''}</div>
</fieldset>
<div class="actions"><button type="submit" name="action" value="save">Save</button><button type="submit" name="action" value="preview" class="secondary">Preview</button><a href="/admin/content/${type.slug}">Cancel</a></div></form>
${entry ? sharePanel(ui, type, entry) : ''}`,
    page.flash,
  );
}

/** "12 KiB" or "3.4 MiB". */
function fileSize(bytes: number): string {
  return bytes < 1024 * 1024
    ? `${Math.max(1, Math.ceil(bytes / 1024))} KiB`
    : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

const isImage = (m: MediaOut) => m.content_type.startsWith('image/');

/**
 * A media thumbnail: the original scaled by the browser (its own width and height keep the grid
 * from jumping while it loads; loaded only when near the view). PDF shows as a labelled tile.
 */
function thumbnail(m: MediaOut, alt: string): SafeHtml {
  return isImage(m)
    ? html`<img src="${m.url}" alt="${alt}"${m.width && m.height ? html` width="${m.width}" height="${m.height}"` : ''} loading="lazy" decoding="async">`
    : html`<span class="file-tile" aria-hidden="true">PDF</span>`;
}

interface MediaLibraryPage {
  media: MediaOut[];
  q: string;
  total: number;
  page: number;
  pages: number;
  /** The upload form's problem. */
  error?: string | undefined;
}

export function mediaView(ui: UiContext, library: MediaLibraryPage, flash?: Flash): SafeHtml {
  const { media, error, q } = library;
  return adminFrame(
    ui,
    'content',
    'Media library',
    html`<p class="crumbs"><a href="/admin/content">Content</a></p>
<section class="panel" aria-labelledby="upload-heading"><h2 id="upload-heading">Upload</h2>
<form method="post" action="/admin/media" enctype="multipart/form-data" class="stack">${csrfField(ui)}
${textField('alt', 'Alt text', '', 'text', { id: 'media-alt', maxlength: 500, hint: 'What the image shows, for those who cannot see it. You can change it later.' })}
<div><label for="media-file">File</label><input type="file" id="media-file" name="file" required accept="image/png,image/jpeg,image/gif,image/webp,image/avif,application/pdf" aria-describedby="media-file-hint${error ? ' media-file-error' : ''}"${error ? html` aria-invalid="true"` : ''}><span class="hint" id="media-file-hint">PNG, JPEG, GIF, WebP, AVIF or PDF, at most 10 MiB. SVG is not accepted.</span>${error ? html`<span class="field-error" id="media-file-error" role="alert">${error}</span>` : ''}</div>
<div class="actions"><button type="submit">Upload</button></div></form></section>
<form method="get" action="/admin/media" class="filters" role="search" aria-label="Search media">
${textField('q', 'Search media (name or alt text)', q, 'search', { id: 'media-q', maxlength: 200 })}
<div class="actions"><button type="submit" class="secondary">Search</button></div></form>
<p class="muted">${library.total} file${library.total === 1 ? '' : 's'}${q ? html` with "${q}"` : ''}</p>
<ul class="media-grid">${media.map(
      (m) =>
        html`<li class="media-card" id="media-${m.id}"><div class="media-thumb">${thumbnail(m, m.alt)}</div>
<p class="media-name"><a href="${m.url}">${m.filename}</a></p>
<p class="muted">${fileSize(m.size)}${m.width && m.height ? html` · ${m.width} × ${m.height} px` : ''} · ${m.content_type}</p>
<form method="post" action="/admin/media/${m.id}/alt" class="media-alt">${csrfField(ui)}<label for="alt-${m.id}">Alt text<span class="sr-only"> of ${m.filename}</span></label><div class="row"><input type="text" id="alt-${m.id}" name="alt" value="${m.alt}" maxlength="500"><button type="submit" class="secondary small">Save<span class="sr-only"> alt text of ${m.filename}</span></button></div></form>
<p><a href="/admin/media/${m.id}/delete">Delete…<span class="sr-only"> ${m.filename}</span></a></p></li>`,
    )}</ul>
${pager(library.page, library.pages, (n) => `/admin/media?${new URLSearchParams({ q, page: String(n) }).toString()}`)}`,
    flash,
  );
}

/** An entry that references media, as the delete page names and links it. */
export interface MediaUser {
  href: string;
  label: string;
  typeName: string;
}

/** Asks before deleting an upload; while entries reference it, names them and offers no delete. */
export function mediaDeleteView(ui: UiContext, m: MediaOut, users: MediaUser[]): SafeHtml {
  return adminFrame(
    ui,
    'content',
    `Delete ${m.filename}?`,
    html`<p class="crumbs"><a href="/admin/content">Content</a> › <a href="/admin/media">Media library</a></p>
<div class="media-thumb single">${thumbnail(m, m.alt)}</div>
${
  users.length > 0
    ? html`<p role="alert">${m.filename} cannot be deleted: ${users.length === 1 ? 'this entry uses' : 'these entries use'} it. Change ${users.length === 1 ? 'it' : 'them'} first.</p>
<ul>${users.map((u) => html`<li><a href="${u.href}">${u.label}</a> <span class="muted">${u.typeName}</span></li>`)}</ul>
<p><a href="/admin/media">Back to the media library</a></p>`
    : html`<p>No entry uses ${m.filename}. Deleting it removes the file for good: ${m.url} stops answering.</p>
<form method="post" action="/admin/media/${m.id}/delete">${csrfField(ui)}<div class="actions"><button type="submit" class="danger">Delete ${m.filename}</button><a href="/admin/media">Cancel</a></div></form>`
}`,
  );
}
