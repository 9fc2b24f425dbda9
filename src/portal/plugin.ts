// The portal surface: account, site and credential APIs under /api on the portal host.
import type { FastifyInstance } from 'fastify';
import { registerOpenApi } from '../http/openapi.js';
import { domainCheckRoutes } from '../deploy/site-config-routes.js';
import { auditRoutes } from './audit-routes.js';
import { authRoutes } from './auth-routes.js';
import { credentialRoutes } from './credential-routes.js';
import { llmsRoutes, siteLlmsRoutes } from './llms.js';
import { siteRoutes } from './site-routes.js';
import { teamRoutes } from './team-routes.js';

export async function portalPlugin(app: FastifyInstance): Promise<void> {
  app.addHook('onRoute', (route) => {
    route.constraints = { ...route.constraints, surface: 'portal' };
  });
  await registerOpenApi(app, {
    title: 'Blume portal API',
    description:
      'Accounts, sites, deploy tokens and API keys. Authenticate with the `blume_session` cookie from POST /api/auth/login.',
    prefix: '/api',
    servedOn: 'portal',
  });
  await app.register(authRoutes, { prefix: '/api' });
  await app.register(siteRoutes, { prefix: '/api' });
  await app.register(credentialRoutes, { prefix: '/api' });
  await app.register(auditRoutes, { prefix: '/api' });
  await app.register(teamRoutes, { prefix: '/api' });
  await app.register(domainCheckRoutes);
  await app.register(llmsRoutes);
}

/** Each community site's own llms.txt and llms-full.txt, on its host. */
export async function siteLlmsPlugin(app: FastifyInstance): Promise<void> {
  app.addHook('onRoute', (route) => {
    route.constraints = { ...route.constraints, surface: 'community' };
  });
  await app.register(siteLlmsRoutes);
}
