import { siteOrigin } from '../../http/hosts.js';
import type { SiteOut } from './schemas.js';
import type { SiteRow } from './tables.js';

export interface UrlContext {
  publicUrl: URL;
  sitesDomain: string;
}

export function presentSite(site: SiteRow, urls: UrlContext): SiteOut {
  return {
    id: site.id,
    kind: site.kind,
    plan: site.plan,
    owner_id: site.ownerId,
    url: siteOrigin(urls.publicUrl, urls.sitesDomain, site.id),
    created_at: site.createdAt.toISOString(),
  };
}
