// The agent inbox's pages (/desk): the ticket lists (fixed views, search, saved views) with their
// filter form, bulk changes and the frame they share, with the keyboard shortcuts panel. The ticket
// page is ticket-views.ts.
import type { Flash } from '../../forum/ui/admin/views.js';
import { isAdmin } from '../../forum/policy.js';
import type { UiContext } from '../../forum/ui/context.js';
import { csrfField, notice, pager, time } from '../../forum/ui/layout.js';
import { html, type HtmlValue, type SafeHtml } from '../../lib/html.js';
import { slaView } from '../sla.js';
import {
  TICKET_PRIORITIES,
  TICKET_STATUSES,
  type CategoryRow,
  type ListedTicket,
  type ListedTicketRow,
  type SavedViewRow,
  type TicketPriority,
  type TicketStatus,
} from '../tables.js';
import type { ListFilters } from './list-filters.js';

export type InboxView = 'mine' | 'unassigned' | 'open' | 'breached' | 'solved' | 'closed' | 'search';

export const INBOX_VIEWS: ReadonlyArray<readonly [InboxView, string]> = [
  ['mine', 'Mine'],
  ['unassigned', 'Unassigned'],
  ['open', 'All open'],
  ['breached', 'Breached'],
  ['solved', 'Solved'],
  ['closed', 'Closed'],
  ['search', 'Search'],
];

export const STATUS_WORDS: Record<TicketStatus, string> = {
  new: 'New',
  open: 'Open',
  pending: 'Pending',
  on_hold: 'On hold',
  solved: 'Solved',
  closed: 'Closed',
};

export const PRIORITY_WORDS: Record<TicketPriority, string> = {
  low: 'Low',
  normal: 'Normal',
  high: 'High',
  urgent: 'Urgent',
};

/** The list's orders, as the filter form offers them. */
const SORT_WORDS: ReadonlyArray<readonly [string, string]> = [
  ['sla_due', 'SLA due first'],
  ['-updated_at', 'Latest activity first'],
  ['updated_at', 'Oldest activity first'],
  ['-created_at', 'Newest first'],
  ['created_at', 'Oldest first'],
  ['-priority', 'Highest priority first'],
  ['-number', 'Highest number first'],
];

const SHORTCUTS: ReadonlyArray<readonly [string, string]> = [
  ['j / k', 'Select the next / previous ticket of a list'],
  ['o', 'Open the selected ticket'],
  ['a', 'Assign the selected (or open) ticket to me'],
  ['x', 'Tick the selected ticket for a bulk change'],
  ['/', 'Search tickets'],
  ['r', 'Write a reply to the requester'],
  ['n', 'Write an internal note'],
  ['e', 'Solve the ticket'],
  ['?', 'Show or hide these shortcuts'],
  ['Esc', 'Leave a text box'],
];

/** The desk's pages beside its ticket views, for admins of the help desk (policy.ts): reports and settings. */
const DESK_PAGES: ReadonlyArray<readonly [string, string]> = [
  ['reports', 'Reports'],
  ['admin', 'Settings'],
];

/** The script of the inbox pages, in their `<head>`. */
export const INBOX_HEAD = html`<script src="/desk/assets/desk.js" defer></script>`;

/** The inbox frame: crumbs, heading, the views' tabs, the agent's saved views and the shortcuts panel. */
export function inboxFrame(
  ui: UiContext,
  current: InboxView | string | undefined,
  heading: HtmlValue,
  body: SafeHtml,
  flash?: Flash,
  savedViews: readonly SavedViewRow[] = [],
): SafeHtml {
  const tab = (href: string, label: string, here: boolean) =>
    html`<li><a href="${href}"${here ? html` aria-current="page"` : ''}>${label}</a></li>`;
  return html`<p class="crumbs"><a href="/">${ui.title}</a> › <a href="/desk">Help desk</a></p>
<div class="toolbar"><h1>${heading}</h1>
<details class="keys" id="desk-keys"><summary>Keyboard shortcuts <kbd>?</kbd></summary><dl>${SHORTCUTS.map(([key, what]) => html`<dt><kbd>${key}</kbd></dt><dd>${what}</dd>`)}</dl></details></div>
<nav class="tabs admin-tabs" aria-label="Ticket views"><ul>${INBOX_VIEWS.map(([view, label]) => tab(`/desk/${view}`, label, view === current))}${
    // Community admins are the help desk's admins (memberCaller, access.ts).
    isAdmin(ui.viewer)
      ? DESK_PAGES.map(([page, label]) =>
          tab(`/desk/${page}`, label, current === page || current?.startsWith(`${page}/`) === true),
        )
      : ''
  }</ul></nav>
${
  savedViews.length > 0
    ? html`<nav class="tabs saved-views" aria-label="Your saved views"><span class="muted">Your views:</span><ul>${savedViews.map((view) => tab(`/desk/views/${view.id}`, view.name, `views/${view.id}` === current))}</ul></nav>`
    : ''
}
${flash ? notice(flash.kind, flash.text) : ''}
${body}`;
}

/** A span of time in round words: "45 min", "2 h", "3 d". */
function spanWords(ms: number): string {
  const minutes = Math.max(1, Math.round(Math.abs(ms) / 60_000));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h`;
  return `${Math.round(hours / 24)} d`;
}

/** The due time a breached ticket missed first: the first response's if that one was late, else the resolution's. */
function missedDue(ticket: ListedTicketRow, now: Date): Date | null {
  const clock = (done: Date | null) => (done ?? ticket.slaPausedAt ?? now).getTime();
  if (ticket.firstResponseDueAt && clock(ticket.firstResponseAt) > ticket.firstResponseDueAt.getTime())
    return ticket.firstResponseDueAt;
  return ticket.resolutionDueAt;
}

/**
 * The SLA state of a ticket in a few words, relative to now with the exact time beside it:
 * "Breached 3 h ago", "Reply due in 2 h", paused, met or missed once solved.
 */
export function slaSummary(ticket: ListedTicketRow, now: Date): SafeHtml {
  const sla = slaView(ticket, now);
  const exact = (at: Date) => html` <span class="muted exact">${time(at)}</span>`;
  if (ticket.solvedAt)
    return sla.breached ? html`<span class="badge late">Missed</span>` : html`<span class="muted">Met</span>`;
  if (sla.breached) {
    const missed = missedDue(ticket, now);
    return html`<span class="badge late">Breached</span>${missed ? html` <span class="sla-when">${spanWords(now.getTime() - missed.getTime())} ago</span>${exact(missed)}` : ''}`;
  }
  if (sla.paused) return html`<span class="badge">Paused</span>`;
  const replying = ticket.firstResponseAt === null && ticket.firstResponseDueAt !== null;
  const due = replying ? ticket.firstResponseDueAt : ticket.resolutionDueAt;
  if (!due) return html`<span class="muted">No target</span>`;
  return html`<span class="sla-when">${replying ? 'Reply' : 'Solve'} due in ${spanWords(due.getTime() - now.getTime())}</span>${sla.at_risk ? html` <span class="badge risk">At risk</span>` : ''}${exact(due)}`;
}

function priorityBadge(priority: TicketPriority): SafeHtml {
  return html`<span class="badge priority priority-${priority}">${PRIORITY_WORDS[priority]}</span>`;
}

interface TicketListPage {
  /** The fixed view, or `views/<id>` of a saved view. */
  current: InboxView | string;
  heading: string;
  /** The list's path: links and forms go back to it. */
  path: string;
  /** The filters as the agent set them in the form (over the view's own). */
  filters: ListFilters;
  /** The view's own filters and order, what an empty form field means. */
  base: ListFilters;
  rows: ListedTicket[];
  total: number;
  /** The total is the planner's estimate (a long list, src/db/count.ts). */
  estimated: boolean;
  page: number;
  totalPages: number;
  /** Agents' and admins' usernames by member id, and the agents in the order of the assignee menus. */
  names: ReadonlyMap<string, string>;
  agents: ReadonlyArray<readonly [string, string]>;
  categories: readonly CategoryRow[];
  savedViews: readonly SavedViewRow[];
  /** The viewing member, and whether they may take tickets (agents). */
  memberId: string;
  canTake: boolean;
  now: Date;
  empty: string;
  flash?: Flash | undefined;
  /** A refused filter or saved view, in words. */
  error?: string | undefined;
  /** The error is about the filters, which found nothing. */
  filterError?: boolean | undefined;
  savedView?: SavedViewRow | undefined;
  saveName?: string | undefined;
}

function takeButton(ui: UiContext, ticket: ListedTicketRow, back: string): SafeHtml {
  return html`<form method="post" action="/desk/tickets/${ticket.number}/triage" data-key="a">${csrfField(ui)}<input type="hidden" name="assignee" value="me"><input type="hidden" name="back" value="${back}"><button type="submit" class="small secondary">Assign to me<span class="sr-only"> #${ticket.number}</span></button></form>`;
}

/** A querystring of the filters, with `extra` after them. */
function queryOf(filters: ListFilters, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams({ ...filters, ...extra });
  const text = params.toString();
  return text ? `?${text}` : '';
}

function options(
  current: string | undefined,
  first: string,
  choices: ReadonlyArray<readonly [string, string]>,
): SafeHtml {
  return html`<option value="">${first}</option>${choices.map(
    ([value, label]) => html`<option value="${value}"${value === current ? ' selected' : ''}>${label}</option>`,
  )}`;
}

/** What an empty field of the form means on this view. */
function defaultWord(base: string | undefined, any: string, words: Record<string, string>): string {
  if (!base) return any;
  return words[base] ?? (base.includes(',') ? 'Open work' : base);
}

function filterForm(list: TicketListPage): SafeHtml {
  const f = list.filters;
  const b = list.base;
  const agentChoices: Array<readonly [string, string]> = [['me', 'Me'], ['none', 'Unassigned'], ...list.agents];
  const select = (name: keyof ListFilters, label: string, body: SafeHtml) =>
    html`<div><label for="filter-${name}">${label}</label><select id="filter-${name}" name="${name}">${body}</select></div>`;
  const input = (name: keyof ListFilters, label: string, type: string, extra = '') =>
    html`<div><label for="filter-${name}">${label}</label><input type="${type}" id="filter-${name}" name="${name}" value="${f[name] ?? ''}"${extra ? html` ${extra}` : ''}></div>`;
  const set = Object.keys(f).filter((name) => name !== 'q' && name !== 'sort').length;
  return html`<form class="desk-filters" method="get" action="${list.path}" role="search" aria-label="Search and filter tickets">
<div class="q" data-key="/"><label for="filter-q">Search tickets</label><div class="row"><input type="search" id="filter-q" name="q" value="${f.q ?? ''}" maxlength="200" placeholder="Words in the subject or thread"><button type="submit">Find</button></div></div>
<details class="filters"${set > 0 || (f.sort && f.sort !== b.sort) ? ' open' : ''}><summary>Filters and order${set > 0 ? ` (${set} set)` : ''}</summary><div class="grid">
${select(
  'status',
  'Status',
  options(
    f.status,
    defaultWord(b.status, 'Any status', STATUS_WORDS),
    TICKET_STATUSES.map((s) => [s, STATUS_WORDS[s]] as const),
  ),
)}
${select('priority', 'Priority', options(f.priority, defaultWord(b.priority, 'Any priority', PRIORITY_WORDS), TICKET_PRIORITIES.map((p) => [p, PRIORITY_WORDS[p]] as const).reverse()))}
${select('category', 'Category', options(f.category, 'Any category', [['none', 'No category'], ...list.categories.map((c) => [c.id, c.name] as const)]))}
${select('assignee', 'Assignee', options(f.assignee, defaultWord(b.assignee, 'Anyone or nobody', { me: 'Me', none: 'Unassigned' }), agentChoices))}
${input('requester', 'Requester e-mail', 'text', 'maxlength="254"')}
${input('tag', 'Tag', 'text', 'maxlength="50"')}
${select(
  'sla',
  'SLA',
  options(f.sla, defaultWord(b.sla, 'Any SLA state', { breached: 'Breached' }), [
    ['breached', 'Breached'],
    ['at_risk', 'At risk'],
  ]),
)}
${input('created_after', 'Opened on or after', 'date')}
${input('created_before', 'Opened before', 'date')}
${select('sort', 'Order', html`${SORT_WORDS.map(([value, label]) => html`<option value="${value}"${value === (f.sort ?? b.sort ?? '-updated_at') ? ' selected' : ''}>${label}</option>`)}`)}
<div class="apply"><button type="submit">Apply filters</button> <a href="${list.path}">Clear</a></div>
</div></details></form>`;
}

function bulkForm(ui: UiContext, list: TicketListPage, back: string): SafeHtml {
  const agentChoices: Array<readonly [string, string]> = [['me', 'Me'], ['none', 'Nobody (unassign)'], ...list.agents];
  const select = (name: string, label: string, body: SafeHtml) =>
    html`<div><label for="bulk-${name}">${label}</label><select id="bulk-${name}" name="${name}">${body}</select></div>`;
  return html`<form id="bulk" class="desk-bulk" method="post" action="/desk/bulk">${csrfField(ui)}<input type="hidden" name="back" value="${back}">
<fieldset><legend>Change the ticked tickets</legend>
${select('assignee', 'Assign to', options(undefined, 'No change', agentChoices))}
${select(
  'status',
  'Set status',
  options(
    undefined,
    'No change',
    TICKET_STATUSES.map((s) => [s, STATUS_WORDS[s]] as const),
  ),
)}
${select('priority', 'Set priority', options(undefined, 'No change', TICKET_PRIORITIES.map((p) => [p, PRIORITY_WORDS[p]] as const).reverse()))}
<div><label for="bulk-tag">Add tag</label><input type="text" id="bulk-tag" name="tag" maxlength="50"></div>
<div class="apply"><button type="submit" class="secondary">Apply to ticked</button></div></fieldset>
<fieldset><legend>Merge the ticked tickets</legend>
<div><label for="bulk-merge-into">Into ticket number</label><input type="text" id="bulk-merge-into" name="merge_into" inputmode="numeric" pattern="#?[0-9]{1,9}" maxlength="10" aria-describedby="bulk-merge-hint"></div>
<p class="muted" id="bulk-merge-hint">Empty: into the oldest ticked ticket. Their messages move there; the others are closed.</p>
<div class="apply"><button type="submit" class="secondary" name="intent" value="merge">Merge ticked</button></div></fieldset></form>`;
}

function saveForm(ui: UiContext, list: TicketListPage): SafeHtml {
  if (list.savedView) {
    return html`<form class="inline saved-view" method="post" action="/desk/views/${list.savedView.id}/delete">${csrfField(ui)}<button type="submit" class="small danger">Delete the view “${list.savedView.name}”</button></form>`;
  }
  const query = new URLSearchParams({ ...list.base, ...list.filters }).toString();
  return html`<details class="save-view"${list.saveName !== undefined ? ' open' : ''}><summary>Save this list as a view</summary>
<form class="inline" method="post" action="/desk/views">${csrfField(ui)}<input type="hidden" name="query" value="${query}"><label for="view-name" class="sr-only">Name of the view</label><input type="text" id="view-name" name="name" maxlength="60" required placeholder="Name of the view" value="${list.saveName ?? ''}"><button type="submit" class="small">Save view</button></form></details>`;
}

function ticketRow(ui: UiContext, list: TicketListPage, listed: ListedTicket, back: string): SafeHtml {
  const { ticket, requester } = listed;
  const assignee = ticket.assigneeId ? (list.names.get(ticket.assigneeId) ?? 'an agent') : undefined;
  const who = requester.name ?? requester.email;
  return html`<tr data-ticket-row><td class="pick"><input type="checkbox" form="bulk" name="ticket-${ticket.number}" value="${ticket.number}" id="pick-${ticket.number}" data-key="x" aria-label="Tick #${ticket.number} for a bulk change"></td>
<td class="subject"><a class="title" href="/desk/tickets/${ticket.number}" title="${ticket.subject}" data-open data-key="o">#${ticket.number} ${ticket.subject}</a></td>
<td class="requester" data-label="Requester"><span title="${requester.email}">${who}</span></td>
<td data-label="Status"><span class="badge status-${ticket.status}">${STATUS_WORDS[ticket.status]}</span></td>
<td data-label="Priority">${priorityBadge(ticket.priority)}</td>
<td data-label="Assignee">${assignee ?? html`<span class="muted">Unassigned</span>`}</td>
<td class="sla" data-label="SLA">${slaSummary(ticket, list.now)}</td>
<td>${list.canTake && ticket.assigneeId !== list.memberId ? takeButton(ui, ticket, back) : ''}</td></tr>`;
}

export function ticketListView(ui: UiContext, list: TicketListPage): SafeHtml {
  const pageExtra: Record<string, string> = list.page > 1 ? { page: String(list.page) } : {};
  const back = `${list.path}${queryOf(list.filters, pageExtra)}`;
  const order = SORT_WORDS.find(([value]) => value === (list.filters.sort ?? list.base.sort))?.[1] ?? '';
  const count =
    list.total === 1 ? '1 ticket' : `${list.estimated ? 'About ' : ''}${list.total.toLocaleString('en')} tickets`;
  const table =
    list.rows.length === 0
      ? html`<p class="muted">${list.filterError ? 'No tickets: the filters above need a change.' : list.empty}</p>`
      : html`${bulkForm(ui, list, back)}
<table class="list admin desk-list"><caption class="sr-only">Tickets</caption><thead><tr><th scope="col"><span class="sr-only">Tick</span></th><th scope="col">Ticket</th><th scope="col">Requester</th><th scope="col">Status</th><th scope="col">Priority</th><th scope="col">Assignee</th><th scope="col">SLA</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
<tbody>${list.rows.map((row) => ticketRow(ui, list, row, back))}</tbody></table>
${pager(list.page, list.totalPages, (page) => `${list.path}${queryOf(list.filters, page > 1 ? { page: String(page) } : {})}`)}`;
  const body = html`${filterForm(list)}
${list.error ? notice('error', list.error) : ''}
<div class="list-head"><p class="muted" role="status">${list.rows.length === 0 ? '' : html`${count} · ${order}`}</p>${saveForm(ui, list)}</div>
${table}`;
  return inboxFrame(ui, list.current, list.heading, body, list.flash, list.savedViews);
}
