// An agent's public reply by e-mail: the entry and its mail are written in one transaction, the mail
// as a job of the outbox (src/jobs/mail-outbox.ts) that sends after commit and retries. The mail
// comes from the support address with its own Message-ID (stored on the entry), In-Reply-To and
// References of the thread, and the ticket's signed Reply-To, so the requester's answer threads
// back whichever of them their client keeps. Internal notes are never mailed.
import type { FastifyBaseLogger } from 'fastify';
import { parseBoolean } from '../../config/index.js';
import type { InstanceSettings } from '../../core/settings/allowlist.js';
import type { SiteRow } from '../../core/sites/tables.js';
import type { Executor } from '../../db/client.js';
import { enqueueMail, type MailOutbox } from '../../jobs/mail-outbox.js';
import { AppError } from '../../http/errors.js';
import { randomAlnum } from '../../lib/ids.js';
import type { Actor } from '../history.js';
import { actorOf, type HelpdeskCaller } from '../policy.js';
import type { ThreadEntryRow, TicketRow } from '../tables.js';
import { addEntry, findContact, threadMessageIds, type TicketWrite } from '../tickets.js';
import { replyAddress } from './reply-address.js';

interface ReplyMailSettings {
  /** HELPDESK_SUPPORT_ADDRESS */
  supportAddress: string;
  /** Display name of the sender: HELPDESK_SENDER_NAME, else the community's title. */
  senderName: string;
  secretKey: string;
  /** HELPDESK_AUTO_REPLY: a ticket opened by mail or the contact form is acknowledged by mail. */
  acknowledges: boolean;
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
export async function replyByMail(
  db: Executor,
  ticket: TicketRow,
  input: { body: string; memberId: string | null },
  actor: Actor,
  settings: ReplyMailSettings,
): Promise<TicketWrite> {
  const domain = settings.supportAddress.slice(settings.supportAddress.lastIndexOf('@') + 1);
  if (!domain) throw new AppError('invalid_ticket', 'HELPDESK_SUPPORT_ADDRESS is not set: replies cannot be mailed.');
  const messageId = `<hd.${ticket.id}.${randomAlnum(16)}@${domain}>`;
  return db.transaction(async (tx) => {
    const earlier = await threadMessageIds(tx, ticket.id);
    const write = await addEntry(
      tx,
      ticket,
      { body: input.body, author: { kind: 'agent', memberId: input.memberId }, messageId },
      actor,
    );
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

/**
 * How the site mails agents' public replies: from its support address, when it has one and this
 * server sends mail (docs/decisions/0053-helpdesk-inbound-mail.md); otherwise undefined.
 */
export function replyMailSettings(
  site: SiteRow,
  settings: InstanceSettings,
  outbox: MailOutbox,
  secretKey: string,
): ReplyMailSettings | undefined {
  const supportAddress = settings.values.HELPDESK_SUPPORT_ADDRESS?.trim();
  if (!supportAddress || !outbox.enabledFor(settings)) return undefined;
  return {
    supportAddress,
    senderName: helpdeskSenderName(site, settings),
    secretKey,
    acknowledges: parseBoolean(settings.values.HELPDESK_AUTO_REPLY ?? '') ?? false,
  };
}

/** The name the help desk's mail comes from: HELPDESK_SENDER_NAME, else the community's title. */
function helpdeskSenderName(site: SiteRow, settings: InstanceSettings): string {
  return settings.values.HELPDESK_SENDER_NAME?.trim() || settings.values.FORUM_TITLE?.trim() || site.id;
}

/**
 * The acknowledgement of a ticket that a requester's mail or contact form opened, when the site
 * acknowledges (HELPDESK_AUTO_REPLY): its number in the subject, threaded on their mail, with the
 * ticket's signed Reply-To. It says it is automatic (RFC 3834 `Auto-Submitted: auto-replied`), so the
 * requester's own auto-responder stays quiet; and machine-sent mail opens no ticket, so no two
 * responders answer each other. Never mailed to the support address itself. It runs after the
 * ticket's commit: a failure to queue it is logged, and the ticket stands. Answers whether it was queued.
 */
export async function acknowledgeTicket(
  services: { db: Executor; outbox: MailOutbox; log: FastifyBaseLogger },
  ticket: TicketRow,
  mail: ReplyMailSettings | undefined,
  inReplyTo?: string,
): Promise<boolean> {
  if (!mail?.acknowledges) return false;
  try {
    if (!(await queueAcknowledgement(services.db, ticket, mail, inReplyTo))) return false;
  } catch (error) {
    services.log.error({ err: error, ticket: ticket.id }, 'the acknowledgement of a new ticket was not queued');
    return false;
  }
  services.outbox.drainSoon();
  return true;
}

async function queueAcknowledgement(
  db: Executor,
  ticket: TicketRow,
  mail: ReplyMailSettings,
  inReplyTo: string | undefined,
): Promise<boolean> {
  const requester = await findContact(db, ticket.requesterId);
  if (!requester || requester.email.toLowerCase() === mail.supportAddress.toLowerCase()) return false;
  const domain = mail.supportAddress.slice(mail.supportAddress.lastIndexOf('@') + 1);
  const name = requester.name ?? requester.email;
  await enqueueMail(db, ticket.siteId, 'helpdesk_ack', {
    from: `${quotedName(mail.senderName)} <${mail.supportAddress}>`,
    to: requester.name ? `${quotedName(requester.name)} <${requester.email}>` : requester.email,
    subject: subjectLine(ticket),
    text: [
      `Hello ${name},`,
      '',
      `we have your request "${ticket.subject}" as ticket #${ticket.number}, and an agent will answer you soon.`,
      'To add to it, reply to this mail and keep the number in the subject.',
      '',
      mail.senderName,
    ].join('\n'),
    messageId: `<hd.${ticket.id}.ack.${randomAlnum(8)}@${domain}>`,
    ...(inReplyTo ? { inReplyTo, references: [inReplyTo] } : {}),
    headers: {
      'Reply-To': replyAddress(mail.supportAddress, mail.secretKey, ticket.siteId, ticket.id),
      'Auto-Submitted': 'auto-replied',
      'X-Auto-Response-Suppress': 'All',
    },
  });
  return true;
}

interface AgentEntryInput {
  /** Markdown. */
  body: string;
  internal: boolean;
}

/**
 * An agent's public reply or internal note, as the API and the agent inbox add it: a public reply
 * is mailed to the requester when the site mails replies (the outbox sends it after commit and
 * retries); notes never leave. `mailed` says whether it went out by mail.
 */
export async function answerTicket(
  services: { db: Executor; outbox: MailOutbox },
  ticket: TicketRow,
  caller: HelpdeskCaller,
  input: AgentEntryInput,
  mail: ReplyMailSettings | undefined,
): Promise<{ entry: ThreadEntryRow; mailed: boolean }> {
  const memberId = caller.kind === 'member' ? caller.id : null;
  if (!input.internal && mail) {
    const { entry } = await replyByMail(services.db, ticket, { body: input.body, memberId }, actorOf(caller), mail);
    services.outbox.drainSoon();
    return { entry, mailed: true };
  }
  const { entry } = await addEntry(
    services.db,
    ticket,
    { body: input.body, internal: input.internal, author: { kind: 'agent', memberId } },
    actorOf(caller),
  );
  return { entry, mailed: false };
}
