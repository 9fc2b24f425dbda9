// Draft preview links an editor shares (docs/decisions/0139-cms-revisions-and-preview-links.md):
// `/preview/{type}/{id}?expires=<unix seconds>&sig=<HMAC>`, signed with SECRET_KEY over the site, the
// entry and the expiry, checked in constant time. Anyone holding the link reads the entry as it is
// now, drafts included, until it expires; rotating SECRET_KEY revokes every link at once.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** How long a link may be asked to live, in hours, and the default. */
export const PREVIEW_LIFETIMES = [1, 24, 24 * 7] as const;
export const DEFAULT_PREVIEW_HOURS = 24;

function signature(secretKey: string, siteId: string, type: string, entryId: string, expires: number): string {
  return createHmac('sha256', secretKey)
    .update(`cms-preview:${siteId}:${type}:${entryId}:${expires}`)
    .digest('base64url');
}

/** The site-relative link to the entry's preview, valid until `expiresAt`. */
export function previewPath(secretKey: string, siteId: string, type: string, entryId: string, expiresAt: Date): string {
  const expires = Math.floor(expiresAt.getTime() / 1000);
  const sig = signature(secretKey, siteId, type, entryId, expires);
  return `/preview/${encodeURIComponent(type)}/${encodeURIComponent(entryId)}?expires=${expires}&sig=${sig}`;
}

/** Whether a preview link's expiry and signature hold for the entry now. */
export function previewLinkHolds(
  secretKey: string,
  siteId: string,
  link: { type: string; entryId: string; expires: string; sig: string },
  now = new Date(),
): boolean {
  if (!/^\d{1,12}$/.test(link.expires)) return false;
  const expires = Number(link.expires);
  if (expires * 1000 <= now.getTime()) return false;
  const expected = Buffer.from(signature(secretKey, siteId, link.type, link.entryId, expires));
  const presented = Buffer.from(link.sig);
  return expected.length === presented.length && timingSafeEqual(expected, presented);
}
