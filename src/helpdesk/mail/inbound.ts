// An inbound e-mail to the help desk: verified and normalized (providers.ts), then threaded onto its
// ticket or opened as a new one. Threading order: the signed plus-address, then In-Reply-To /
// References when the sender is the ticket's requester or already wrote on it, then a `[#number]`
// subject tag when the sender is that ticket's requester; otherwise a new ticket. Machine-sent mail is
// never answered, so no mail loop starts: an auto-reply is filed on the ticket it refers to without
// reopening it (dropped otherwise), a bounce marks the desk's reply it returns as undelivered, and a
// sender filing more than a few mails a minute is throttled. A repeated Message-ID answers the first
// ticket without storing anything again.
import { createHash } from 'node:crypto';
import type { BlobStore } from '../../adapters/blobs/index.js';
import type { Executor } from '../../db/client.js';
import { openSetting } from '../../core/settings/service.js';
import { ENTRY_BODY_MAX_CHARS } from '../schemas.js';
import { takeSignatureToken } from '../inbound-signatures.js';
import type { AttachmentRef, TicketRow } from '../tables.js';
import { AppError } from '../../http/errors.js';
import {
  addEntry,
  findContact,
  findTicket,
  findTicketByMessageId,
  isTicketParticipant,
  markUndelivered,
  openTicket,
  recentMailFrom,
  ticketsByMessageIds,
} from '../tickets.js';
import type { InboundMessage } from './message.js';
import { readInbound, type InboundRequest, type InboundSource, type InboundVerification } from './providers.js';
import { subjectTicketNumber, ticketFromRecipients } from './reply-address.js';
import { stripQuotedReply } from './reply-text.js';

/** Mail one sender may file per minute: more is a robot (or two robots answering each other). */
const INBOUND_PER_SENDER_PER_MINUTE = 5;

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
  /** Why a machine-sent message was not filed as a person's mail, or null. */
  ignored: string | null;
  /** The mail's Message-ID when it opened a new ticket. */
  openedBy?: string;
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

/** Longest attachment name kept, in characters: what common file systems allow. */
const MAX_FILENAME_CHARS = 255;

/**
 * An attachment's name as the sender gave it, kept as data (blob keys never come from it): control
 * characters dropped, and a name past MAX_FILENAME_CHARS shortened in the middle, its extension kept.
 */
function attachmentName(filename: string): string {
  const chars = [
    ...filename
      .normalize('NFC')
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u001f\u007f-\u009f]/g, '')
      .trim(),
  ];
  if (chars.length === 0) return 'attachment';
  if (chars.length <= MAX_FILENAME_CHARS) return chars.join('');
  const dot = chars.lastIndexOf('.');
  const extension = dot > 0 && chars.length - dot <= 16 ? chars.slice(dot) : [];
  return [...chars.slice(0, MAX_FILENAME_CHARS - extension.length - 1), '…', ...extension].join('');
}

/** Where a message's files live in the blob store: named by its Message-ID, never by a file name. */
function mailFolder(siteId: string, messageId: string): string {
  return `helpdesk/${siteId}/mail/${createHash('sha256').update(messageId).digest('hex').slice(0, 32)}`;
}

/** The name the whole text of a trimmed reply is kept under, beside the message's attachments. */
const ORIGINAL_MESSAGE_NAME = 'original-message.txt';

async function storeAttachments(
  blobs: BlobStore,
  siteId: string,
  messageId: string,
  message: InboundMessage,
): Promise<AttachmentRef[]> {
  const folder = mailFolder(siteId, messageId);
  const refs: AttachmentRef[] = [];
  for (const [index, attachment] of message.attachments.entries()) {
    const key = `${folder}/${index + 1}`;
    await blobs.put(key, attachment.content, attachment.size);
    refs.push({
      key,
      filename: attachmentName(attachment.filename),
      content_type: attachment.contentType,
      size: attachment.size,
      ...(attachment.contentId ? { content_id: attachment.contentId } : {}),
    });
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
    message: { ...message, attachments: [...message.attachments, { ...whole, inline: false, contentId: null }] },
  };
}

/** A reply's own text, above the quoted thread; a first message whole, its quotes being the customer's. */
function bodyOf(message: InboundMessage, reply: boolean): string {
  const text = reply ? stripQuotedReply(message.text) : message.text.trim();
  if (text !== '') return text;
  return message.attachments.length > 0 ? '(attachments only)' : '(empty message)';
}

/** The whole text of a reply whose quote or signature was cut, kept for agents as ORIGINAL_MESSAGE_NAME. */
async function storeOriginal(
  blobs: BlobStore,
  siteId: string,
  messageId: string,
  text: string,
): Promise<AttachmentRef> {
  const key = `${mailFolder(siteId, messageId)}/original`;
  const content = Buffer.from(text, 'utf8');
  await blobs.put(key, content, content.length);
  return {
    key,
    filename: ORIGINAL_MESSAGE_NAME,
    content_type: 'text/plain; charset=utf-8',
    size: content.length,
    role: 'original_text',
  };
}

/** The HTML body as it came, kept as `message.html` for agents to see sanitized (mail/html-view.ts). */
async function storeHtml(blobs: BlobStore, siteId: string, messageId: string, html: string): Promise<AttachmentRef> {
  const key = `${mailFolder(siteId, messageId)}/html`;
  const content = Buffer.from(html, 'utf8');
  await blobs.put(key, content, content.length);
  return {
    key,
    filename: 'message.html',
    content_type: 'text/html; charset=utf-8',
    size: content.length,
    role: 'html_body',
  };
}

/** What a delivery status report says of the failed recipient (RFC 3464 fields), for the agents. */
function bounceReport(text: string): Record<string, string> {
  const report: Record<string, string> = {};
  for (const [field, key] of [
    ['Final-Recipient', 'recipient'],
    ['Status', 'status'],
    ['Diagnostic-Code', 'diagnostic'],
  ] as const) {
    const value = new RegExp(`^${field}:[ \\t]*(.+)$`, 'im').exec(text)?.[1]?.trim();
    if (value) report[key] = value.replace(/^rfc822;\s*/i, '').slice(0, 300);
  }
  return report;
}

/** Refuses a sender past INBOUND_PER_SENDER_PER_MINUTE; its server retries later, so nothing is lost. */
async function throttleSender(db: Executor, siteId: string, email: string): Promise<void> {
  if ((await recentMailFrom(db, siteId, email)) < INBOUND_PER_SENDER_PER_MINUTE) return;
  throw new AppError(
    'inbound_throttled',
    `${email} has mailed the help desk ${INBOUND_PER_SENDER_PER_MINUTE} times in the last minute; try again later.`,
    {},
    { 'Retry-After': '60' },
  );
}

/**
 * An auto-reply (or list mail) is never answered and opens nothing: filed on the ticket it refers
 * to, without reopening or waking it, and dropped otherwise.
 */
async function fileAutomated(
  deps: InboundDeps,
  siteId: string,
  message: InboundMessage,
  source: InboundSource,
): Promise<InboundResult> {
  const reason = message.automated!.reason;
  const thread = await threadOf(deps, siteId, message);
  if (!thread) return { ticket: null, created: false, source, ignored: reason };
  const write = await addEntry(
    deps.db,
    thread,
    {
      body: bodyOf(message, true),
      author: { kind: 'requester', email: message.from.email, name: message.from.name },
      messageId: messageIdOf(message),
      automated: reason,
      mailText: true,
    },
    { kind: 'requester', id: null },
  );
  return { ticket: write.ticket, created: write.created, source, ignored: reason };
}

/** Verifies, reads and files one inbound request for the site; throws the refusals of providers.ts. */
export async function receiveInbound(
  deps: InboundDeps,
  siteId: string,
  settings: Readonly<Record<string, string>>,
  request: InboundRequest,
): Promise<InboundResult> {
  const { source, message } = await readInbound(request, inboundVerification(deps, siteId, settings));
  if (message.automated?.kind === 'bounce') {
    const ticket = await markUndelivered(deps.db, siteId, message.bouncedMessageIds, bounceReport(message.text));
    return { ticket: ticket ?? null, created: false, source, ignored: message.automated.reason };
  }
  await throttleSender(deps.db, siteId, message.from.email);
  if (message.automated) return fileAutomated(deps, siteId, message, source);
  const messageId = messageIdOf(message);
  // The writes below answer a Message-ID on file themselves; asked here first only so that a second
  // delivery stores no attachments again.
  if (message.attachments.length > 0 || message.html !== null) {
    const onFile = await findTicketByMessageId(deps.db, siteId, [messageId]);
    if (onFile) return { ticket: onFile, created: false, source, ignored: null };
  }
  const thread = await threadOf(deps, siteId, message);
  // A text past an entry's limit is cut, and kept whole as message.txt; a trimmed reply keeps its original.
  const { body, message: kept } = capBody(message, bodyOf(message, thread !== undefined));
  const attachments = await storeAttachments(deps.blobs, siteId, messageId, kept);
  if (thread && kept === message && message.text.trim() !== '' && body !== message.text.trim())
    attachments.push(await storeOriginal(deps.blobs, siteId, messageId, message.text.trim()));
  if (message.html !== null) attachments.push(await storeHtml(deps.blobs, siteId, messageId, message.html));
  const write = thread
    ? await addEntry(
        deps.db,
        thread,
        {
          body,
          author: { kind: 'requester', email: message.from.email, name: message.from.name },
          messageId,
          attachments,
          mailText: true,
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
        mailText: true,
      });
  return {
    ticket: write.ticket,
    created: write.created,
    source,
    ignored: null,
    ...(!thread && write.created ? { openedBy: messageId } : {}),
  };
}
