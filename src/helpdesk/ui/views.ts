// The requester's side of the help desk on the community site: the contact form, "my tickets" and
// one ticket's public thread with a reply form. Agents work in the API (and its clients).
import { html, trustedHtml, type SafeHtml } from '../../lib/html.js';
import { csrfField, notice, time } from '../../forum/ui/layout.js';
import type { UiContext } from '../../forum/ui/context.js';
import type { ThreadEntryRow, TicketRow } from '../tables.js';

export interface ContactValues {
  name: string;
  email: string;
  subject: string;
  message: string;
}

const STATUS_WORDS: Record<TicketRow['status'], string> = {
  new: 'New',
  open: 'Open',
  pending: 'Waiting for you',
  on_hold: 'On hold',
  solved: 'Solved',
  closed: 'Closed',
};

function field(id: keyof ContactValues, label: string, type: string, value: string, extra = ''): SafeHtml {
  return html`<div><label for="${id}">${label}</label><input type="${type}" id="${id}" name="${id}" value="${value}" required${trustedHtml(extra)}></div>`;
}

export function contactView(ui: UiContext, values: ContactValues, error?: string): SafeHtml {
  const member = ui.viewer.kind === 'member' ? ui.viewer.member : undefined;
  return html`<h1>Contact support</h1>${error ? notice('error', error) : ''}
<form class="stack" method="post" action="/support">${csrfField(ui)}
${member ? html`<p>You write as <strong>${member.username}</strong>; answers go to ${member.email} and to <a href="/support/tickets">your tickets</a>.</p>` : html`${field('name', 'Your name', 'text', values.name, ' maxlength="200" autocomplete="name"')}${field('email', 'Your e-mail address', 'email', values.email, ' maxlength="254" autocomplete="email"')}`}
${field('subject', 'Subject', 'text', values.subject, ' maxlength="300"')}
<div><label for="message">How can we help?</label><textarea id="message" name="message" rows="8" maxlength="20000" required>${values.message}</textarea></div>
<div><button type="submit">Send</button></div></form>`;
}

export function sentView(ui: UiContext, ticket: TicketRow): SafeHtml {
  const member = ui.viewer.kind === 'member';
  return html`<h1>Thank you</h1>${notice('ok', html`Your request is ticket #${ticket.number}. We answer by e-mail${member ? html` and on <a href="/support/tickets/${ticket.number}">its page</a>` : ''}.`)}`;
}

export function myTicketsView(tickets: TicketRow[]): SafeHtml {
  return html`<h1>Your tickets</h1>
${
  tickets.length === 0
    ? html`<p class="muted">You have no tickets yet. <a href="/support">Contact support</a> to open one.</p>`
    : html`<table class="list"><thead><tr><th scope="col">Ticket</th><th scope="col">Status</th><th scope="col">Last change</th></tr></thead><tbody>${tickets.map(
        (ticket) =>
          html`<tr><td><a href="/support/tickets/${ticket.number}">#${ticket.number} ${ticket.subject}</a></td><td>${STATUS_WORDS[ticket.status]}</td><td>${time(ticket.updatedAt)}</td></tr>`,
      )}</tbody></table>`
}
<p><a href="/support">Contact support</a></p>`;
}

export function ticketView(ui: UiContext, ticket: TicketRow, thread: ThreadEntryRow[], error?: string): SafeHtml {
  return html`<h1>#${ticket.number} ${ticket.subject}</h1>
<p>Status: <strong>${STATUS_WORDS[ticket.status]}</strong></p>
<ol class="thread">${thread.map(
    (entry) =>
      html`<li class="post"><div class="meta">${entry.authorKind === 'agent' ? 'Support' : entry.authorId === ticket.requesterId ? 'You' : 'Another sender'} · ${time(entry.createdAt)}</div><div class="body">${trustedHtml(entry.bodyHtml)}</div></li>`,
  )}</ol>
${error ? notice('error', error) : ''}
<form class="stack" method="post" action="/support/tickets/${ticket.number}/reply">${csrfField(ui)}
<div><label for="body">Your reply</label><textarea id="body" name="body" rows="6" maxlength="20000" required></textarea></div>
<div><button type="submit">Send reply</button></div></form>
<p><a href="/support/tickets">All your tickets</a></p>`;
}
