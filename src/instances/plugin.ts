// The instance settings API: /api/instances/{id}/env and /restart. On a platform it answers on the
// portal host to the site's owner (account session); on a single community instance, on every host
// to the community's admins (forum token or member session), see policy.ts.
import type { FastifyInstance } from 'fastify';
import { registerOpenApi } from '../http/openapi.js';
import { platformAccess, singleAccess } from './policy.js';
import { instanceRoutes } from './routes.js';

export async function instancesPlugin(app: FastifyInstance): Promise<void> {
  const { mode, singleSite } = app.deps;
  const single = mode === 'single' && singleSite !== undefined;
  app.addHook('onRoute', (route) => {
    route.constraints = { ...route.constraints, surface: single ? 'community' : 'portal' };
  });
  await registerOpenApi(app, {
    title: 'Blume instance settings API',
    description: single
      ? "Read and replace the allowlisted settings of this community instance, then POST /restart to apply them on every node. Authenticate as an admin of the community: `Authentication-Token: <forum token>`, or the `blume_member` cookie from /login with the page's CSRF token in `X-CSRF-Token` for writes."
      : 'Read and replace the allowlisted settings of a site, then POST /restart to apply them. Authenticate with the `blume_session` cookie from POST /api/auth/login.',
    prefix: '/api/instances',
    servedOn: 'portal',
  });
  await app.register(instanceRoutes, { prefix: '/api', access: single ? singleAccess(singleSite) : platformAccess });
}
