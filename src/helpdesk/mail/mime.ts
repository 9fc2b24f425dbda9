// Raw MIME (message/rfc822) into the normalized inbound message, through mailparser. A message
// without a header block or a From address is refused as malformed; what mailparser decodes
// (quoted-printable, base64, charsets, encoded words) is taken as it decodes it; HTML becomes text
// through html-text.ts, not mailparser's own conversion.
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { isEmail } from '../../lib/email.js';
import { AppError } from '../../http/errors.js';
import {
  automatedReason,
  bouncedMessageIds,
  checkAttachments,
  contentIdOf,
  messageIds,
  oneMessageId,
  type InboundMessage,
} from './message.js';
import { htmlToText } from './html-text.js';

const HEADER_BLOCK = /^[!-9;-~]+:/;
/** The envelope line an mbox file, procmail or Postfix `pipe` (flag F) puts before the headers. */
const MBOX_FROM_LINE = /^From [^\r\n]*\r?\n/;

function addresses(value: AddressObject | AddressObject[] | undefined): { email: string; name: string | null }[] {
  const list = value === undefined ? [] : Array.isArray(value) ? value : [value];
  return list
    .flatMap((object) => object.value.flatMap((entry) => (entry.group ? entry.group : [entry])))
    .filter((entry) => entry.address && isEmail(entry.address))
    .map((entry) => ({ email: entry.address!.toLowerCase(), name: entry.name.trim() || null }));
}

/** Header name -> raw value (unfolded), the first of repeated headers, as the message has it. */
function headerMap(parsed: ParsedMail): Map<string, string> {
  const map = new Map<string, string>();
  for (const { key, line } of parsed.headerLines) {
    if (!map.has(key))
      map.set(
        key,
        line
          .slice(line.indexOf(':') + 1)
          .replace(/\r?\n[ \t]+/g, ' ')
          .trim(),
      );
  }
  return map;
}

function malformed(detail: string): AppError {
  return new AppError('invalid_inbound_email', `The message is not readable MIME: ${detail}.`);
}

/** Parses a raw message; refuses malformed MIME (invalid_inbound_email) and oversized attachments (attachment_too_large). */
export async function parseMime(raw: Buffer | string, maxAttachmentBytes: number): Promise<InboundMessage> {
  let source = typeof raw === 'string' ? Buffer.from(raw) : raw;
  const envelope = MBOX_FROM_LINE.exec(source.subarray(0, 1000).toString('latin1'));
  if (envelope) source = source.subarray(envelope[0].length);
  if (source.length === 0) throw malformed('the message is empty');
  if (!HEADER_BLOCK.test(source.subarray(0, 1000).toString('latin1')))
    throw malformed('it does not start with a header');
  const parsed = await simpleParser(source, {
    skipImageLinks: true,
    keepCidLinks: true,
    skipHtmlToText: true,
    skipTextToHtml: true,
    skipTextLinks: true,
  });
  const [from] = addresses(parsed.from);
  if (!from) throw malformed('it has no From address');
  const attachments = parsed.attachments.map((attachment) => ({
    filename: attachment.filename ?? `attachment-${attachment.partId ?? '1'}`,
    contentType: attachment.contentType,
    size: attachment.size,
    content: attachment.content,
    inline: attachment.related === true || attachment.contentDisposition === 'inline',
    contentId: contentIdOf(attachment.contentId),
  }));
  checkAttachments(attachments, maxAttachmentBytes);
  const headers = headerMap(parsed);
  const subject = parsed.subject?.trim() ?? '';
  const inReplyTo = oneMessageId(parsed.inReplyTo);
  const references = messageIds(parsed.references);
  const text = (
    parsed.text?.trim() ? parsed.text : typeof parsed.html === 'string' ? htmlToText(parsed.html) : ''
  ).replace(/\r\n/g, '\n');
  const automated = automatedReason(headers, from.email, subject);
  return {
    from,
    recipients: [...addresses(parsed.to), ...addresses(parsed.cc)].map((address) => address.email),
    subject,
    messageId: oneMessageId(parsed.messageId),
    inReplyTo,
    references,
    text,
    html: typeof parsed.html === 'string' && parsed.html.trim() !== '' ? parsed.html : null,
    attachments,
    automated,
    bouncedMessageIds:
      automated?.kind === 'bounce'
        ? bouncedMessageIds(text, attachments, [...(inReplyTo ? [inReplyTo] : []), ...references])
        : [],
  };
}
