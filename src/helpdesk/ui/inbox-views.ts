// The agent inbox's pages (/desk): the ticket lists (mine, unassigned, all open, breached) and the
// frame they share, with the keyboard shortcuts panel. The ticket page is ticket-views.ts.
import type { Flash } from '../../forum/ui/admin/views.js';
import type { UiContext } from '../../forum/ui/context.js';
import { csrfField, notice, pager, time } from '../../forum/ui/layout.js';
import { html, type HtmlValue, type SafeHtml } from '../../lib/html.js';
import { slaView } from '../sla.js';
import type { ListedTicket, ListedTicketRow, TicketPriority, TicketStatus } from '../tables.js';

export type InboxView = 'mine' | 'unassigned' | 'open' | 'breached';

export const INBOX_VIEWS: ReadonlyArray<readonly [InboxView, string]> = [
  ['mine', 'Mine'],
  ['unassigned', 'Unassigned'],
  ['open', 'All open'],
  ['breached', 'Breached'],
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

const SHORTCUTS: ReadonlyArray<readonly [string, string]> = [
  ['j / k', 'Select the next / previous ticket of a list'],
  ['o', 'Open the selected ticket'],
  ['a', 'Assign the selected (or open) ticket to me'],
  ['r', 'Write a reply to the requester'],
  ['n', 'Write an internal note'],
  ['e', 'Solve the ticket'],
  ['?', 'Show or hide these shortcuts'],
  ['Esc', 'Leave a text box'],
];

/** The script of the inbox pages, in their `<head>`. */
export const INBOX_HEAD = html`<script src="/desk/assets/desk.js" defer></script>`;

/** The inbox frame: crumbs, heading, the views' tabs and the shortcuts panel. */
export function inboxFrame(
  ui: UiContext,
  current: InboxView | undefined,
  heading: HtmlValue,
  body: SafeHtml,
  flash?: Flash,
): SafeHtml {
  return html`<p class="crumbs"><a href="/">${ui.title}</a> › <a href="/desk">Help desk</a></p>
<div class="toolbar"><h1>${heading}</h1>
<details class="keys" id="desk-keys"><summary>Keyboard shortcuts <kbd>?</kbd></summary><dl>${SHORTCUTS.map(([key, what]) => html`<dt><kbd>${key}</kbd></dt><dd>${what}</dd>`)}</dl></details></div>
<nav class="tabs admin-tabs" aria-label="Ticket views"><ul>${INBOX_VIEWS.map(
    ([view, label]) =>
      html`<li><a href="/desk/${view}"${view === current ? html` aria-current="page"` : ''}>${label}</a></li>`,
  )}</ul></nav>
${flash ? notice(flash.kind, flash.text) : ''}
${body}`;
}

/** The SLA state of a ticket in a few words: breached, paused, met, or the next due time. */
export function slaSummary(ticket: ListedTicketRow, now: Date): SafeHtml {
  const sla = slaView(ticket, now);
  if (sla.breached) return html`<span class="badge late">Breached</span>`;
  if (ticket.solvedAt) return html`<span class="muted">Met</span>`;
  if (sla.paused) return html`<span class="badge">Paused</span>`;
  const due = ticket.firstResponseAt === null ? ticket.firstResponseDueAt : ticket.resolutionDueAt;
  if (!due) return html`<span class="muted">No target</span>`;
  return html`${ticket.firstResponseAt === null ? 'Reply' : 'Solve'} by ${time(due)}${sla.at_risk ? html` <span class="badge risk">At risk</span>` : ''}`;
}

interface TicketListPage {
  view: InboxView;
  rows: ListedTicket[];
  total: number;
  /** The total is the planner's estimate (a long list, src/db/count.ts). */
  estimated: boolean;
  page: number;
  totalPages: number;
  /** Agents' and admins' usernames by member id. */
  names: ReadonlyMap<string, string>;
  /** The viewing member, and whether they may take tickets (agents). */
  memberId: string;
  canTake: boolean;
  now: Date;
  flash?: Flash | undefined;
}

const EMPTY: Record<InboxView, string> = {
  mine: 'No open tickets are assigned to you.',
  unassigned: 'Every open ticket has an agent.',
  open: 'No open tickets.',
  breached: 'No open ticket has missed its SLA targets.',
};

function takeButton(ui: UiContext, ticket: ListedTicketRow, back: string): SafeHtml {
  return html`<form method="post" action="/desk/tickets/${ticket.number}/triage" data-key="a">${csrfField(ui)}<input type="hidden" name="assignee" value="me"><input type="hidden" name="back" value="${back}"><button type="submit" class="small secondary">Assign to me<span class="sr-only"> #${ticket.number}</span></button></form>`;
}

export function ticketListView(ui: UiContext, list: TicketListPage): SafeHtml {
  const label = INBOX_VIEWS.find(([view]) => view === list.view)![1];
  const back = `/desk/${list.view}${list.page > 1 ? `?page=${list.page}` : ''}`;
  const body =
    list.rows.length === 0
      ? html`<p class="muted">${EMPTY[list.view]}</p>`
      : html`<p class="muted">${list.total === 1 ? '1 ticket' : `${list.estimated ? 'About ' : ''}${list.total.toLocaleString('en')} tickets`}, latest activity first.</p>
<table class="list admin desk-list"><thead><tr><th scope="col">Ticket</th><th scope="col">Requester</th><th scope="col">Status</th><th scope="col">Priority</th><th scope="col">Assignee</th><th scope="col">SLA</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
<tbody>${list.rows.map(({ ticket, requester }) => {
          const assignee = ticket.assigneeId ? (list.names.get(ticket.assigneeId) ?? 'an agent') : undefined;
          return html`<tr data-ticket-row><td><a class="title" href="/desk/tickets/${ticket.number}" data-open data-key="o">#${ticket.number} ${ticket.subject}</a></td>
<td data-label="Requester">${requester.name ? html`${requester.name} <span class="muted">${requester.email}</span>` : requester.email}</td>
<td><span class="badge status-${ticket.status}">${STATUS_WORDS[ticket.status]}</span></td>
<td data-label="Priority"><span class="badge priority-${ticket.priority}">${PRIORITY_WORDS[ticket.priority]}</span></td>
<td data-label="Assignee">${assignee ?? html`<span class="muted">Unassigned</span>`}</td>
<td>${slaSummary(ticket, list.now)}</td>
<td>${list.canTake && ticket.assigneeId !== list.memberId ? takeButton(ui, ticket, back) : ''}</td></tr>`;
        })}</tbody></table>
${pager(list.page, list.totalPages, (page) => `/desk/${list.view}?page=${page}`)}`;
  return inboxFrame(ui, list.view, label, body, list.flash);
}
