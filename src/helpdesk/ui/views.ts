// The requester's side of the help desk on the community site: the contact form, "my tickets" and
// one ticket's public thread with its attachments and a reply form, each form with a file to attach.
// Agents work in the inbox at /desk.
import { html, trustedHtml, type SafeHtml } from '../../lib/html.js';
import { csrfField, notice, time } from '../../forum/ui/layout.js';
import type { UiContext } from '../../forum/ui/context.js';
import { ACCEPTED_UPLOADS, MAX_UPLOAD_BYTES } from '../../forum/uploads.js';
import { customerAttachments } from '../attachments.js';
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

/** The one file a form may carry: the kinds and size forum uploads allow. */
function fileField(): SafeHtml {
  return html`<div><label for="file">Attach a file <span class="muted">(optional; images, PDF, zip or text up to ${MAX_UPLOAD_BYTES / 1024 / 1024} MiB)</span></label><input type="file" id="file" name="file" accept="${ACCEPTED_UPLOADS.join(',')}"></div>`;
}

function sizeWords(bytes: number): string {
  return bytes < 1024
    ? `${bytes} bytes`
    : bytes < 1024 * 1024
      ? `${Math.ceil(bytes / 1024)} KB`
      : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function attachmentList(ticket: TicketRow, entry: ThreadEntryRow): SafeHtml {
  const files = customerAttachments(entry);
  if (files.length === 0) return html``;
  return html`<ul class="attachments" aria-label="Attachments">${files.map(
    ({ index, attachment }) =>
      html`<li><a href="/support/tickets/${ticket.number}/attachments/${entry.id}/${index}" download>${attachment.filename}</a> <span class="muted">(${sizeWords(attachment.size)})</span></li>`,
  )}</ul>`;
}

export function contactView(ui: UiContext, values: ContactValues, error?: string): SafeHtml {
  const member = ui.viewer.kind === 'member' ? ui.viewer.member : undefined;
  return html`<h1>Contact support</h1>${error ? notice('error', error) : ''}
<form class="stack" method="post" action="/support" enctype="multipart/form-data">${csrfField(ui)}
${member ? html`<p>You write as <strong>${member.username}</strong>; answers go to ${member.email} and to <a href="/support/tickets">your tickets</a>.</p>` : html`${field('name', 'Your name', 'text', values.name, ' maxlength="200" autocomplete="name"')}${field('email', 'Your e-mail address', 'email', values.email, ' maxlength="254" autocomplete="email"')}`}
${field('subject', 'Subject', 'text', values.subject, ' maxlength="300"')}
<div><label for="message">How can we help?</label><textarea id="message" name="message" rows="8" maxlength="20000" required>${values.message}</textarea></div>
${fileField()}
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

export function ticketView(
  ui: UiContext,
  ticket: TicketRow,
  thread: ThreadEntryRow[],
  mergedInto: { number: number } | undefined,
  error?: string,
): SafeHtml {
  return html`<h1>#${ticket.number} ${ticket.subject}</h1>
<p>Status: <strong>${STATUS_WORDS[ticket.status]}</strong></p>
<ol class="thread">${thread.map(
    (entry) =>
      html`<li class="post"><div class="meta">${entry.authorKind === 'agent' ? 'Support' : entry.authorId === ticket.requesterId ? 'You' : 'Another sender'} · ${time(entry.createdAt)}</div><div class="body">${trustedHtml(entry.bodyHtml)}</div>${attachmentList(ticket, entry)}</li>`,
  )}</ol>
${error ? notice('error', error) : ''}
${
  mergedInto
    ? notice(
        'warn',
        html`This request was merged into <a href="/support/tickets/${mergedInto.number}">ticket #${mergedInto.number}</a>; answer there.`,
      )
    : html`<form class="stack" method="post" action="/support/tickets/${ticket.number}/reply" enctype="multipart/form-data">${csrfField(ui)}
<div><label for="body">Your reply</label><textarea id="body" name="body" rows="6" maxlength="20000" required></textarea></div>
${fileField()}
<div><button type="submit">Send reply</button></div></form>`
}
<p><a href="/support/tickets">All your tickets</a></p>`;
}
