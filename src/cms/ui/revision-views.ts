// Pages of an entry's history and sharing in the CMS editor (decision 0139): the revisions, each with
// the fields it changed (label, before, after) and a Restore button; the made preview link; and the
// read-only preview a link opens without signing in.
import { adminFrame, type Flash } from '../../forum/ui/admin/views.js';
import { selectField } from '../../forum/ui/admin/fields.js';
import type { UiContext } from '../../forum/ui/context.js';
import { csrfField, pager, time } from '../../forum/ui/layout.js';
import { html, trustedHtml, type SafeHtml } from '../../lib/html.js';
import { DEFAULT_PREVIEW_HOURS, PREVIEW_LIFETIMES } from '../preview-links.js';
import type { ContentTypeOut, EntryOut } from '../schemas.js';
import { humanName } from './labels.js';

/** One changed field of a revision as shown: its label and its values before and after, as text. */
interface ShownChange {
  label: string;
  before: string;
  after: string;
}

export interface ShownRevision {
  version: number;
  author: string;
  at: Date;
  restoredFrom: number | null;
  /** Undefined for the oldest kept revision: there is nothing before it to compare with. */
  changes: ShownChange[] | undefined;
}

/** Values longer than this show their start; the API has them whole. */
const MAX_SHOWN = 600;

/** A field value as the history shows it. */
export function shownValue(value: unknown): string {
  if (value === undefined || value === null || value === '') return '(empty)';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text;
}

/** The name the history gives a field of the type or a part of the entry. */
export function partLabel(name: string): string {
  if (name === 'published_at') return 'Publish time';
  if (name === 'status') return 'Status';
  return humanName(name);
}

function crumbs(type: ContentTypeOut, entry: EntryOut, label: string): SafeHtml {
  return html`<p class="crumbs"><a href="/admin/content">Content</a> › <a href="/admin/content/${type.slug}">${type.name}</a> › <a href="/admin/content/${type.slug}/${entry.id}">${label}</a></p>`;
}

export function revisionsView(
  ui: UiContext,
  page: {
    type: ContentTypeOut;
    entry: EntryOut;
    label: string;
    revisions: ShownRevision[];
    /** The entry's version now: its revision is the current one, with nothing to restore. */
    current: number;
    /** The entry's ETag, which a restore must still match. */
    etag: string;
    page: number;
    pages: number;
  },
  flash?: Flash,
): SafeHtml {
  const { type, entry } = page;
  const base = `/admin/content/${type.slug}/${entry.id}`;
  return adminFrame(
    ui,
    'content',
    `History of ${page.label}`,
    html`${crumbs(type, entry, page.label)}
<p class="hint">Every save is kept (the last 100). Restoring a revision saves its values as a new revision; the entry stays ${entry.status === 'published' ? 'published' : 'a draft'}.</p>
<ol class="plain revisions">${page.revisions.map(
      (r) =>
        html`<li class="panel revision" aria-labelledby="rev-${r.version}"><h2 id="rev-${r.version}">Revision ${r.version}${r.version === page.current ? ' (current)' : ''}</h2>
<p class="muted">Saved by ${r.author}, ${time(r.at)}${r.restoredFrom !== null ? html` · restored revision ${r.restoredFrom}` : ''}</p>
${
  r.changes === undefined
    ? html`<p class="muted">The oldest revision kept.</p>`
    : r.changes.length === 0
      ? html`<p class="muted">Saved without changes.</p>`
      : html`<div class="table-scroll"><table class="list diff"><caption class="sr-only">Changes in revision ${r.version}</caption><thead><tr><th scope="col">Field</th><th scope="col">Before</th><th scope="col">After</th></tr></thead><tbody>${r.changes.map(
          (c) =>
            html`<tr><th scope="row">${c.label}</th><td><del>${c.before}</del></td><td><ins>${c.after}</ins></td></tr>`,
        )}</tbody></table></div>`
}
${
  r.version === page.current
    ? ''
    : html`<form method="post" action="${base}/revisions/${r.version}/restore">${csrfField(ui)}<input type="hidden" name="version" value="${page.etag}"><button type="submit" class="secondary">Restore revision ${r.version}</button></form>`
}</li>`,
    )}</ol>
${pager(page.page, page.pages, (n) => `${base}/revisions?page=${n}`)}`,
    flash,
  );
}

/** The entry form's panel for sharing a preview and opening the history. */
export function sharePanel(ui: UiContext, type: ContentTypeOut, entry: EntryOut): SafeHtml {
  const base = `/admin/content/${type.slug}/${entry.id}`;
  return html`<section class="panel" aria-labelledby="share-heading"><h2 id="share-heading">History and preview</h2>
<p><a href="${base}/revisions">History of this entry</a></p>
<form method="post" action="${base}/share" class="stack">${csrfField(ui)}
${selectField(
  'hours',
  'Preview link valid for',
  String(DEFAULT_PREVIEW_HOURS),
  PREVIEW_LIFETIMES.map((h) => [String(h), h === 1 ? '1 hour' : h === 24 ? '1 day' : '7 days'] as const),
  { id: 'share-hours', hint: 'Anyone with the link sees the entry as it is then, drafts too, without signing in.' },
)}
<div class="actions"><button type="submit" class="secondary">Make preview link</button></div></form></section>`;
}

export function shareView(
  ui: UiContext,
  type: ContentTypeOut,
  entry: EntryOut,
  label: string,
  link: { url: string; expiresAt: Date },
): SafeHtml {
  return adminFrame(
    ui,
    'content',
    `Preview link for ${label}`,
    html`${crumbs(type, entry, label)}
<div><label for="preview-link">Preview link</label><input type="text" id="preview-link" readonly value="${link.url}" aria-describedby="preview-link-hint"><span class="hint" id="preview-link-hint">Valid until ${time(link.expiresAt)}. It shows the entry as it is when opened, read-only, and is kept out of search engines.</span></div>
<p class="actions"><a href="${link.url}">Open the preview</a><a href="/admin/content/${type.slug}/${entry.id}">Back to the entry</a></p>`,
  );
}

function previewValue(field: ContentTypeOut['fields'][number], entry: EntryOut): SafeHtml | string {
  const value = (entry.data as Record<string, unknown>)[field.name];
  const markup = (entry.html as Record<string, string> | undefined)?.[field.name];
  if (field.type === 'markdown' && markup !== undefined)
    return html`<div class="post"><div class="body">${trustedHtml(markup)}</div></div>`;
  if (value === undefined || value === null || value === '') return html`<span class="muted">(empty)</span>`;
  if (field.type === 'boolean') return value ? 'Yes' : 'No';
  if (field.type === 'datetime') return time(new Date(String(value)));
  if (field.type === 'enum') return humanName(String(value));
  if (field.type === 'json') return html`<code>${JSON.stringify(value)}</code>`;
  return String(value as string | number);
}

/** The read-only preview of an entry that a shared link opens. */
export function previewView(type: ContentTypeOut, entry: EntryOut, label: string, expiresAt: Date): SafeHtml {
  return html`<article class="entry-preview" aria-labelledby="preview-title">
<p class="notice" role="note">Preview of a${entry.status === 'draft' ? ' draft' : 'n'} ${type.name} entry, read-only. The link works until ${time(expiresAt)}.</p>
<h1 id="preview-title">${label}</h1>
<dl class="entry-fields">${type.fields.map((f) => html`<dt>${humanName(f.name)}</dt><dd>${previewValue(f, entry)}</dd>`)}</dl>
</article>`;
}
