import type { FastifyRequest } from 'fastify';
import { requestUrlBase, siteOrigin, type UrlBase } from '../../http/hosts.js';
import type { SiteOut } from './schemas.js';
import type { SiteRow } from './tables.js';

export interface UrlContext {
  /** How the client reached us (scheme and port); the host name is the configured sites domain. */
  base: UrlBase;
  sitesDomain: string;
}

/**
 * Site URLs for answers to this request: the configured sites domain (host routing depends on it)
 * with the scheme and port the client used, so a TLS-terminating proxy yields https links.
 */
export function urlContext(request: FastifyRequest): UrlContext {
  return { base: requestUrlBase(request), sitesDomain: request.server.deps.config.sitesDomain };
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
