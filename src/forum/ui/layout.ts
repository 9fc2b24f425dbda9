// The page frame every forum page shares: skip link, header with the community's name, Latest,
// notifications (with the unread count), the flag queue and the help desk inbox (agents and admins), Support (the customer portal, on a plan with the help desk), search and account
// links, one `main` landmark, and a footer with the feed.
import { BADGE_LIMIT } from '../notifications.js';
import { isStaff } from '../policy.js';
import type { UiContext } from './context.js';
import type { ForumModActionRow } from '../tables.js';
import { html, type HtmlValue, type SafeHtml } from '../../lib/html.js';
import { relativeTimeText } from '../../lib/relative-time.js';

export interface PageOptions {
  title: string;
  body: SafeHtml;
  /** Extra `<link>` elements, e.g. a forum's own feed. */
  head?: SafeHtml;
  /** Keep pages with personal or secret content out of caches. */
  private?: boolean;
  /** The search page, whose own form is the search: the header then has none (one search landmark). */
  searchPage?: boolean;
  /** Load the forum script for guests too (members always get it): the page has code to copy. */
  scripts?: boolean;
}

/** The hidden CSRF field of every form. */
export function csrfField(ui: UiContext): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${ui.csrf}">`;
}

export function postButton(
  ui: UiContext,
  action: string,
  label: string,
  fields: Record<string, string> = {},
  className = 'link',
): SafeHtml {
  return html`<form method="post" action="${action}">${csrfField(ui)}${Object.entries(fields).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`,
  )}<button type="submit" class="${className}">${label}</button></form>`;
}

/** An unread count as the badge says it: past BADGE_LIMIT, "99+" (the count stops there). */
export function unreadWords(unread: number): string {
  return unread > BADGE_LIMIT ? `${BADGE_LIMIT}+` : String(unread);
}

export function notice(kind: 'error' | 'ok' | 'warn', text: HtmlValue): SafeHtml {
  return html`<p class="notice ${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${text}</p>`;
}

/** The minute of an ISO 8601 time, as people read it: "2026-11-26 20:53 UTC". */
function exactTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

export function time(date: Date): SafeHtml {
  const iso = date.toISOString();
  return html`<time datetime="${iso}">${exactTime(iso)}</time>`;
}

const COMPACT = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });

/** A count as a topic list shows it: "999", then "1.2k", "12.3k", "3.4m", with the exact number on hover. */
export function compactCount(count: number): SafeHtml {
  if (count < 1000) return html`${count}`;
  return html`<abbr title="${count.toLocaleString('en')}">${COMPACT.format(count).toLowerCase()}</abbr>`;
}

/** "3 hours ago", with the exact time in the element's title (hover) and `datetime`; no script. */
export function relativeTime(date: Date, now = new Date()): SafeHtml {
  const iso = date.toISOString();
  return html`<time datetime="${iso}" title="${exactTime(iso)}">${relativeTimeText(date, now)}</time>`;
}

/** The warnings a member has not acknowledged, on top of every page. */
function warningBanner(ui: UiContext, warnings: ForumModActionRow[]): SafeHtml {
  return html`${warnings.map(
    (warning) =>
      html`<div class="notice warn" role="alert"><p>\
<strong>A moderator warned you</strong> ${relativeTime(warning.createdAt)}: ${warning.reason ?? ''}</p>${postButton(
        ui,
        `/warnings/${warning.id}/acknowledge`,
        'I understand',
        {},
        'secondary small',
      )}</div>`,
  )}`;
}

/** Shown on every page to a member who may not post until the address is confirmed. */
function unconfirmedBanner(ui: UiContext, email: string): SafeHtml {
  return html`<div class="notice warn" role="status">\
<p>Confirm your e-mail address to post: we sent a link to ${email}.</p>${postButton(
    ui,
    '/account/confirm/resend',
    'Send it again',
  )}</div>`;
}

export function layout(ui: UiContext, page: PageOptions): string {
  const viewer = ui.viewer;
  const account =
    viewer.kind === 'member'
      ? html`${viewer.role === 'admin' ? html`<li><a href="/admin">Admin</a></li>` : ''}${
          ui.contentLink ? html`<li><a href="/admin/content">Content</a></li>` : ''
        }<li><a href="/account">${viewer.member.username}</a></li><li>${postButton(ui, '/logout', 'Log out')}</li>`
      : html`<li><a href="/login">Log in</a></li>${
          ui.registrationOpen ? html`<li><a href="/signup">Sign up</a></li>` : ''
        }`;
  const unread = ui.unreadNotifications ?? 0;
  const forumLinks = html`<li><a href="/latest">Latest</a></li>${
    viewer.kind === 'member'
      ? html`<li><a href="/notifications">Notifications${
          unread > 0 ? html` <span class="count">${unreadWords(unread)}<span class="sr-only"> unread</span></span>` : ''
        }</a></li>`
      : ''
  }${isStaff(viewer) ? html`<li><a href="/mod/flags">Flags</a></li>` : ''}${
    // Agents and admins get the help desk; everyone else the customer portal.
    ui.deskLink
      ? html`<li><a href="/desk">Help desk</a></li>`
      : ui.supportLink
        ? html`<li><a href="/support">Support</a></li>`
        : ''
  }`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title === ui.title ? ui.title : `${page.title} · ${ui.title}`}</title>
<link rel="stylesheet" href="/assets/forum.css">
<link rel="alternate" type="application/atom+xml" title="${ui.title}: recent topics" href="/feed.atom">
${page.head ?? ''}
${viewer.kind === 'member' || page.scripts ? html`<script src="/assets/forum.js" defer></script>` : ''}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="site">
<div class="wrap">
<a class="brand" href="/">${ui.title}</a>
<nav class="forum-links" aria-label="Forum"><ul>${forumLinks}</ul></nav>
${
  page.searchPage
    ? ''
    : html`<form class="search" role="search" aria-label="Forum" method="get" action="/search">\
<label class="sr-only" for="site-search">Search the forum</label>\
<input type="search" id="site-search" name="q" placeholder="Search" maxlength="200">\
<button type="submit" class="secondary">Search</button></form>`
}
<nav class="account-links" aria-label="Account"><ul>${account}</ul></nav>
</div>
</header>
<main id="main" class="wrap" tabindex="-1">
${viewer.kind === 'member' && !viewer.member.emailConfirmed ? unconfirmedBanner(ui, viewer.member.email) : ''}
${ui.warnings?.length ? warningBanner(ui, ui.warnings) : ''}
${page.body}
</main>
<footer class="site"><div class="wrap">${ui.title} · \
<a href="/feed.atom">Atom feed</a> · Powered by Blume</div></footer>
</body>
</html>
`.value;
}

/** Previous / next links of a paged list; `href` builds the URL of a page. */
export function pager(page: number, totalPages: number, href: (page: number) => string): SafeHtml {
  if (totalPages <= 1) return html``;
  return html`<nav class="pager" aria-label="Pages">
<span>${page > 1 ? html`<a rel="prev" href="${href(page - 1)}">← Previous</a>` : ''}</span>
<span class="muted">Page ${page} of ${totalPages}</span>
<span>${page < totalPages ? html`<a rel="next" href="${href(page + 1)}">Next →</a>` : ''}</span>
</nav>`;
}
