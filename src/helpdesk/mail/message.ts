// The one normalized inbound message every source (raw MIME, Postmark, SendGrid, Mailgun) turns
// into, and the checks that do not depend on the source: the attachment limit and whether the
// message was sent by a machine (auto-reply, bounce, list), which the help desk never answers.
import { AppError } from '../../http/errors.js';

interface InboundAddress {
  email: string;
  name: string | null;
}

export interface InboundAttachment {
  filename: string;
  contentType: string;
  size: number;
  content: Buffer;
  /** An image shown inside the HTML body (Content-ID in multipart/related). */
  inline: boolean;
}

export interface InboundMessage {
  from: InboundAddress;
  /** To and Cc addresses, lower case, plus the envelope recipient a provider reports. */
  recipients: string[];
  subject: string;
  /** Angle brackets included, or null when the message has none. */
  messageId: string | null;
  inReplyTo: string | null;
  /** Oldest first, angle brackets included. */
  references: string[];
  /** The body as plain text (HTML converted when there is no text part), quotes not yet stripped. */
  text: string;
  attachments: InboundAttachment[];
  /** Why the message is machine-sent (never answered, never a ticket), or null for a person's mail. */
  automated: string | null;
}

/** Lower-case header name -> first value, as every source can give it. */
type HeaderMap = ReadonlyMap<string, string>;

const BULK_PRECEDENCE = new Set(['bulk', 'junk', 'list', 'auto_reply']);
const DAEMON = /^(mailer-daemon|postmaster|no-?reply|bounces?)(\+[^@]*)?@/i;

/**
 * Why headers mark a message as machine-sent: RFC 3834 Auto-Submitted, Precedence bulk/junk/list,
 * the X-Autoreply family, a delivery status report (multipart/report), a mailing list (List-Id), or
 * a mailer daemon as sender. Null for a person's mail.
 */
export function automatedReason(headers: HeaderMap, from: string): string | null {
  const autoSubmitted = headers.get('auto-submitted')?.trim().toLowerCase();
  if (autoSubmitted && autoSubmitted !== 'no') return `Auto-Submitted: ${autoSubmitted}`;
  const precedence = headers.get('precedence')?.trim().toLowerCase();
  if (precedence && BULK_PRECEDENCE.has(precedence)) return `Precedence: ${precedence}`;
  for (const name of ['x-autoreply', 'x-autorespond', 'x-autoresponder']) {
    if (headers.has(name)) return name;
  }
  const contentType = headers.get('content-type')?.trim().toLowerCase() ?? '';
  if (contentType.startsWith('multipart/report')) return 'delivery status report';
  if (headers.has('list-id')) return 'mailing list';
  if (DAEMON.test(from)) return 'sent by a mail daemon';
  return null;
}

/** Refuses a message with an attachment over the limit (docs/decisions/0053-helpdesk-inbound-mail.md). */
export function checkAttachments(attachments: readonly InboundAttachment[], maxBytes: number): void {
  const large = attachments.find((attachment) => attachment.size > maxBytes);
  if (large) {
    throw new AppError(
      'attachment_too_large',
      `The attachment "${large.filename}" is ${large.size} bytes; the help desk accepts attachments up to ${maxBytes} bytes.`,
    );
  }
}

/** Message-IDs as `<id>` tokens from a header value (References lists several). */
export function messageIds(value: string | readonly string[] | null | undefined): string[] {
  if (!value) return [];
  const text = typeof value === 'string' ? value : value.join(' ');
  return [...text.matchAll(/<[^<>\s]+>/g)].map((match) => match[0]);
}

/** One Message-ID with its angle brackets, or null. */
export function oneMessageId(value: string | null | undefined): string | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (trimmed === '') return null;
  return messageIds(trimmed)[0] ?? `<${trimmed.replace(/[<>\s]/g, '')}>`;
}
