// The console's pages: the frame every page shares and the views of accounts and sites.
import type { SessionSummary } from '../core/accounts/service.js';
import type { SiteOut } from '../core/sites/schemas.js';
import type { DeploySummary } from '../deploy/service.js';
import { html, type HtmlValue, type SafeHtml } from '../lib/html.js';
import type { ConsoleContext } from './context.js';

export function csrfField(ui: ConsoleContext): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${ui.csrf}">`;
}

export function notice(kind: 'error' | 'ok', text: HtmlValue): SafeHtml {
  return html`<p class="notice ${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${text}</p>`;
}

export function time(date: Date): SafeHtml {
  const iso = date.toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;
}

export interface PageOptions {
  /** Reload the page every so many seconds (a build log that is still being written). */
  refreshSeconds?: number;
}

export function layout(ui: ConsoleContext, title: string, body: SafeHtml, options: PageOptions = {}): string {
  const nav = ui.user
    ? html`<li><a href="/">Sites</a></li>${
        ui.user.isAdmin ? html`<li><a href="/admin">Admin</a></li>` : ''
      }<li><a href="/account">${ui.user.username}</a></li><li>\
<form class="inline" method="post" action="/logout">${csrfField(ui)}<button type="submit" class="link">Log out</button>\
</form></li>`
    : html`<li><a href="/login">Log in</a></li><li><a href="/signup">Sign up</a></li>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Blume console</title>
${
  options.refreshSeconds
    ? html`<meta http-equiv="refresh" content="${String(options.refreshSeconds)}">
`
    : ''
}<link rel="stylesheet" href="/assets/console.css">
<script src="/assets/console.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top"><div class="wrap"><a class="brand" href="/">Blume</a><nav aria-label="Account">\
<ul>${nav}</ul></nav></div></header>
<main id="main" class="wrap" tabindex="-1">
${body}
</main>
</body>
</html>
`.value;
}

export function errorView(title: string, message: string, loginHref: string | undefined): SafeHtml {
  return html`<h1>${title}</h1>${notice('error', message)}${
    loginHref ? html`<p><a href="${loginHref}">Log in</a></p>` : ''
  }<p><a href="/">Back to the console</a></p>`;
}

export function loginView(ui: ConsoleContext, values: { login?: string; error?: string; next?: string }): SafeHtml {
  return html`<h1>Log in</h1>
${values.error ? notice('error', values.error) : ''}
<form class="stack" method="post" action="/login">\
${csrfField(ui)}<input type="hidden" name="next" value="${values.next ?? '/'}">
<div><label for="login">Username or e-mail</label>\
<input id="login" name="login" autocomplete="username" required maxlength="254" value="${values.login ?? ''}"></div>
<div><label for="password">Password</label>\
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="200"></div>
<div><button type="submit">Log in</button></div>
</form>
<p><a href="/password/forgot">Forgot your password?</a></p>
<p>No account yet? <a href="/signup">Sign up</a>.</p>`;
}

export function signupView(
  ui: ConsoleContext,
  values: { username?: string; email?: string; error?: string },
): SafeHtml {
  return html`<h1>Sign up</h1>
${values.error ? notice('error', values.error) : ''}
<form class="stack" method="post" action="/signup">${csrfField(ui)}
<div><label for="username">Username</label>\
<input id="username" name="username" autocomplete="username" required maxlength="39" aria-describedby="username-hint" \
value="${values.username ?? ''}"><p class="hint" id="username-hint">2 to 39 letters, digits, _, . or -.</p></div>
<div><label for="email">E-mail</label>\
<input id="email" name="email" type="email" autocomplete="email" required maxlength="254" \
value="${values.email ?? ''}"></div>
<div><label for="password">Password</label>\
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="10" \
maxlength="200" aria-describedby="password-hint">\
<p class="hint" id="password-hint">At least 10 characters; common passwords are refused.</p></div>
<div><button type="submit">Create account</button></div>
</form>
<p>Have an account? <a href="/login">Log in</a>.</p>`;
}

export function accountView(
  ui: ConsoleContext,
  sessions: SessionSummary[],
  message?: { kind: 'error' | 'ok'; text: string },
): SafeHtml {
  const user = ui.user!;
  return html`<h1>Your account</h1>
${message ? notice(message.kind, message.text) : ''}
<p>${user.username} · ${user.email}${user.isAdmin ? ' · platform administrator' : ''}</p>
<section aria-labelledby="pw-h"><h2 id="pw-h">Change password</h2>
<form class="stack" method="post" action="/account/password">${csrfField(ui)}
<div><label for="current">Current password</label>\
<input id="current" name="current" type="password" autocomplete="current-password" required maxlength="200"></div>
<div><label for="new-password">New password</label>\
<input id="new-password" name="password" type="password" autocomplete="new-password" required minlength="10" \
maxlength="200" aria-describedby="new-hint">\
<p class="hint" id="new-hint">At least 10 characters. Your other sessions end.</p></div>
<div><button type="submit">Change password</button></div>
</form></section>
<section aria-labelledby="sessions-h"><h2 id="sessions-h">Sessions</h2>
<div class="table"><table><thead><tr><th scope="col">Started</th><th scope="col">Expires</th>\
<th scope="col">This browser</th></tr></thead><tbody>
${sessions.map(
  (s) =>
    html`<tr><td>${time(s.createdAt)}</td><td>${time(s.expiresAt)}</td><td>${
      s.id === ui.sessionId ? 'Yes' : ''
    }</td></tr>`,
)}
</tbody></table></div>
<form method="post" action="/account/sessions/end">${csrfField(ui)}<p>\
<button type="submit" class="danger">Log out everywhere else</button></p></form>
</section>`;
}

/** Workspaces a billing system provisioned for the account's address, each to accept or decline. */
export function offersView(ui: ConsoleContext, offers: SiteOut[], declined?: string): SafeHtml {
  const list = offers.length
    ? html`<ul>${offers.map(
        (s) =>
          html`<li><strong>${s.id}</strong> (${s.kind}, ${s.plan}) <a href="${s.url}">${s.url}</a>\
<form class="inline" method="post" action="/workspace-offers/${s.id}/accept">${csrfField(ui)}<button type="submit">\
Accept ${s.id}</button></form> \
<form class="inline" method="post" action="/workspace-offers/${s.id}/decline">\
${csrfField(ui)}<button type="submit" class="secondary">Decline\
<span class="sr-only"> ${s.id}</span></button></form></li>`,
      )}</ul>`
    : html`<p>No workspace is waiting for your answer.</p>`;
  return html`<h1>Workspaces offered to you</h1>${
    declined ? notice('ok', `You declined ${declined}.`) : ''
  }<p>A billing system set these up for your e-mail address. One becomes yours only when you accept it.</p>${list}<p>\
<a href="/">Back to your sites</a></p>`;
}

export function sitesView(
  ui: ConsoleContext,
  sites: SiteOut[],
  deploys: ReadonlyMap<string, DeploySummary>,
  message?: string,
  offers = 0,
): SafeHtml {
  const deployed = (site: SiteOut): SafeHtml => {
    if (site.kind !== 'static') return html`<td>—</td><td>—</td>`;
    const summary = deploys.get(site.id);
    return html`<td>${
      summary?.live ? html`<code>${summary.live}</code>` : 'none yet'
    }</td><td>${summary?.lastDeployAt ? time(summary.lastDeployAt) : 'never'}</td>`;
  };
  const list = sites.length
    ? html`<div class="table"><table><thead><tr><th scope="col">Site</th><th scope="col">Kind</th>\
<th scope="col">Plan</th><th scope="col">Live release</th><th scope="col">Last deploy</th>\
<th scope="col">Address</th></tr></thead><tbody>
${sites.map(
  (s) =>
    html`<tr><td><a href="/sites/${s.id}">${s.id}</a></td><td>${s.kind}</td><td>${s.plan}</td>${deployed(s)}<td>\
<a href="${s.url}">${s.url}</a></td></tr>`,
)}
</tbody></table></div>`
    : html`<p>You have no sites yet. \
<a href="/sites/new">Create your first site</a>\
: a static site for files you upload or build, or a community site with a forum.</p>`;
  return html`<h1>Sites</h1>${message ? notice('ok', message) : ''}${
    offers
      ? notice(
          'ok',
          html`${String(offers)} workspace${
            offers === 1 ? ' is' : 's are'
          } offered to you: <a href="/workspace-offers">accept or decline</a>.`,
        )
      : ''
  }<p><a href="/sites/new">New site</a></p>${list}${
    ui.user?.isAdmin ? html`<p class="muted">As a platform administrator you see every site.</p>` : ''
  }`;
}

export function newSiteView(ui: ConsoleContext, values: { id?: string; kind?: string; error?: string }): SafeHtml {
  const kind = values.kind ?? 'static';
  return html`<h1>New site</h1>
${values.error ? notice('error', values.error) : ''}
<form class="stack" method="post" action="/sites">${csrfField(ui)}
<div><label for="site-id">Site id</label>\
<input id="site-id" name="id" required maxlength="40" pattern="[a-z0-9](?:[a-z0-9-]{0,38}\
[a-z0-9])?" aria-describedby="id-hint" value="${values.id ?? ''}">\
<p class="hint" id="id-hint">\
The site's address: 1 to 40 lower-case letters, digits and single hyphens, starting and ending with a letter or digit. \
Not www, api, portal, admin, stage or mcp, and not starting with r-.</p></div>
<div><label for="kind">Kind</label><select id="kind" name="kind"><option value="static"${
    kind === 'static' ? html` selected` : ''
  }>Static site (upload or build files)</option><option value="community"${
    kind === 'community' ? html` selected` : ''
  }>Community (forum, CMS, help desk)</option></select></div>
<div><button type="submit">Create site</button></div>
</form>`;
}

/**
 * One part of a site's page: a tab with JavaScript, an in-page section without. Its heading's id is
 * `<id>-h`, what links and redirects after an action point at.
 */
export interface SiteSection {
  id: string;
  /** The tab's name and the section's heading. */
  title: string;
  body: SafeHtml;
}

export interface SitePageParts {
  /** What the site's kind shows at the top: the facts a visitor looks for first. */
  summary?: SafeHtml;
  /** What the site's kind adds before the danger zone, in tab order. */
  sections?: SiteSection[];
  /** A secret or link shown this once, above the tabs. */
  shown?: SafeHtml;
  /** The outcome of the last action, at the top. */
  message?: { kind: 'error' | 'ok'; text: HtmlValue } | undefined;
  deleteError?: string;
  /** The viewer is an owner of the site: the danger zone is theirs. */
  owner?: boolean;
}

/** The links from a site's page to its own pages; the domains and variables of static sites only. */
function siteSettingsLinks(site: SiteOut): SafeHtml {
  return html`<nav aria-label="Site settings"><ul class="links"><li><a href="/sites/${site.id}/team">Team</a></li>${
    site.kind === 'static'
      ? html`<li><a href="/sites/${site.id}/env">Environment variables</a></li>\
<li><a href="/sites/${site.id}/domains">Domains</a></li>`
      : ''
  }</ul></nav>`;
}

function dangerZone(ui: ConsoleContext, site: SiteOut, deleteError: string | undefined): SiteSection {
  return {
    id: 'delete',
    title: 'Danger zone',
    body: html`<h3>Delete this site</h3>
${deleteError ? notice('error', deleteError) : ''}
<p>Deleting removes the site and everything in it. This cannot be undone.</p>
<form class="stack" method="post" action="/sites/${site.id}/delete">${csrfField(ui)}
<div><label for="confirm">Type the site id, ${site.id}, to confirm</label>\
<input id="confirm" name="confirm" required maxlength="64" autocomplete="off"></div>
<div><button type="submit" class="danger">Delete ${site.id}</button></div>
</form>`,
  };
}

/** A site's page: heading, summary, then its sections; the console script turns them into tabs. */
export function siteView(ui: ConsoleContext, site: SiteOut, parts: SitePageParts = {}): SafeHtml {
  const sections = [...(parts.sections ?? []), ...(parts.owner ? [dangerZone(ui, site, parts.deleteError)] : [])];
  // An error about deleting opens the danger zone, whatever the address says.
  const selected = parts.deleteError ? 'delete' : undefined;
  return html`<h1>${site.id}</h1>
${parts.message ? notice(parts.message.kind, parts.message.text) : ''}
<p>${site.kind === 'static' ? 'Static site' : 'Community site'} · ${site.plan} plan · \
<a href="${site.url}">${site.url}</a></p>
${siteSettingsLinks(site)}
${parts.summary ?? ''}${parts.shown ?? ''}
<div class="site-sections" data-tabs${selected ? html` data-selected="${selected}"` : ''}>
<nav class="tabs" aria-label="Site sections"><ul>${sections.map(
    (section) => html`<li><a href="#${section.id}-h" data-tab="${section.id}">${section.title}</a></li>`,
  )}</ul></nav>
${sections.map(
  (section) => html`<section class="panel" id="${section.id}" aria-labelledby="${section.id}-h">\
<h2 id="${section.id}-h">${section.title}</h2>
${section.body}</section>`,
)}
</div>`;
}
