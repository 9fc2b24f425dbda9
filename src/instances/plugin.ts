// The instance settings API on the portal host: /api/instances/{id}/env and /restart, account session.
import type { FastifyInstance } from 'fastify';
import { registerOpenApi } from '../http/openapi.js';
import { instanceRoutes } from './routes.js';

export async function instancesPlugin(app: FastifyInstance): Promise<void> {
  app.addHook('onRoute', (route) => {
    route.constraints = { ...route.constraints, surface: 'portal' };
  });
  await registerOpenApi(app, {
    title: 'Blume instance settings API',
    description:
      'Read and replace the allowlisted settings of a site, then POST /restart to apply them. Authenticate with the `blume_session` cookie from POST /api/auth/login.',
    prefix: '/api/instances',
  });
  await app.register(instanceRoutes, { prefix: '/api' });
}
