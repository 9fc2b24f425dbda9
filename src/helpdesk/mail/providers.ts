// Every way mail reaches POST /inbound-email, each verified the way its sender documents, into the
// one normalized message. Raw MIME carries `Authorization: Bearer <HELPDESK_INBOUND_SECRET>`;
// Postmark sends its JSON with basic auth whose password is that secret (the URL's credentials);
// Mailgun routes sign `timestamp + token` with HMAC-SHA256 under the Mailgun webhook signing key;
// SendGrid Inbound Parse (security policy with signature verification) signs `timestamp + raw body`
// with ECDSA P-256/SHA-256, checked against the public key the site owner copies from SendGrid.
// Anything unverifiable, including a provider whose secret the site has not set, is 401.
import { createHash, createHmac, createPublicKey, timingSafeEqual, verify } from 'node:crypto';
import { AppError } from '../../http/errors.js';
import { isEmail } from '../../lib/email.js';
import { parseMime } from './mime.js';
import {
  automatedReason,
  bouncedMessageIds,
  checkAttachments,
  contentIdOf,
  messageIds,
  oneMessageId,
  type InboundAttachment,
  type InboundMessage,
} from './message.js';
import { htmlToText } from './html-text.js';

export type InboundSource = 'mime' | 'postmark' | 'sendgrid' | 'mailgun';

export interface InboundRequest {
  contentType: string;
  /** Lower-case header names. */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  body: Buffer;
}

export interface InboundVerification {
  inboundSecret: string | undefined;
  mailgunSigningKey: string | undefined;
  /** SendGrid's verification public key, base64 DER (as SendGrid shows it) or PEM. */
  sendgridPublicKey: string | undefined;
  maxAttachmentBytes: number;
  /** Takes a Mailgun signature's token for this body: false when another body took it (a replay). */
  takeMailgunToken: (token: string, bodyDigest: string, windowSeconds: number) => Promise<boolean>;
}

/** How far a signed timestamp may be from now: replays of older captures are refused. */
const SIGNATURE_WINDOW_SECONDS = 15 * 60;

export const SENDGRID_SIGNATURE_HEADER = 'x-twilio-email-event-webhook-signature';
export const SENDGRID_TIMESTAMP_HEADER = 'x-twilio-email-event-webhook-timestamp';

function unauthorized(detail: string): AppError {
  return new AppError('inbound_unauthorized', detail);
}

function unreadable(detail: string): AppError {
  return new AppError('invalid_inbound_email', detail);
}

function sameSecret(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

function header(request: Pick<InboundRequest, 'headers'>, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function freshTimestamp(value: string, now: number): boolean {
  if (!/^[0-9]{1,12}$/.test(value)) return false;
  return Math.abs(now / 1000 - Number(value)) <= SIGNATURE_WINDOW_SECONDS;
}

function mediaType(contentType: string): string {
  return contentType.split(';')[0]!.trim().toLowerCase();
}

function parseAddress(value: string): { email: string; name: string | null } | undefined {
  const named = /^\s*"?([^"<]*?)"?\s*<([^<>]+)>\s*$/.exec(value);
  const email = (named ? named[2]! : value).trim().toLowerCase();
  if (!isEmail(email)) return undefined;
  return { email, name: named?.[1]?.trim() || null };
}

function addressList(value: string | undefined): string[] {
  if (!value) return [];
  return value
    .split(/,(?=(?:[^"]*"[^"]*")*[^"]*$)/)
    .map((part) => parseAddress(part)?.email)
    .filter((email): email is string => email !== undefined);
}

function headerLines(raw: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const line of raw
    .replace(/\r\n/g, '\n')
    .replace(/\n[ \t]+/g, ' ')
    .split('\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!map.has(name)) map.set(name, line.slice(colon + 1).trim());
  }
  return map;
}

interface Fields {
  from: string | undefined;
  recipients: string[];
  subject: string | undefined;
  headers: Map<string, string>;
  text: string | undefined;
  html: string | undefined;
  attachments: InboundAttachment[];
}

function normalize(fields: Fields, maxAttachmentBytes: number): InboundMessage {
  const from = fields.from ? parseAddress(fields.from) : undefined;
  if (!from) throw unreadable('The payload has no From address.');
  checkAttachments(fields.attachments, maxAttachmentBytes);
  const text = (fields.text?.trim() ? fields.text : fields.html ? htmlToText(fields.html) : '').replace(/\r\n/g, '\n');
  const subject = (fields.subject ?? '').trim();
  const inReplyTo = oneMessageId(fields.headers.get('in-reply-to'));
  const references = messageIds(fields.headers.get('references'));
  const automated = automatedReason(fields.headers, from.email, subject);
  return {
    from,
    recipients: [...new Set(fields.recipients)],
    subject,
    messageId: oneMessageId(fields.headers.get('message-id')),
    inReplyTo,
    references,
    text,
    html: fields.html?.trim() ? fields.html : null,
    attachments: fields.attachments,
    automated,
    bouncedMessageIds:
      automated?.kind === 'bounce'
        ? bouncedMessageIds(text, fields.attachments, [...(inReplyTo ? [inReplyTo] : []), ...references])
        : [],
  };
}

interface PostmarkPayload {
  From?: string;
  FromFull?: { Email?: string; Name?: string };
  ToFull?: { Email?: string }[];
  CcFull?: { Email?: string }[];
  OriginalRecipient?: string;
  Subject?: string;
  MessageID?: string;
  TextBody?: string;
  HtmlBody?: string;
  Headers?: { Name?: string; Value?: string }[];
  Attachments?: { Name?: string; Content?: string; ContentType?: string; ContentLength?: number; ContentID?: string }[];
}

function postmark(body: Buffer, maxAttachmentBytes: number): InboundMessage {
  let payload: PostmarkPayload;
  try {
    payload = JSON.parse(body.toString('utf8')) as PostmarkPayload;
  } catch {
    throw unreadable('The Postmark payload is not JSON.');
  }
  if (typeof payload !== 'object' || payload === null) throw unreadable('The Postmark payload is not an object.');
  const headers = new Map<string, string>();
  for (const entry of payload.Headers ?? []) {
    const name = entry.Name?.toLowerCase();
    if (name && !headers.has(name)) headers.set(name, entry.Value ?? '');
  }
  // Postmark's MessageID is its own; the sender's Message-ID travels in Headers.
  if (!headers.has('message-id') && payload.MessageID) headers.set('message-id', `<${payload.MessageID}@postmark>`);
  const from = payload.FromFull?.Email ? `${payload.FromFull.Name ?? ''} <${payload.FromFull.Email}>` : payload.From;
  const recipients = [...(payload.ToFull ?? []), ...(payload.CcFull ?? []), { Email: payload.OriginalRecipient }]
    .map((entry) => entry.Email?.toLowerCase())
    .filter((email): email is string => email !== undefined && isEmail(email));
  const attachments = (payload.Attachments ?? []).map((attachment, index) => {
    const content = Buffer.from(attachment.Content ?? '', 'base64');
    return {
      filename: attachment.Name || `attachment-${index + 1}`,
      contentType: attachment.ContentType || 'application/octet-stream',
      size: content.length,
      content,
      inline: Boolean(attachment.ContentID),
      contentId: contentIdOf(attachment.ContentID),
    };
  });
  return normalize(
    {
      from,
      recipients,
      subject: payload.Subject,
      headers,
      text: payload.TextBody,
      html: payload.HtmlBody,
      attachments,
    },
    maxAttachmentBytes,
  );
}

/** Parts (or fields) a form payload may have: a provider's fields and attachments fit many times over. */
const MAX_FORM_PARTS = 1000;

/** Counts the parts before any is parsed, in one pass over the bytes: a form of many tiny fields is refused cheaply. */
function checkFormParts(request: InboundRequest): void {
  const boundary = /boundary="?([^";]+)"?/i.exec(request.contentType)?.[1];
  const separator = Buffer.from(boundary ? `--${boundary}` : '&');
  let parts = 0;
  for (let at = request.body.indexOf(separator); at !== -1; at = request.body.indexOf(separator, at + separator.length))
    if (++parts > MAX_FORM_PARTS) throw unreadable(`The form payload has more than ${MAX_FORM_PARTS} parts.`);
}

async function readForm(request: InboundRequest): Promise<FormData> {
  checkFormParts(request);
  try {
    return await new Response(new Uint8Array(request.body), {
      headers: { 'content-type': request.contentType },
    }).formData();
  } catch {
    throw unreadable('The form payload cannot be read.');
  }
}

function field(form: FormData, name: string): string | undefined {
  const value = form.get(name);
  return typeof value === 'string' ? value : undefined;
}

/**
 * Content-ID -> attachment field name, from a form's JSON map: Mailgun's `content-id-map` and
 * SendGrid's `content-ids` map each Content-ID to the field of its part ("attachment-1",
 * "attachment1"); SendGrid's `attachment-info` gives each field's `content-id`.
 */
function contentIds(form: FormData): Map<string, string> {
  const byField = new Map<string, string>();
  const json = (name: string): unknown => {
    try {
      return JSON.parse(field(form, name) ?? 'null');
    } catch {
      return null;
    }
  };
  for (const name of ['content-id-map', 'content-ids']) {
    const map = json(name);
    if (map && typeof map === 'object')
      for (const [cid, fieldName] of Object.entries(map))
        if (typeof fieldName === 'string' && contentIdOf(cid)) byField.set(fieldName, contentIdOf(cid)!);
  }
  const info = json('attachment-info');
  if (info && typeof info === 'object')
    for (const [fieldName, details] of Object.entries(info)) {
      const cid = details && typeof details === 'object' ? (details as Record<string, unknown>)['content-id'] : null;
      if (typeof cid === 'string' && contentIdOf(cid) && !byField.has(fieldName))
        byField.set(fieldName, contentIdOf(cid)!);
    }
  return byField;
}

async function files(form: FormData, names: readonly string[]): Promise<InboundAttachment[]> {
  const out: InboundAttachment[] = [];
  const cids = contentIds(form);
  for (const name of names) {
    const value = form.get(name);
    if (value === null || typeof value === 'string') continue;
    const content = Buffer.from(await value.arrayBuffer());
    out.push({
      filename: value.name || name,
      contentType: value.type || 'application/octet-stream',
      size: content.length,
      content,
      inline: cids.has(name),
      contentId: cids.get(name) ?? null,
    });
  }
  return out;
}

function fileNames(form: FormData, prefix: string): string[] {
  const keys = new Set<string>();
  form.forEach((_value, key) => keys.add(key));
  return [...keys]
    .filter((key) => new RegExp(`^${prefix}-?[0-9]+$`).test(key))
    .sort((a, b) => Number(a.replace(/\D/g, '')) - Number(b.replace(/\D/g, '')));
}

/** Mailgun's documented check: hex HMAC-SHA256 of timestamp + token under the webhook signing key. */
export function mailgunSignature(signingKey: string, timestamp: string, token: string): string {
  return createHmac('sha256', signingKey)
    .update(timestamp + token)
    .digest('hex');
}

async function mailgun(
  request: InboundRequest,
  form: FormData,
  verification: InboundVerification,
  now: number,
): Promise<InboundMessage> {
  const { mailgunSigningKey: signingKey, maxAttachmentBytes } = verification;
  if (!signingKey) throw unauthorized('This site has no Mailgun signing key (HELPDESK_MAILGUN_SIGNING_KEY).');
  const timestamp = field(form, 'timestamp') ?? '';
  const signature = field(form, 'signature') ?? '';
  const token = field(form, 'token') ?? '';
  if (
    !freshTimestamp(timestamp, now) ||
    !sameSecret(signature.toLowerCase(), mailgunSignature(signingKey, timestamp, token))
  ) {
    throw unauthorized('The Mailgun signature does not verify.');
  }
  // The signature covers no content: its token carries the first body it came with, and no other.
  const bodyDigest = createHash('sha256').update(request.body).digest('hex');
  if (!(await verification.takeMailgunToken(token, bodyDigest, SIGNATURE_WINDOW_SECONDS)))
    throw unauthorized('The Mailgun signature was used already.');
  const mime = field(form, 'body-mime');
  if (mime !== undefined) return parseMime(mime, maxAttachmentBytes);
  const headers = new Map<string, string>();
  try {
    const pairs = JSON.parse(field(form, 'message-headers') ?? '[]') as unknown;
    if (Array.isArray(pairs)) {
      for (const pair of pairs) {
        if (Array.isArray(pair) && typeof pair[0] === 'string' && !headers.has(pair[0].toLowerCase()))
          headers.set(pair[0].toLowerCase(), String(pair[1]));
      }
    }
  } catch {
    throw unreadable('The Mailgun message-headers field is not JSON.');
  }
  for (const name of ['Message-Id', 'In-Reply-To', 'References']) {
    const value = field(form, name);
    if (value && !headers.has(name.toLowerCase())) headers.set(name.toLowerCase(), value);
  }
  const recipients = [
    ...addressList(field(form, 'recipient')),
    ...addressList(field(form, 'To')),
    ...addressList(field(form, 'Cc')),
  ];
  const attachments = await files(form, fileNames(form, 'attachment'));
  return normalize(
    {
      from: field(form, 'from') ?? field(form, 'sender'),
      recipients,
      subject: field(form, 'subject'),
      headers,
      text: field(form, 'body-plain'),
      html: field(form, 'body-html'),
      attachments,
    },
    maxAttachmentBytes,
  );
}

function sendgridKey(value: string) {
  const pem = value.includes('BEGIN PUBLIC KEY')
    ? value
    : `-----BEGIN PUBLIC KEY-----\n${value.replace(/\s+/g, '')}\n-----END PUBLIC KEY-----`;
  return createPublicKey(pem);
}

async function sendgrid(
  request: InboundRequest,
  form: FormData,
  publicKey: string | undefined,
  maxAttachmentBytes: number,
  now: number,
): Promise<InboundMessage> {
  if (!publicKey)
    throw unauthorized('This site has no SendGrid verification key (HELPDESK_SENDGRID_VERIFICATION_KEY).');
  const timestamp = header(request, SENDGRID_TIMESTAMP_HEADER) ?? '';
  const signature = header(request, SENDGRID_SIGNATURE_HEADER) ?? '';
  let valid = false;
  try {
    valid =
      freshTimestamp(timestamp, now) &&
      verify(
        'sha256',
        Buffer.concat([Buffer.from(timestamp), request.body]),
        sendgridKey(publicKey),
        Buffer.from(signature, 'base64'),
      );
  } catch {
    valid = false;
  }
  if (!valid) throw unauthorized('The SendGrid signature does not verify.');
  const raw = field(form, 'email');
  if (raw !== undefined) return parseMime(raw, maxAttachmentBytes);
  const headers = headerLines(field(form, 'headers') ?? '');
  const recipients = [...addressList(field(form, 'to')), ...addressList(field(form, 'cc'))];
  let envelopeTo: string[] = [];
  try {
    const envelope = JSON.parse(field(form, 'envelope') ?? '{}') as { to?: unknown };
    if (Array.isArray(envelope.to))
      envelopeTo = envelope.to.filter((to): to is string => typeof to === 'string').map((to) => to.toLowerCase());
  } catch {
    throw unreadable('The SendGrid envelope field is not JSON.');
  }
  const attachments = await files(form, fileNames(form, 'attachment'));
  return normalize(
    {
      from: field(form, 'from'),
      recipients: [...recipients, ...envelopeTo],
      subject: field(form, 'subject'),
      headers,
      text: field(form, 'text'),
      html: field(form, 'html'),
      attachments,
    },
    maxAttachmentBytes,
  );
}

const FORM_TYPES = new Set(['multipart/form-data', 'application/x-www-form-urlencoded']);

/**
 * Everything that can be checked from the headers, before a byte of the body is read: raw MIME's
 * bearer secret and Postmark's basic auth in full; for the signed forms of Mailgun and SendGrid,
 * whose signatures need the body, that the site has a key to check them with. Throws the refusal.
 */
export function checkInboundHeaders(request: Omit<InboundRequest, 'body'>, verification: InboundVerification): void {
  const type = mediaType(request.contentType);
  const authorization = header(request, 'authorization') ?? '';
  if (type === 'message/rfc822') {
    const bearer = /^Bearer\s+(.+)$/i.exec(authorization)?.[1];
    if (!verification.inboundSecret || !bearer || !sameSecret(bearer.trim(), verification.inboundSecret))
      throw unauthorized('Raw MIME needs Authorization: Bearer with the help desk inbound secret.');
    return;
  }
  if (type === 'application/json') {
    const basic = /^Basic\s+(.+)$/i.exec(authorization)?.[1];
    const password = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':').slice(1).join(':') : undefined;
    if (!verification.inboundSecret || password === undefined || !sameSecret(password, verification.inboundSecret))
      throw unauthorized('Postmark payloads need basic auth with the help desk inbound secret as password.');
    return;
  }
  if (FORM_TYPES.has(type)) {
    if (!verification.mailgunSigningKey && !verification.sendgridPublicKey)
      throw unauthorized(
        'This site has no key for signed form payloads (HELPDESK_MAILGUN_SIGNING_KEY or HELPDESK_SENDGRID_VERIFICATION_KEY).',
      );
    return;
  }
  throw unreadable(
    `Content-Type ${type || '(none)'} is not message/rfc822, a Postmark JSON payload or a SendGrid / Mailgun form.`,
  );
}

/** The verified, normalized message of an inbound request, and which way it came. */
export async function readInbound(
  request: InboundRequest,
  verification: InboundVerification,
  now = Date.now(),
): Promise<{ source: InboundSource; message: InboundMessage }> {
  checkInboundHeaders(request, verification);
  const type = mediaType(request.contentType);
  const { maxAttachmentBytes } = verification;
  if (type === 'message/rfc822') return { source: 'mime', message: await parseMime(request.body, maxAttachmentBytes) };
  if (type === 'application/json') return { source: 'postmark', message: postmark(request.body, maxAttachmentBytes) };
  // A Mailgun or SendGrid form (checkInboundHeaders refused every other type).
  const form = await readForm(request);
  if (form.has('signature') && form.has('token') && form.has('timestamp'))
    return {
      source: 'mailgun',
      message: await mailgun(request, form, verification, now),
    };
  return {
    source: 'sendgrid',
    message: await sendgrid(request, form, verification.sendgridPublicKey, maxAttachmentBytes, now),
  };
}
