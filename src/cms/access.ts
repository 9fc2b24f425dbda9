// Who is calling the Content API. Every route proves the community site the host names, then the
// caller: `Authorization: Bearer blu_sk_...` (an API key of this site) or the session of an account
// that manages the site. Then the plan (`cms_api`, Pro and above) and the route's scope.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { canManageSite } from '../core/sites/policy.js';
import type { SiteRow } from '../core/sites/tables.js';
import { bearerToken, checkSameOrigin, sessionUser } from '../core/auth.js';
import { AppError } from '../http/errors.js';
import { highestScope, requireScope, type CmsCaller, type CmsScope } from './policy.js';

interface CmsContext {
  site: SiteRow;
  caller: CmsCaller;
}

declare module 'fastify' {
  interface FastifyRequest {
    cms: CmsContext;
  }
}

function unauthorized(
  reply: FastifyReply,
  code: 'authentication_required' | 'invalid_token',
  detail: string,
): AppError {
  reply.header('WWW-Authenticate', 'Bearer realm="cms"');
  return new AppError(code, detail);
}

async function callerOf(request: FastifyRequest, reply: FastifyReply, site: SiteRow): Promise<CmsCaller> {
  const token = bearerToken(request);
  if (token) {
    const key = await request.server.services.credentials.verify(token, 'api_key');
    // A key of another site proves nothing here: the same answer as a wrong key.
    if (!key || key.siteId !== site.id)
      throw unauthorized(reply, 'invalid_token', 'The API key is invalid, revoked, or belongs to another site.');
    const scope = highestScope(key.scopes);
    if (!scope)
      throw new AppError('scope_missing', 'The API key has no Content API scope (cms-read, cms-write or admin).', {
        required_scope: 'cms-read',
      });
    return { kind: 'api_key', scope, id: key.id, name: key.name };
  }
  const user = await sessionUser(request);
  if (user && canManageSite(user, site)) {
    checkSameOrigin(request);
    return { kind: 'session', scope: 'admin', id: user.id, name: user.username };
  }
  throw unauthorized(reply, 'authentication_required', 'Send an API key as `Authorization: Bearer blu_sk_...`.');
}

/** preHandler for a route that needs `scope`. */
export function cmsAccess(scope: CmsScope) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const target = request.target;
    const site = target.kind === 'site' ? await request.server.services.sites.get(target.site) : undefined;
    if (!site || site.kind !== 'community')
      throw new AppError('site_not_found', `No site with a Content API answers at ${request.hostname}.`);
    const caller = await callerOf(request, reply, site);
    await request.server.services.plans.require(site, 'cms_api');
    requireScope(caller, scope);
    request.cms = { site, caller };
  };
}
