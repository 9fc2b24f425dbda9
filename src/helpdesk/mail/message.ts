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
  /** The part's Content-ID without angle brackets, which the HTML body names as `cid:...`; null without one. */
  contentId: string | null;
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
  /** The HTML body as sent, or null for mail without one; agents see it sanitized (mail/html-view.ts). */
  html: string | null;
  attachments: InboundAttachment[];
  /** Why the message is machine-sent (never answered, never a ticket of its own), or null for a person's mail. */
  automated: Automated | null;
  /** Message-IDs of the mail a bounce reports on, from its returned headers or message. */
  bouncedMessageIds: string[];
}

/** Lower-case header name -> first value, as every source can give it. */
type HeaderMap = ReadonlyMap<string, string>;

/** What kind of machine sent a message: an auto-responder, a delivery report, or bulk and list mail. */
interface Automated {
  kind: 'auto_reply' | 'bounce' | 'bulk';
  reason: string;
}

const BULK_PRECEDENCE = new Set(['bulk', 'junk', 'list', 'auto_reply']);
const DAEMON = /^(mailer-daemon|postmaster|no-?reply|bounces?)(\+[^@]*)?@/i;
const AUTO_REPLY_HEADERS = ['x-autoreply', 'x-autorespond', 'x-autoresponder', 'x-auto-response-suppress'];
/**
 * Subjects auto-responders write, in the languages of the major mail clients and services (Outlook,
 * Exchange, Gmail, Apple Mail, Thunderbird): the start of the subject, case and accents as written.
 */
const AUTO_REPLY_SUBJECT = new RegExp(
  '^\\s*(' +
    [
      'auto(matic)?[ -]?(reply|response|answer)',
      'autoreply',
      'out of (the )?office',
      'away from (the|my) office',
      'abwesenheitsnotiz',
      'automatische antwort',
      'r[ée]ponse automatique',
      'absence du bureau',
      'respuesta autom[áa]tica',
      'fuera de la oficina',
      'risposta automatica',
      'fuori sede',
      'fuori ufficio',
      'automatisch antwoord',
      'resposta autom[áa]tica',
      'automatisk svar',
      'autosvar',
      'automaattinen vastaus',
      'automatyczna odpowied[źz]',
      'automatick[áa] odpov[ěe][ďd]',
      'otomatik yan[ıi]t',
      'автоматический ответ',
      'автоответ',
      '自動応答',
      '自动回复',
      '自動回覆',
      '자동 응답',
    ].join('|') +
    ')',
  'iu',
);
const BOUNCE_SUBJECT =
  /^\s*(undeliver(ed|able)|delivery (status notification|failure|has failed)|mail delivery (failed|failure|system)|returned mail|failure notice|unzustellbar|non remis)/i;

/**
 * Why a message is machine-sent, as mature help desks tell: a delivery status report
 * (multipart/report, or a mailer daemon's "Undelivered" mail); RFC 3834 Auto-Submitted other than
 * `no`, the X-Autoreply family, Exchange's X-Auto-Response-Suppress or an auto-reply subject;
 * Precedence bulk/junk/list/auto_reply, or list mail (List-Id, List-Unsubscribe). Null for a
 * person's mail.
 */
export function automatedReason(headers: HeaderMap, from: string, subject: string): Automated | null {
  const contentType = headers.get('content-type')?.trim().toLowerCase() ?? '';
  if (contentType.startsWith('multipart/report')) return { kind: 'bounce', reason: 'delivery status report' };
  if (DAEMON.test(from) && BOUNCE_SUBJECT.test(subject)) return { kind: 'bounce', reason: 'sent by a mail daemon' };
  const autoSubmitted = headers.get('auto-submitted')?.trim().toLowerCase();
  if (autoSubmitted && autoSubmitted !== 'no')
    return { kind: 'auto_reply', reason: `Auto-Submitted: ${autoSubmitted}` };
  const header = AUTO_REPLY_HEADERS.find((name) => headers.has(name));
  if (header) return { kind: 'auto_reply', reason: header };
  if (AUTO_REPLY_SUBJECT.test(subject)) return { kind: 'auto_reply', reason: 'auto-reply subject' };
  const precedence = headers.get('precedence')?.trim().toLowerCase();
  if (precedence && BULK_PRECEDENCE.has(precedence)) {
    return { kind: precedence === 'auto_reply' ? 'auto_reply' : 'bulk', reason: `Precedence: ${precedence}` };
  }
  if (headers.has('list-id')) return { kind: 'bulk', reason: 'mailing list' };
  if (headers.has('list-unsubscribe')) return { kind: 'bulk', reason: 'bulk mail (List-Unsubscribe)' };
  if (DAEMON.test(from)) return { kind: 'bulk', reason: 'sent by a mail daemon' };
  return null;
}

const RETURNED_PARTS = new Set(['message/rfc822', 'message/global', 'text/rfc822-headers', 'message/global-headers']);

/**
 * The Message-IDs of the mail a bounce reports on: the Message-ID lines of the returned headers or
 * message (a part of its own, or quoted in the text), then the bounce's own In-Reply-To/References.
 */
export function bouncedMessageIds(
  text: string,
  attachments: readonly InboundAttachment[],
  threading: readonly string[],
): string[] {
  const returned = [
    text,
    ...attachments
      .filter((attachment) => RETURNED_PARTS.has(attachment.contentType.toLowerCase()))
      .map((attachment) => attachment.content.subarray(0, 256 * 1024).toString('utf8')),
  ];
  const ids = returned.flatMap((part) =>
    [...part.matchAll(/^Message-ID:[ \t]*(.*(?:\r?\n[ \t].*)?)/gim)].flatMap((match) => messageIds(match[1])),
  );
  return [...new Set([...ids, ...threading])];
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

/** A Content-ID as the HTML body names it after `cid:`: angle brackets and a `cid:` prefix taken off. */
export function contentIdOf(value: string | null | undefined): string | null {
  const id = value
    ?.trim()
    .replace(/^cid:/i, '')
    .replace(/^<(.*)>$/, '$1')
    .trim();
  return id ? id : null;
}

/** One Message-ID with its angle brackets, or null. */
export function oneMessageId(value: string | null | undefined): string | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (trimmed === '') return null;
  return messageIds(trimmed)[0] ?? `<${trimmed.replace(/[<>\s]/g, '')}>`;
}
