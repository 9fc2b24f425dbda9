// Signed plus-addresses: the Reply-To of an agent's reply is `support+t<ticket id>-<mac>@domain`.
// The MAC (HMAC-SHA256 keyed from SECRET_KEY, over the site and ticket ids) makes the address
// unguessable, so nobody adds to a ticket by writing to a made-up address; it is checked in
// constant time. Lower-case hex and ids survive mail systems that fold the local part's case.
import { createHmac, timingSafeEqual } from 'node:crypto';

const MAC_LENGTH = 20;
const TOKEN = /\+t([0-9a-z]{8,32})-([0-9a-f]{20})@/i;

function mac(secretKey: string, siteId: string, ticketId: string): string {
  const key = createHmac('sha256', secretKey).update('helpdesk-reply-address').digest();
  return createHmac('sha256', key).update(`${siteId}:${ticketId}`).digest('hex').slice(0, MAC_LENGTH);
}

/** The support address with the ticket's signed token after a `+`. */
export function replyAddress(supportAddress: string, secretKey: string, siteId: string, ticketId: string): string {
  const at = supportAddress.lastIndexOf('@');
  const local = supportAddress.slice(0, at).replace(/\+.*$/, '');
  return `${local}+t${ticketId}-${mac(secretKey, siteId, ticketId)}${supportAddress.slice(at)}`;
}

/** The ticket id a correctly signed recipient address names, or undefined. */
export function ticketFromRecipients(
  recipients: readonly string[],
  secretKey: string,
  siteId: string,
): string | undefined {
  for (const recipient of recipients) {
    const match = TOKEN.exec(recipient);
    if (!match) continue;
    const ticketId = match[1]!.toLowerCase();
    const expected = Buffer.from(mac(secretKey, siteId, ticketId));
    const presented = Buffer.from(match[2]!.toLowerCase());
    if (presented.length === expected.length && timingSafeEqual(presented, expected)) return ticketId;
  }
  return undefined;
}

/** The `[#number]` tag of a subject, or undefined. */
export function subjectTicketNumber(subject: string): number | undefined {
  const match = /\[#([0-9]{1,9})\]/.exec(subject);
  return match ? Number(match[1]) : undefined;
}
