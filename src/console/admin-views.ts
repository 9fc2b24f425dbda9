// The console's pages for platform administrators: accounts, every site with its plan and status,
// purchase keys and the audit log.
import type { UserOut } from '../core/accounts/schemas.js';
import type { TokenOut } from '../core/credentials/schemas.js';
import { pager, time } from '../forum/ui/layout.js';
import { html, type SafeHtml } from '../lib/html.js';
import type { PlanOut, WorkspaceOut } from '../purchase/schemas.js';
import type { AuditEntryOut } from '../purchase/service.js';
import type { ConsoleContext } from './context.js';
import { csrfField, notice } from './views.js';

const SECTIONS = [
  {
    href: '/admin/accounts',
    title: 'Accounts',
    about: 'Everyone with a console account, whether they administer the platform, and how many sites they own.',
  },
  {
    href: '/admin/sites',
    title: 'All sites',
    about: "Every site's kind, plan, status and owner; change a plan, suspend or resume a site.",
  },
  {
    href: '/admin/purchase-keys',
    title: 'Purchase keys',
    about: 'The keys a billing system calls the purchase API with: create and revoke them.',
  },
  {
    href: '/admin/audit-log',
    title: 'Audit log',
    about: 'Every purchase API call and every change made on these pages, newest first.',
  },
] as const;

export type Flash = { kind: 'error' | 'ok'; text: string } | undefined;

/** A paged list's position; `href` builds the URL of another page. */
export interface Paging {
  page: number;
  totalPages: number;
  href: (page: number) => string;
}

/** Every admin page: its heading, the section links (the current one marked) and the flash message. */
function adminFrame(current: string, title: string, flash: Flash, body: SafeHtml): SafeHtml {
  return html`<nav class="subnav" aria-label="Admin sections"><ul><li><a href="/admin"${
    current === '/admin' ? html` aria-current="page"` : ''
  }>Admin</a></li>${SECTIONS.map(
    (s) => html`<li><a href="${s.href}"${current === s.href ? html` aria-current="page"` : ''}>${s.title}</a></li>`,
  )}</ul></nav>
<h1>${title}</h1>
${flash ? notice(flash.kind, flash.text) : ''}
${body}`;
}

/** What an empty page of a list says: nothing yet (and what to do), or nothing this far on. */
function emptyList(paging: Paging, nothingYet: SafeHtml): SafeHtml {
  return paging.page > 1
    ? html`<p>There is nothing on page ${paging.page}. <a href="${paging.href(1)}">Go to the first page</a>.</p>`
    : nothingYet;
}

const when = (iso: string | null, never: string): SafeHtml | string => (iso ? time(new Date(iso)) : never);

export function adminHomeView(): SafeHtml {
  return adminFrame(
    '/admin',
    'Platform administration',
    undefined,
    html`<ul class="cards">${SECTIONS.map(
      (s) => html`<li><h2><a href="${s.href}">${s.title}</a></h2><p>${s.about}</p></li>`,
    )}</ul>`,
  );
}

export function accountsView(accounts: Array<UserOut & { sites: number }>, paging: Paging): SafeHtml {
  const list = accounts.length
    ? html`<div class="table"><table><thead><tr><th scope="col">Username</th><th scope="col">E-mail</th>\
<th scope="col">Created</th><th scope="col">Platform admin</th><th scope="col">Sites</th></tr></thead><tbody>
${accounts.map(
  (a) =>
    html`<tr><td>${a.username}</td><td>${a.email}</td><td>${when(a.created_at, '')}</td><td>${
      a.is_admin ? 'Yes' : 'No'
    }</td><td>${a.sites}</td></tr>`,
)}
</tbody></table></div>`
    : emptyList(paging, html`<p>No accounts yet. People create theirs on the <a href="/signup">sign-up page</a>.</p>`);
  return adminFrame(
    '/admin/accounts',
    'Accounts',
    undefined,
    html`${list}${pager(paging.page, paging.totalPages, paging.href)}`,
  );
}

function statusText(site: WorkspaceOut): SafeHtml {
  if (site.status === 'active') return html`Active`;
  if (site.status === 'suspended') return html`Suspended: its hosts and APIs answer 503 until it is resumed`;
  return html`Canceled ${when(site.canceled_at, '')}: its data is purged after the grace period`;
}

function siteCard(ui: ConsoleContext, site: WorkspaceOut, plans: PlanOut[], page: number): SafeHtml {
  const hidden = html`${csrfField(ui)}<input type="hidden" name="page" value="${page}">`;
  // A canceled workspace takes no changes; the services would refuse them.
  const forms =
    site.status === 'canceled'
      ? ''
      : html`<form class="row" method="post" action="/admin/sites/${site.id}/plan">${hidden}
<div><label for="plan-${site.id}">Plan<span class="sr-only"> of ${site.id}</span></label>\
<select id="plan-${site.id}" name="plan">${plans.map(
          (p) => html`<option value="${p.id}"${p.id === site.plan ? html` selected` : ''}>${p.id}</option>`,
        )}</select></div>
<div><button type="submit">Change plan<span class="sr-only"> of ${site.id}</span></button></div>
</form>
<form method="post" action="/admin/sites/${site.id}/${site.status === 'active' ? 'suspend' : 'resume'}">${hidden}<p>${
          site.status === 'active'
            ? html`<button type="submit" class="danger">Suspend ${site.id}</button>`
            : html`<button type="submit">Resume ${site.id}</button>`
        }</p></form>`;
  return html`<li><h2><a href="/sites/${site.id}">${site.id}</a></h2>
<p>${site.kind === 'static' ? 'Static site' : 'Community site'} · ${site.plan} plan · ${statusText(site)}</p>
<p class="muted">Owner: ${site.owner_email ?? 'none'} · created ${when(site.created_at, '')}</p>
${forms}</li>`;
}

export function adminSitesView(
  ui: ConsoleContext,
  sites: WorkspaceOut[],
  plans: PlanOut[],
  paging: Paging,
  flash: Flash,
): SafeHtml {
  const list = sites.length
    ? html`<ul class="cards">${sites.map((site) => siteCard(ui, site, plans, paging.page))}</ul>`
    : emptyList(
        paging,
        html`<p>No sites yet. <a href="/sites/new">Create one</a>, or give your billing system a \
<a href="/admin/purchase-keys">purchase key</a> so it provisions workspaces through the purchase API.</p>`,
      );
  return adminFrame(
    '/admin/sites',
    'All sites',
    flash,
    html`<details><summary>What each plan includes</summary><dl>${plans.map(
      (p) =>
        html`<dt>${p.id}</dt><dd>${
          p.features.length ? p.features.map((f) => f.description).join('; ') : 'No features'
        }</dd>`,
    )}</dl>\
<p class="muted">\
A new plan holds from the site's next request on. A downgrade turns features off and deletes nothing.</p></details>
${list}${pager(paging.page, paging.totalPages, paging.href)}`,
  );
}

export interface KeyForm {
  name?: string;
  minted?: TokenOut & { token: string };
}

export function purchaseKeysView(ui: ConsoleContext, keys: TokenOut[], form: KeyForm, flash: Flash): SafeHtml {
  const minted = form.minted
    ? html`<div class="notice ok" role="status">\
<p>Purchase key ${form.minted.name} was created. Copy it now: it will not be shown again.</p>
<label for="new-key">The new purchase key</label>\
<input id="new-key" readonly value="${form.minted.token}" autocomplete="off" spellcheck="false"></div>`
    : '';
  const list = keys.length
    ? html`<div class="table"><table><thead><tr><th scope="col">Name</th><th scope="col">Created</th>\
<th scope="col">Last used</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead><tbody>
${keys.map(
  (k) =>
    html`<tr><td>${k.name}</td><td>${when(k.created_at, '')}</td><td>${when(k.last_used_at, 'Never')}</td><td>\
<a href="/admin/purchase-keys/${k.id}/revoke">Revoke<span class="sr-only"> ${k.name}</span></a></td></tr>`,
)}
</tbody></table></div>`
    : html`<p>No purchase keys yet. Create one below and give it to your billing system: it calls the purchase API at \
<code>/api/purchase/v1</code> with the header <code>Authorization: Bearer</code> and the key.</p>`;
  return adminFrame(
    '/admin/purchase-keys',
    'Purchase keys',
    flash,
    html`${minted}${list}
<section aria-labelledby="new-key-h"><h2 id="new-key-h">Create a purchase key</h2>
<form class="stack" method="post" action="/admin/purchase-keys">${csrfField(ui)}
<div><label for="key-name">Name</label>\
<input id="key-name" name="name" required maxlength="100" autocomplete="off" aria-describedby="key-name-hint" \
value="${form.name ?? ''}">\
<p class="hint" id="key-name-hint">Who will use it, such as the name of your billing system. The key is shown once.</p>\
</div>
<div><button type="submit">Create purchase key</button></div>
</form></section>`,
  );
}

export function revokeKeyView(ui: ConsoleContext, key: TokenOut): SafeHtml {
  return adminFrame(
    '/admin/purchase-keys',
    `Revoke the purchase key ${key.name}?`,
    undefined,
    html`<p>Created ${when(key.created_at, '')}; last used ${when(key.last_used_at, 'never')}.</p>
<p>\
A billing system calling the purchase API with this key is refused from its next call on. This cannot be undone: create\
 a new key to replace it.</p>
<form method="post" action="/admin/purchase-keys/${key.id}/revoke">${csrfField(ui)}<p>\
<button type="submit" class="danger">Revoke ${key.name}</button> \
<a href="/admin/purchase-keys">Cancel, keep the key</a></p></form>`,
  );
}

function actor(entry: AuditEntryOut): string {
  if (entry.credentialId) return entry.keyName ? `Purchase key ${entry.keyName}` : `Purchase key ${entry.credentialId}`;
  if (entry.accountId) return entry.username ?? 'A deleted account';
  return 'No valid purchase key';
}

export function auditView(entries: AuditEntryOut[], paging: Paging): SafeHtml {
  const list = entries.length
    ? html`<div class="table"><table><thead><tr><th scope="col">When</th><th scope="col">By</th>\
<th scope="col">Request</th><th scope="col">Site</th><th scope="col">Answer</th></tr></thead><tbody>
${entries.map(
  (e) =>
    html`<tr><td>${time(e.createdAt)}</td><td>${actor(e)}</td><td><code>${e.method} ${e.path}</code></td>\
<td>${e.target ?? ''}</td><td>${e.status < 400 ? 'Done' : 'Refused'} (${e.status})</td></tr>`,
)}
</tbody></table></div>`
    : emptyList(
        paging,
        html`<p>Nothing is recorded yet. Purchase API calls and the changes made on these admin pages appear here; \
<a href="/admin/purchase-keys">create a purchase key</a> for your billing system to start.</p>`,
      );
  return adminFrame(
    '/admin/audit-log',
    'Audit log',
    undefined,
    html`${list}${pager(paging.page, paging.totalPages, paging.href)}`,
  );
}
