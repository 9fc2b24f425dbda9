// Who may read and change a site's instance settings. On a platform: the site's owner or a platform
// administrator, by account session (strangers get 404). On a single instance there is no portal:
// an admin member of the community, by forum token (`Authentication-Token`) or by member session
// cookie with the forum UI's CSRF rules (same origin, and the page's token in `X-CSRF-Token`).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { authorizeSite } from '../core/sites/policy.js';
import { findSite } from '../core/sites/service.js';
import type { SiteRow } from '../core/sites/tables.js';
import { TOKEN_HEADER } from '../forum/access.js';
import { effectiveRole, findTokenMember, type ForumMemberRow } from '../forum/members.js';
import { refuseSuspended } from '../forum/moderation.js';
import { verifyCsrf } from '../http/csrf.js';
import { MEMBER_COOKIE, memberForSession } from '../forum/ui/sessions.js';
import { requireSession } from '../core/auth.js';
import { AppError } from '../http/errors.js';

const CSRF_HEADER = 'x-csrf-token';

type SiteRequest = FastifyRequest & { params: { id: string } };

export interface InstanceAccess {
  /** Proves who calls (401 otherwise). */
  authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** The site named by the path when the caller may manage it; throws 403 or 404 otherwise. */
  site(request: SiteRequest): Promise<SiteRow>;
}

export const platformAccess: InstanceAccess = {
  authenticate: requireSession,
  site: async (request) => {
    const db = request.server.deps.database.db;
    return (await authorizeSite(db, request.user!, await findSite(db, request.params.id), request.params.id)).site;
  },
};

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return (Array.isArray(value) ? value[0] : value)?.trim() || undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The community member an instance settings request of a single instance is made by. */
    instanceMember?: ForumMemberRow;
  }
}

/** Access on a single community instance: its admins only. */
export function singleAccess(siteId: string): InstanceAccess {
  const community = async (request: FastifyRequest): Promise<SiteRow> => {
    const site = await request.server.services.sites.get(siteId);
    if (!site) throw new AppError('site_not_found', `No community instance "${siteId}".`);
    return site;
  };
  return {
    async authenticate(request, reply) {
      const site = await community(request);
      const db = request.server.deps.database.db;
      const token = header(request, TOKEN_HEADER);
      if (token) {
        const member = await findTokenMember(db, site.id, token);
        if (!member) {
          reply.header('WWW-Authenticate', 'Authentication-Token realm="forum"');
          throw new AppError('invalid_token', 'The forum token is invalid, revoked, or belongs to another community.');
        }
        request.instanceMember = member;
        return;
      }
      const cookie = request.cookies[MEMBER_COOKIE];
      const session = cookie ? await memberForSession(db, site.id, cookie) : undefined;
      if (!session) {
        reply.header('WWW-Authenticate', 'Authentication-Token realm="forum"');
        throw new AppError(
          'authentication_required',
          "Send an admin's forum token in `Authentication-Token`, or log in at /login.",
        );
      }
      if (request.method !== 'GET' && request.method !== 'HEAD')
        verifyCsrf(request, site.id, session.id, header(request, CSRF_HEADER));
      request.instanceMember = session.member;
    },
    async site(request) {
      const site = await community(request);
      if (request.params.id !== site.id)
        throw new AppError('site_not_found', `No site "${request.params.id}"; this instance is "${site.id}".`);
      const member = request.instanceMember!;
      if (member.banned) throw new AppError('member_banned', 'This member is banned from the community.');
      refuseSuspended(member);
      refuseSuspended(member);
      if (effectiveRole(site, member) !== 'admin')
        throw new AppError('forbidden', 'Only admins of this community may manage its settings.');
      return site;
    },
  };
}
