import { siteOrigin, type UrlBase } from '../../http/hosts.js';
import type { SiteOut } from './schemas.js';
import type { SiteRow } from './tables.js';

export interface UrlContext {
  /** How the client reached us (scheme and port); the host name is the configured sites domain. */
  base: UrlBase;
  sitesDomain: string;
}

export function presentSite(site: SiteRow, urls: UrlContext): SiteOut {
  return {
    id: site.id,
    kind: site.kind,
    plan: site.plan,
    owner_id: site.ownerId,
    url: siteOrigin(urls.base, urls.sitesDomain, site.id),
    created_at: site.createdAt.toISOString(),
  };
}
