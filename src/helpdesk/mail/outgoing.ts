// An agent's public reply by e-mail: the entry and its mail are written in one transaction, the mail
// as a job of the outbox (src/forum/mail/outbox.ts) that sends after commit and retries. The mail
// comes from the support address with its own Message-ID (stored on the entry), In-Reply-To and
// References of the thread, and the ticket's signed Reply-To, so the requester's answer threads
// back whichever of them their client keeps. Internal notes are never mailed.
import type { Executor } from '../../db/client.js';
import { enqueueMail } from '../../forum/mail/outbox.js';
import { AppError } from '../../http/errors.js';
import { randomAlnum } from '../../lib/ids.js';
import type { Actor } from '../history.js';
import type { TicketRow } from '../tables.js';
import { addEntry, findContact, threadMessageIds, type TicketWrite } from '../tickets.js';
import { replyAddress } from './reply-address.js';

export interface ReplyMailSettings {
  /** HELPDESK_SUPPORT_ADDRESS */
  supportAddress: string;
  /** Display name of the sender: the community's title. */
  senderName: string;
  secretKey: string;
}

function subjectLine(ticket: TicketRow): string {
  const tag = `[#${ticket.number}]`;
  return ticket.subject.includes(tag) ? `Re: ${ticket.subject}` : `Re: ${tag} ${ticket.subject}`;
}

function quotedName(name: string): string {
  return `"${name.replace(/["\\\r\n]/g, '')}"`;
}

/**
 * Writes an agent's public reply and queues its mail to the requester, in one transaction. The
 * caller nudges the outbox (`drainSoon`) after it commits.
 */
export async function replyByMail(db: Executor, ticket: TicketRow, input: { body: string; memberId: string | null }, actor: Actor, settings: ReplyMailSettings): Promise<TicketWrite> {
  const domain = settings.supportAddress.slice(settings.supportAddress.lastIndexOf('@') + 1);
  if (!domain) throw new AppError('invalid_ticket', 'HELPDESK_SUPPORT_ADDRESS is not set: replies cannot be mailed.');
  const messageId = `<hd.${ticket.id}.${randomAlnum(16)}@${domain}>`;
  return db.transaction(async (tx) => {
    const earlier = await threadMessageIds(tx, ticket.id);
    const write = await addEntry(tx, ticket, { body: input.body, author: { kind: 'agent', memberId: input.memberId }, messageId }, actor);
    const requester = await findContact(tx, write.ticket.requesterId);
    if (!requester) throw new AppError('ticket_not_found', `Ticket ${ticket.number} has no requester.`);
    await enqueueMail(tx, ticket.siteId, 'helpdesk_reply', {
      from: `${quotedName(settings.senderName)} <${settings.supportAddress}>`,
      to: requester.name ? `${quotedName(requester.name)} <${requester.email}>` : requester.email,
      subject: subjectLine(write.ticket),
      text: input.body,
      messageId,
      inReplyTo: earlier.at(-1),
      references: earlier.slice(-20),
      headers: { 'Reply-To': replyAddress(settings.supportAddress, settings.secretKey, ticket.siteId, ticket.id) },
    });
    return write;
  });
}
