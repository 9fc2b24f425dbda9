// One ticket in the agent inbox (/desk/tickets/{number}): the thread with internal notes marked,
// the reply and note forms (an AI draft lands in the reply box), the SLA clock, the triage form and
// the ticket's history.
import type { Flash } from '../../forum/ui/admin/views.js';
import { selectField, textField } from '../../forum/ui/admin/fields.js';
import type { UiContext } from '../../forum/ui/context.js';
import { csrfField, notice, time } from '../../forum/ui/layout.js';
import { html, trustedHtml, type SafeHtml } from '../../lib/html.js';
import type { MailHtmlView } from '../mail/html-view.js';
import { slaView } from '../sla.js';
import {
  TICKET_PRIORITIES,
  TICKET_STATUSES,
  type CannedReplyRow,
  type CategoryRow,
  type ContactRow,
  type DraftRow,
  type HistoryRow,
  type ThreadEntryRow,
  type TicketRow,
} from '../tables.js';
import { inboxFrame, PRIORITY_WORDS, slaSummary, STATUS_WORDS } from './inbox-views.js';

/** The longest reply or note the forms take. */
export const MAX_REPLY = 20_000;

export interface TicketPage {
  ticket: TicketRow;
  requester: ContactRow;
  thread: ThreadEntryRow[];
  /** Entries beyond the ones shown. */
  moreEntries: number;
  history: HistoryRow[];
  categories: CategoryRow[];
  /** Agents of the help desk: [member id, username], the choices of the assignee. */
  agents: ReadonlyArray<readonly [string, string]>;
  /** Usernames of the members named on the page (agents, admins). */
  names: ReadonlyMap<string, string>;
  /** The viewing member; whether they may take tickets (agents); the categories they may file into (undefined: all). */
  memberId: string;
  canTake: boolean;
  servedCategories: readonly string[] | undefined;
  /** Where public replies are mailed to, or undefined when the site does not mail them. */
  mailedTo: string | undefined;
  /** Why the AI draft button cannot work here, or undefined when it can. */
  draftBlocked: string | undefined;
  draft?: DraftRow | undefined;
  /** The desk's canned replies, offered beside the reply box. */
  cannedReplies: readonly CannedReplyRow[];
  /** A canned reply filled in for this ticket, put into the reply box (`?canned=`). */
  canned?: CannedReplyRow & { filled: string };
  /** Mail entries with an HTML body, by entry id: the sanitized HTML, and whether the entry's text was trimmed. */
  mailHtml?: ReadonlyMap<string, MailHtmlView & { trimmed: boolean }>;
  now: Date;
  flash?: Flash | undefined;
  /** What was typed into a form that was refused, and the refusal beside it. */
  reply?: { text: string; error: string } | undefined;
  note?: { text: string; error: string } | undefined;
  triageError?: string | undefined;
}

function requesterName(requester: ContactRow): string {
  return requester.name ? `${requester.name} <${requester.email}>` : requester.email;
}

function memberName(page: TicketPage, id: string | null): string {
  return id ? (page.names.get(id) ?? 'a former agent') : 'an API client';
}

function entryView(page: TicketPage, entry: ThreadEntryRow): SafeHtml {
  const requester = entry.authorKind === 'requester';
  const who = requester
    ? entry.authorId === page.requester.id
      ? requesterName(page.requester)
      : 'someone copied on the mail'
    : memberName(page, entry.authorId);
  const kind = requester ? 'Requester' : entry.internal ? 'Internal note' : 'Reply';
  return html`<li class="post${entry.internal ? ' note' : ''}" id="entry-${entry.id}"><header><span class="author">${who}</span><span class="badge${entry.internal ? ' note' : ''}">${kind}</span>${entry.internal ? html`<span class="sr-only"> (never shown to the requester)</span>` : ''}<span class="meta">${time(entry.createdAt)}</span></header>
${entryBody(page, entry)}${
    entry.attachments.length > 0
      ? html`<p class="meta">Attachments: ${entry.attachments.map((a, i) => html`${i > 0 ? ', ' : ''}<a href="${attachmentUrl(page.ticket, entry, i)}">${a.filename}</a> (${Math.ceil(a.size / 1024)} KiB)`)}</p>`
      : ''
  }</li>`;
}

/** Where an entry's attachment downloads (the Help desk API, which takes the agent's session), from 0. */
export function attachmentUrl(ticket: TicketRow, entry: ThreadEntryRow, index: number): string {
  return `/api/helpdesk/v1/tickets/${ticket.number}/replies/${entry.id}/attachments/${index + 1}`;
}

/**
 * An entry's body: a mail's HTML, sanitized, in place of its text, except for a reply whose quote
 * was cut, which shows its own text with the whole HTML one click away (decision 0128).
 */
function entryBody(page: TicketPage, entry: ThreadEntryRow): SafeHtml {
  const text = html`<div class="body">${trustedHtml(entry.bodyHtml)}</div>`;
  const mail = page.mailHtml?.get(entry.id);
  if (!mail) return text;
  const remote =
    mail.blockedImages > 0
      ? html`<p class="meta"><a href="/desk/tickets/${page.ticket.number}?remote_images=${entry.id}#entry-${entry.id}">Show remote images</a> <span class="hint">${mail.blockedImages === 1 ? '1 image' : `${mail.blockedImages} images`} from other servers not loaded: loading them tells the sender the mail was read.</span></p>`
      : '';
  const shown = html`<div class="body mail-html">${trustedHtml(mail.html)}</div>`;
  if (!mail.trimmed) return html`${shown}${remote}`;
  return html`${text}<details class="mail-whole"><summary>The whole message as sent</summary>${shown}${remote}</details>`;
}

function draftControl(ui: UiContext, page: TicketPage): SafeHtml {
  if (page.draftBlocked) {
    return html`<div class="draft-ai"><button type="button" class="secondary" disabled aria-describedby="draft-why">Draft a reply with AI</button> <span class="hint" id="draft-why">${page.draftBlocked}</span></div>`;
  }
  return html`<form class="draft-ai stack wide" method="post" action="/desk/tickets/${page.ticket.number}/draft">${csrfField(ui)}
<div><label for="draft-instructions">What the reply should say <span class="hint">(optional)</span></label><input type="text" id="draft-instructions" name="instructions" maxlength="2000" aria-describedby="draft-hint"></div>
<div><button type="submit" class="secondary">Draft a reply with AI</button> <span class="hint" id="draft-hint">The draft lands in the reply box for you to edit; nothing is sent until you send it.</span></div></form>`;
}

/**
 * The canned replies to insert: without script the form asks for the page with the snippet filled
 * into the reply box (what was typed there is replaced); the inbox script inserts it where the
 * cursor is instead, keeping what was typed.
 */
function cannedControl(page: TicketPage): SafeHtml {
  if (page.cannedReplies.length === 0) return html``;
  return html`<form class="inline canned-insert" method="get" action="/desk/tickets/${page.ticket.number}#reply" data-canned="${page.ticket.number}">
<label for="canned-pick">Canned reply</label><select id="canned-pick" name="canned">${page.cannedReplies.map((reply) => html`<option value="${reply.id}"${reply.id === page.canned?.id ? ' selected' : ''}>${reply.name}</option>`)}</select>
<button type="submit" class="small secondary">Insert into the reply</button></form>
${page.canned ? html`<p class="hint" role="status">“${page.canned.name}” is in the reply box, filled in for this ticket: read it before you send it.</p>` : ''}`;
}

function replyForms(ui: UiContext, page: TicketPage): SafeHtml {
  const number = page.ticket.number;
  const draft = page.draft;
  const replyText = page.reply?.text ?? page.canned?.filled ?? draft?.body ?? '';
  const goesTo = page.mailedTo
    ? `E-mailed to ${page.mailedTo}, and shown on the requester's ticket page.`
    : "Shown on the requester's ticket page; not e-mailed: this help desk has no support address or mail server.";
  return html`<section class="panel" id="reply" aria-labelledby="reply-heading"><h2 id="reply-heading">Reply to the requester</h2>
${draft ? notice('warn', html`An AI draft (${draft.model}) is in the reply box: read and edit it before you send it. It is not sent on its own.`) : ''}
${page.reply ? notice('error', page.reply.error) : ''}
<form class="stack wide" method="post" action="/desk/tickets/${number}/replies" data-key="r">${csrfField(ui)}<input type="hidden" name="internal" value="false">
<div><label for="reply-body">Reply</label><textarea id="reply-body" name="body" rows="8" maxlength="${MAX_REPLY}" required aria-describedby="reply-hint">${replyText}</textarea><span class="hint" id="reply-hint">Markdown. ${goesTo}</span></div>
<div><button type="submit">Send reply</button></div></form>
${cannedControl(page)}
${draftControl(ui, page)}</section>
<section class="panel note" id="note" aria-labelledby="note-heading"><h2 id="note-heading">Internal note</h2>
${page.note ? notice('error', page.note.error) : ''}
<form class="stack wide" method="post" action="/desk/tickets/${number}/replies" data-key="n">${csrfField(ui)}<input type="hidden" name="internal" value="true">
<div><label for="note-body">Note for agents</label><textarea id="note-body" name="body" rows="4" maxlength="${MAX_REPLY}" required aria-describedby="note-hint">${page.note?.text ?? ''}</textarea><span class="hint" id="note-hint">Agents only: never shown to the requester or e-mailed.</span></div>
<div><button type="submit" class="secondary">Add note</button></div></form></section>`;
}

function slaPanel(page: TicketPage): SafeHtml {
  const ticket = page.ticket;
  const sla = slaView(ticket, page.now);
  const target = (label: string, due: Date | null, done: Date | null, doneWord: string): SafeHtml =>
    html`<dt>${label}</dt><dd>${done ? html`${doneWord} ${time(done)}` : due ? html`due ${time(due)}` : 'no target'}${done && due ? html`<br><span class="muted">target ${time(due)}</span>` : ''}</dd>`;
  return html`<section class="panel" aria-labelledby="sla-heading"><h2 id="sla-heading">SLA clock</h2>
<p>${slaSummary(ticket, page.now)}${sla.paused && ticket.slaPausedAt ? html` <span class="muted">since ${time(ticket.slaPausedAt)}: the clock stops while the ticket is pending or on hold, and the due times move on by the pause.</span>` : ''}</p>
<dl class="facts">${target('First response', ticket.firstResponseDueAt, ticket.firstResponseAt, 'answered')}${target('Resolution', ticket.resolutionDueAt, ticket.solvedAt, 'solved')}</dl></section>`;
}

function triagePanel(ui: UiContext, page: TicketPage): SafeHtml {
  const ticket = page.ticket;
  const categories = page.categories.filter(
    (c) => page.servedCategories === undefined || page.servedCategories.includes(c.id) || c.id === ticket.categoryId,
  );
  const agents =
    ticket.assigneeId && !page.agents.some(([id]) => id === ticket.assigneeId)
      ? [...page.agents, [ticket.assigneeId, memberName(page, ticket.assigneeId)] as const]
      : page.agents;
  const action = `/desk/tickets/${ticket.number}/triage`;
  const quick = (key: string, fieldName: string, value: string, label: string): SafeHtml =>
    html`<form method="post" action="${action}" data-key="${key}">${csrfField(ui)}<input type="hidden" name="${fieldName}" value="${value}"><button type="submit" class="small secondary">${label} <kbd aria-hidden="true">${key}</kbd></button></form>`;
  return html`<section class="panel" aria-labelledby="triage-heading"><h2 id="triage-heading">Triage</h2>
${page.triageError ? notice('error', page.triageError) : ''}
<form class="stack" method="post" action="${action}">${csrfField(ui)}
${selectField(
  'status',
  'Status',
  ticket.status,
  TICKET_STATUSES.map((s) => [s, STATUS_WORDS[s]] as const),
)}
${selectField(
  'priority',
  'Priority',
  ticket.priority,
  TICKET_PRIORITIES.map((p) => [p, PRIORITY_WORDS[p]] as const),
)}
${selectField('category', 'Category', ticket.categoryId ?? 'none', [['none', 'No category'], ...categories.map((c) => [c.id, c.name] as const)])}
${selectField('assignee', 'Assignee', ticket.assigneeId ?? 'none', [['none', 'Unassigned'], ...agents])}
${textField('tags', 'Tags', ticket.tags.join(', '), 'text', { maxlength: 1100, hint: 'Separated by commas.' })}
<div><button type="submit">Save</button></div></form>
<div class="actions">${page.canTake && ticket.assigneeId !== page.memberId ? quick('a', 'assignee', 'me', 'Assign to me') : ''}${ticket.status !== 'solved' && ticket.status !== 'closed' ? quick('e', 'status', 'solved', 'Solve') : ''}</div></section>`;
}

function historyWords(page: TicketPage, row: HistoryRow): string {
  const category = (id: unknown) =>
    typeof id === 'string' ? (page.categories.find((c) => c.id === id)?.name ?? 'a deleted category') : 'no category';
  const status = (s: unknown) => STATUS_WORDS[s as TicketRow['status']] ?? String(s);
  const priority = (p: unknown) => PRIORITY_WORDS[p as TicketRow['priority']] ?? String(p);
  const agent = (id: unknown) => (typeof id === 'string' ? memberName(page, id) : 'nobody');
  const tags = (list: unknown) => (Array.isArray(list) && list.length > 0 ? list.join(', ') : 'none');
  const to = (row.toValue ?? {}) as Record<string, unknown>;
  switch (row.event) {
    case 'created':
      return row.fromValue ? 'opened this ticket as a follow-up' : `opened the ticket (${String(to.channel ?? 'web')})`;
    case 'status':
      return `changed the status from ${status(row.fromValue)} to ${status(row.toValue)}`;
    case 'priority':
      return `changed the priority from ${priority(row.fromValue)} to ${priority(row.toValue)}`;
    case 'category':
      return `moved it from ${category(row.fromValue)} to ${category(row.toValue)}`;
    case 'assignee':
      return `assigned it to ${agent(row.toValue)}${row.fromValue ? ` (was ${agent(row.fromValue)})` : ''}`;
    case 'tags':
      return `set the tags to ${tags(row.toValue)}`;
    case 'reply':
      return to.automated ? `sent an automatic reply (${String(to.automated)})` : 'replied';
    case 'note':
      return 'added an internal note';
    case 'draft':
      return `asked for an AI draft (${String(to.model ?? 'AI')})`;
    case 'reopened':
      return `reopened it (was ${status(row.fromValue)})`;
    case 'follow_up':
      return `answered after it was closed: follow-up #${String(to.number ?? '')}`;
    case 'merged':
      return `merged it into #${String(to.number ?? '')}`;
    case 'merged_in': {
      const tickets = Array.isArray(to.tickets) ? (to.tickets as Array<{ number: number }>) : [];
      return `merged ${tickets.map((t) => `#${t.number}`).join(', ')} into it`;
    }
    case 'undelivered':
      return `could not deliver a reply to ${String(to.recipient ?? 'the requester')}${to.status ? ` (${String(to.status)})` : ''}`;
  }
}

function actorName(page: TicketPage, row: HistoryRow): string {
  switch (row.actorKind) {
    case 'member':
      return memberName(page, row.actorId);
    case 'requester':
      return row.actorId === page.requester.id ? requesterName(page.requester) : 'the requester';
    case 'account':
      return 'The site owner';
    case 'api_key':
      return 'An API key';
    case 'system':
      return 'Blume';
  }
}

export function ticketView(ui: UiContext, page: TicketPage): SafeHtml {
  const ticket = page.ticket;
  const heading = html`#${ticket.number} ${ticket.subject}`;
  const body = html`<p class="meta">From <strong>${requesterName(page.requester)}</strong> by ${ticket.channel === 'email' ? 'e-mail' : ticket.channel === 'api' ? 'the API' : 'the contact form'}, opened ${time(ticket.createdAt)} · <span class="badge status-${ticket.status}">${STATUS_WORDS[ticket.status]}</span> <span class="badge priority-${ticket.priority}">${PRIORITY_WORDS[ticket.priority]} priority</span>${ticket.tags.length > 0 ? html` · tags: ${ticket.tags.join(', ')}` : ''}</p>
<div class="desk-ticket">
<div class="desk-main">
<section aria-labelledby="thread-heading"><h2 id="thread-heading">Thread</h2>
<ol class="thread">${page.thread.map((entry) => entryView(page, entry))}</ol>
${page.moreEntries > 0 ? html`<p class="muted">${page.moreEntries} later entries are not shown; read them through the API.</p>` : ''}</section>
${replyForms(ui, page)}
</div>
<div class="desk-side">
${slaPanel(page)}
${triagePanel(ui, page)}
<section class="panel" aria-labelledby="history-heading"><h2 id="history-heading">History</h2>
<ol class="history">${page.history.map((row) => html`<li>${time(row.createdAt)} <strong>${actorName(page, row)}</strong> ${historyWords(page, row)}</li>`)}</ol></section>
</div>
</div>`;
  return inboxFrame(ui, undefined, heading, body, page.flash);
}
