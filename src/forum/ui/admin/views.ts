// The frame of the admin pages (tabs between its sections) and its overview: the first-run
// checklist, ticked from the instance's real state, and the health endpoints.
import type { UiContext } from '../context.js';
import { html, type HtmlValue, type SafeHtml } from '../../../lib/html.js';
import { csrfField, notice } from '../layout.js';
import type { ChecklistItem } from './checklist.js';

type AdminSection = 'overview' | 'structure' | 'members' | 'settings' | 'content';

const SECTIONS: ReadonlyArray<readonly [AdminSection, string, string]> = [
  ['overview', 'Overview', '/admin'],
  ['structure', 'Categories and forums', '/admin/structure'],
  ['members', 'Members', '/admin/members'],
  ['settings', 'Settings', '/admin/settings'],
  // The CMS editor (src/cms/ui) lives in the same admin area.
  ['content', 'Content', '/admin/content'],
];

export interface Flash {
  kind: 'ok' | 'error' | 'warn';
  text: HtmlValue;
}

/** The frame of admin pages; content editors who are not admins see the content section only. */
export function adminFrame(
  ui: UiContext,
  section: AdminSection,
  heading: string,
  body: SafeHtml,
  flash?: Flash,
): SafeHtml {
  const admin = ui.viewer.kind === 'member' && ui.viewer.role === 'admin';
  const sections = admin ? SECTIONS : SECTIONS.filter(([name]) => name === 'content');
  return html`<p class="crumbs"><a href="/">${ui.title}</a> › ${
    admin ? html`<a href="/admin">Admin</a>` : html`<a href="/admin/content">Content</a>`
  }</p>
<h1>${heading}</h1>
<nav class="tabs admin-tabs" aria-label="Admin sections"><ul>${sections.map(
    ([name, label, href]) =>
      html`<li><a href="${href}"${name === section ? html` aria-current="page"` : ''}>${label}</a></li>`,
  )}</ul></nav>
${flash ? notice(flash.kind, flash.text) : ''}
${body}`;
}

export function overviewView(ui: UiContext, checklist: ChecklistItem[], flash?: Flash): SafeHtml {
  const left = checklist.filter((item) => !item.done).length;
  return adminFrame(
    ui,
    'overview',
    'Admin',
    html`<section aria-labelledby="checklist-heading"><h2 id="checklist-heading">First steps</h2>
<p class="muted">${left === 0 ? 'Everything is set up.' : `${left} of ${checklist.length} still to do.`}</p>
<ul class="checklist">${checklist.map(
      (item) =>
        html`<li class="${item.done ? 'done' : 'todo'}"><span class="tick" aria-hidden="true">${
          item.done ? '✓' : ''
        }</span><div><a href="${item.href}">${item.label}</a><span class="sr-only">${
          item.done ? ' (done)' : ' (to do)'
        }</span><div class="muted">${item.state}</div></div></li>`,
    )}</ul></section>
<section aria-labelledby="health-heading"><h2 id="health-heading">Health</h2>
<ul class="links">
<li><a href="/up/">/up/</a> <span class="muted">the process answers (liveness)</span></li>
<li><a href="/up/databases">/up/databases</a> \
<span class="muted">the database and the file store answer (the cache, too, or "degraded")</span></li>
<li><a href="/up/ready">/up/ready</a> <span class="muted">ready to take traffic</span></li>
</ul></section>`,
    flash,
  );
}

/** A confirmation before something is deleted: says what goes, and offers the way back. */
export function confirmView(
  ui: UiContext,
  section: AdminSection,
  heading: string,
  consequences: string,
  action: string,
  label: string,
  back: string,
): SafeHtml {
  return adminFrame(
    ui,
    section,
    heading,
    html`<div class="notice warn" role="status"><p>${consequences}</p></div>
<form method="post" action="${action}">${csrfField(ui)}<div class="actions">\
<button type="submit" class="danger">${label}</button><a href="${back}">Cancel</a></div></form>`,
  );
}
