import type { FastifyRequest } from 'fastify';
import { requestUrlBase, siteOrigin, type UrlBase } from '../../http/hosts.js';
import type { InvitationOut, MemberOut, SiteOut } from './schemas.js';
import type { SiteInvitationRow, SiteRow } from './tables.js';
import type { TeamMember } from './team.js';

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

export function presentMember(member: TeamMember): MemberOut {
  return {
    user_id: member.user.id,
    username: member.user.username,
    email: member.user.email,
    role: member.role,
    owner_of_record: member.ownerOfRecord,
    since: member.since.toISOString(),
  };
}

/** An invitation without its secret, which only the mail (or, without mail, the one answer) carries. */
export function presentInvitation(row: SiteInvitationRow): InvitationOut {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
  };
}
