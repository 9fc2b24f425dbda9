// Who may use the deploy API: a deploy token of exactly that site (spec section 5); a site's build
// variables and domains also take the session of a team member with the role for it.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { bearerToken, requireBearer, requireSession } from '../core/auth.js';
import { authorizeSite } from '../core/sites/policy.js';
import { AppError } from '../http/errors.js';
import { declareSecurity } from '../http/openapi.js';
import type { SiteRole, SiteRow } from '../core/sites/tables.js';

/**
 * A preHandler: 401 without a valid deploy token, 403 when the token belongs to another site. A
 * token for another site answers 403 whether or not the named site exists, so it cannot probe ids.
 */
export async function requireSiteDeployToken(request: FastifyRequest<{ Params: { id: string } }>): Promise<void> {
  const credential = await requireBearer(request, 'deploy_token');
  if (credential.siteId !== request.params.id) {
    throw new AppError(
      'token_site_mismatch',
      `This deploy token is scoped to another site, not "${request.params.id}".`,
    );
  }
  const site = await request.server.services.sites.get(request.params.id);
  if (!site) throw new AppError('site_not_found', `No site "${request.params.id}".`);
  assertDeployable(site);
}

/** The deploy token a request was let in with, in words, as releases and build logs name who acted. */
export function deployTokenActor(request: FastifyRequest): string {
  return request.credential ? `deploy token "${request.credential.name}"` : 'a deploy token';
}

/** Deploys, builds and alias changes go to active static sites only, whoever asks. */
export function assertDeployable(site: SiteRow): void {
  if (site.status !== 'active')
    throw new AppError('site_suspended', `Site "${site.id}" is ${site.status}; it takes no deploys.`);
  if (site.kind !== 'static')
    throw new AppError('site_not_static', `Site "${site.id}" is a ${site.kind} site; deploys go to static sites.`);
}

/**
 * A preHandler for a site's build variables and domains: a deploy token of the site, or the session
 * of an account whose role on the site allows `needed` (decision 0142). Either way the site must take
 * deploys (an active static site).
 */
export function requireSiteTokenOrRole(
  needed: SiteRole,
): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const siteRequest = request as FastifyRequest<{ Params: { id: string } }>;
    if (bearerToken(request) !== undefined) return requireSiteDeployToken(siteRequest);
    await requireSession(request, reply);
    const id = siteRequest.params.id;
    const { site } = await authorizeSite(
      request.server.deps.database.db,
      request.user!,
      await request.server.services.sites.get(id),
      id,
      needed,
    );
    assertDeployable(site);
  };
  return declareSecurity(handler, [{ deployToken: [] }, { session: [] }]);
}

/** A preHandler for routes about the token itself: 401 without a valid deploy token. */
export async function requireDeployToken(request: FastifyRequest): Promise<void> {
  await requireBearer(request, 'deploy_token');
}

declareSecurity(requireDeployToken, [{ deployToken: [] }]);
declareSecurity(requireSiteDeployToken, [{ deployToken: [] }]);
