// Traps for sign-up bots (docs/decisions/0083-forum-signup-traps.md): a honeypot field people never
// see or fill, and a signed stamp of when the form was shown, so a form sent faster than a person
// types it (BLUME_SIGNUP_MIN_SECONDS), or a stamp that is forged, foreign or a day old, is refused.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The honeypot's field name: what autofill and bots take for a real field, left empty by people. */
export const HONEYPOT_FIELD = 'website';
export const STAMP_FIELD = 'shown_at';
const STAMP_LIFETIME_MS = 24 * 3600 * 1000;

function signature(secretKey: string, siteId: string, shownAt: number): string {
  return createHmac('sha256', secretKey).update(`forum-signup:${siteId}:${shownAt}`).digest('base64url');
}

/** The stamp a sign-up form carries: when it was shown, signed for this community. */
export function signupStamp(secretKey: string, siteId: string, shownAt = Date.now()): string {
  return `${shownAt}.${signature(secretKey, siteId, shownAt)}`;
}

export type SignupTrap = 'honeypot' | 'stale_form' | 'too_fast';

/** Which trap a sent sign-up form fell into, if any. */
export function signupTrap(
  secretKey: string,
  siteId: string,
  fields: { honeypot: string | undefined; stamp: string | undefined },
  minSeconds: number,
  now = Date.now(),
): SignupTrap | undefined {
  if (fields.honeypot) return 'honeypot';
  // 0 turns the time trap off, and with it the stamp.
  if (minSeconds === 0) return undefined;
  const [time = '', mac = ''] = (fields.stamp ?? '').split('.');
  const shownAt = /^\d{1,15}$/.test(time) ? Number(time) : NaN;
  const expected = Buffer.from(Number.isNaN(shownAt) ? '' : signature(secretKey, siteId, shownAt));
  const presented = Buffer.from(mac);
  if (expected.length === 0 || expected.length !== presented.length || !timingSafeEqual(expected, presented))
    return 'stale_form';
  if (now - shownAt > STAMP_LIFETIME_MS || shownAt > now + 60_000) return 'stale_form';
  if (now - shownAt < minSeconds * 1000) return 'too_fast';
  return undefined;
}
