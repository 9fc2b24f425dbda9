// An inbound e-mail to the help desk: verified and normalized (providers.ts), then threaded onto its
// ticket or opened as a new one. Threading order: the signed plus-address, then In-Reply-To /
// References when the sender is the ticket's requester or already wrote on it, then a `[#number]`
// subject tag when the sender is that ticket's requester; otherwise a new ticket. Machine-sent mail (auto-replies, bounces, lists) is answered and dropped, so no mail
// loop starts. A repeated Message-ID answers the first ticket without storing anything again.
import { createHash } from 'node:crypto';
import type { BlobStore } from '../../adapters/blobs/index.js';
import type { Executor } from '../../db/client.js';
import { openSetting } from '../../core/settings/service.js';
import { ENTRY_BODY_MAX_CHARS } from '../schemas.js';
import { takeSignatureToken } from '../inbound-signatures.js';
import type { AttachmentRef, TicketRow } from '../tables.js';
import {
  addEntry,
  findContact,
  findTicket,
  findTicketByMessageId,
  isTicketParticipant,
  openTicket,
  ticketsByMessageIds,
} from '../tickets.js';
import type { InboundMessage } from './message.js';
import { readInbound, type InboundRequest, type InboundSource, type InboundVerification } from './providers.js';
import { subjectTicketNumber, ticketFromRecipients } from './reply-address.js';
import { stripQuotedReply } from './reply-text.js';

/** HELPDESK_ATTACHMENT_MAX_BYTES when unset: 25 MiB, what common mail services accept. */
const DEFAULT_ATTACHMENT_MAX_BYTES = 25 * 1024 * 1024;

export interface InboundDeps {
  db: Executor;
  blobs: BlobStore;
  secretKey: string;
}

interface InboundResult {
  ticket: TicketRow | null;
  created: boolean;
  source: InboundSource;
  /** Why the message was dropped (machine-sent), or null. */
  ignored: string | null;
}

/** The verification secrets and limit from a site's applied settings. */
export function inboundVerification(
  deps: InboundDeps,
  siteId: string,
  values: Readonly<Record<string, string>>,
): InboundVerification {
  const { secretKey } = deps;
  return {
    takeMailgunToken: (token, bodyDigest, windowSeconds) =>
      takeSignatureToken(deps.db, siteId, token, bodyDigest, windowSeconds),
    inboundSecret: openSetting(values, 'HELPDESK_INBOUND_SECRET', secretKey),
    mailgunSigningKey: openSetting(values, 'HELPDESK_MAILGUN_SIGNING_KEY', secretKey),
    sendgridPublicKey: openSetting(values, 'HELPDESK_SENDGRID_VERIFICATION_KEY', secretKey),
    maxAttachmentBytes: values.HELPDESK_ATTACHMENT_MAX_BYTES
      ? Number(values.HELPDESK_ATTACHMENT_MAX_BYTES)
      : DEFAULT_ATTACHMENT_MAX_BYTES,
  };
}

/** A stable Message-ID for mail without one, so a second delivery of it is still recognized. */
function messageIdOf(message: InboundMessage): string {
  if (message.messageId) return message.messageId;
  const digest = createHash('sha256')
    .update(JSON.stringify([message.from.email, message.subject, message.text, message.attachments.map((a) => a.size)]))
    .digest('hex');
  return `<${digest.slice(0, 40)}@inbound.blume.invalid>`;
}

async function threadOf(deps: InboundDeps, siteId: string, message: InboundMessage): Promise<TicketRow | undefined> {
  const tokenTicket = ticketFromRecipients(message.recipients, deps.secretKey, siteId);
  if (tokenTicket) {
    const ticket = await findTicket(deps.db, siteId, tokenTicket);
    if (ticket) return ticket;
  }
  const referenced = [message.inReplyTo, ...[...message.references].reverse()].filter(
    (id): id is string => id !== null,
  );
  // A Message-ID is no credential: anyone copied on one mail knows it. Others open their own ticket.
  for (const ticket of await ticketsByMessageIds(deps.db, siteId, referenced))
    if (await isTicketParticipant(deps.db, ticket, message.from.email)) return ticket;
  const number = subjectTicketNumber(message.subject);
  if (number === undefined) return undefined;
  // A subject tag is easy to write: it threads only mail from the ticket's own requester.
  const ticket = await findTicket(deps.db, siteId, String(number));
  const requester = ticket ? await findContact(deps.db, ticket.requesterId) : undefined;
  return requester?.email === message.from.email ? ticket : undefined;
}

async function storeAttachments(
  blobs: BlobStore,
  siteId: string,
  messageId: string,
  message: InboundMessage,
): Promise<AttachmentRef[]> {
  const folder = createHash('sha256').update(messageId).digest('hex').slice(0, 32);
  const refs: AttachmentRef[] = [];
  for (const [index, attachment] of message.attachments.entries()) {
    const safeName = attachment.filename.replace(/[^A-Za-z0-9._-]+/g, '_').slice(-100) || 'attachment';
    const key = `helpdesk/${siteId}/mail/${folder}/${index + 1}-${safeName}`;
    await blobs.put(key, attachment.content, attachment.size);
    refs.push({ key, filename: attachment.filename, content_type: attachment.contentType, size: attachment.size });
  }
  return refs;
}

/**
 * A text longer than an entry may be (the API's limit) is cut there, and the whole text is kept
 * as `message.txt` beside the message's own attachments.
 */
function capBody(message: InboundMessage, body: string): { body: string; message: InboundMessage } {
  if (body.length <= ENTRY_BODY_MAX_CHARS) return { body, message };
  const note = '\n\n(The message is longer than a reply may be; the whole text is attached as message.txt.)';
  const content = Buffer.from(message.text, 'utf8');
  const whole = { filename: 'message.txt', contentType: 'text/plain; charset=utf-8', size: content.length, content };
  return {
    body: body.slice(0, ENTRY_BODY_MAX_CHARS - note.length) + note,
    message: { ...message, attachments: [...message.attachments, { ...whole, inline: false }] },
  };
}

function bodyOf(message: InboundMessage): string {
  const text = stripQuotedReply(message.text);
  if (text !== '') return text;
  return message.attachments.length > 0 ? '(attachments only)' : '(empty message)';
}

/** Verifies, reads and files one inbound request for the site; throws the refusals of providers.ts. */
export async function receiveInbound(
  deps: InboundDeps,
  siteId: string,
  settings: Readonly<Record<string, string>>,
  request: InboundRequest,
): Promise<InboundResult> {
  const { source, message } = await readInbound(request, inboundVerification(deps, siteId, settings));
  if (message.automated) return { ticket: null, created: false, source, ignored: message.automated };
  const messageId = messageIdOf(message);
  // The writes below answer a Message-ID on file themselves; asked here first only so that a second
  // delivery stores no attachments again.
  if (message.attachments.length > 0) {
    const onFile = await findTicketByMessageId(deps.db, siteId, [messageId]);
    if (onFile) return { ticket: onFile, created: false, source, ignored: null };
  }
  const { body, message: kept } = capBody(message, bodyOf(message));
  const attachments = await storeAttachments(deps.blobs, siteId, messageId, kept);
  const thread = await threadOf(deps, siteId, message);
  const write = thread
    ? await addEntry(
        deps.db,
        thread,
        {
          body,
          author: { kind: 'requester', email: message.from.email, name: message.from.name },
          messageId,
          attachments,
        },
        { kind: 'requester', id: null },
      )
    : await openTicket(deps.db, siteId, {
        subject: message.subject || '(no subject)',
        body,
        requester: message.from,
        channel: 'email',
        messageId,
        attachments,
      });
  return { ticket: write.ticket, created: write.created, source, ignored: null };
}
