// Shared preview links: a release's preview URL with a token that stands in for the basic-auth
// password until it expires (decision 0141). The token is `<expiry>.<HMAC>` over the site, the release,
// the expiry and the site's preview password, keyed with SECRET_KEY: nothing is stored, a token opens
// only its own release's host, and a new preview password voids every link made before it. The edge
// trades a valid token for a cookie on that one host, so the page's own links and assets load.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** The query parameter a shared link carries its token in. */
export const PREVIEW_TOKEN_PARAM = 'preview_token';
/** The host-only cookie the edge sets from a valid token. */
export const PREVIEW_COOKIE = 'blume_preview';

export const PREVIEW_LINK_MIN_SECONDS = 5 * 60;
export const PREVIEW_LINK_MAX_SECONDS = 30 * 24 * 3600;

/** Lifetimes the console offers, in seconds, with their words. */
export const PREVIEW_LINK_CHOICES: ReadonlyArray<readonly [number, string]> = [
  [3600, '1 hour'],
  [24 * 3600, '1 day'],
  [7 * 24 * 3600, '7 days'],
  [30 * 24 * 3600, '30 days'],
];

export interface PreviewScope {
  siteId: string;
  releaseId: string;
  /** The site's current preview password; a new one voids older links. */
  password: string;
}

function signature(secretKey: string, scope: PreviewScope, expires: number): Buffer {
  const password = createHash('sha256').update(scope.password).digest('hex');
  return createHmac('sha256', secretKey)
    .update(`preview-link:${scope.siteId}:${scope.releaseId}:${expires}:${password}`)
    .digest();
}

/** A token valid until `expiresAt` (whole seconds). */
export function signPreviewToken(secretKey: string, scope: PreviewScope, expiresAt: Date): string {
  const expires = Math.floor(expiresAt.getTime() / 1000);
  return `${expires}.${signature(secretKey, scope, expires).toString('base64url')}`;
}

type PreviewTokenCheck = { ok: true; expiresAt: Date } | { ok: false; reason: 'invalid' | 'expired' };

/** Checks a token in constant time; an expired one is named as such only once its signature holds. */
export function checkPreviewToken(
  secretKey: string,
  scope: PreviewScope,
  token: string,
  now = Date.now(),
): PreviewTokenCheck {
  const match = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match) return { ok: false, reason: 'invalid' };
  const expires = Number(match[1]);
  const presented = Buffer.from(match[2]!, 'base64url');
  const expected = signature(secretKey, scope, expires);
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected))
    return { ok: false, reason: 'invalid' };
  if (expires * 1000 <= now) return { ok: false, reason: 'expired' };
  return { ok: true, expiresAt: new Date(expires * 1000) };
}

/** The preview URL with a token for `seconds` from now. */
export function previewLink(
  secretKey: string,
  scope: PreviewScope,
  previewUrl: string,
  seconds: number,
  now = Date.now(),
): { url: string; expiresAt: Date } {
  const expiresAt = new Date(now + seconds * 1000);
  const url = new URL(previewUrl);
  url.pathname = '/';
  url.searchParams.set(PREVIEW_TOKEN_PARAM, signPreviewToken(secretKey, scope, expiresAt));
  return { url: url.toString(), expiresAt: new Date(Math.floor(expiresAt.getTime() / 1000) * 1000) };
}
