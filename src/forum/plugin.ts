// The community surface's Forum API at /api/forum/v1: routes answer only on community site hosts,
// CORS follows the site's applied API_CORS_ORIGINS, and the OpenAPI document is built from the routes.
import cors from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { InstanceSettings } from '../core/settings/allowlist.js';
import { registerOpenApi } from '../http/openapi.js';
import { uploadRoutes, uploadServing } from './upload-routes.js';
import { memberRoutes } from './member-routes.js';
import { ThreadedPostOut } from './schemas.js';
import { structureRoutes } from './structure-routes.js';
import { topicRoutes } from './topic-routes.js';
import { waitlistRoutes } from './waitlist-routes.js';

export const FORUM_API_PREFIX = '/api/forum/v1';

/** The CORS answer for a request: its origin when the site's applied settings allow it. */
function allowedOrigin(settings: InstanceSettings, origin: string | undefined): string | false {
  if (!origin || settings.corsOrigins.length === 0) return false;
  if (settings.corsOrigins[0] === '*') return '*';
  return settings.corsOrigins.includes(origin.toLowerCase()) ? origin : false;
}

/**
 * CORS for a site API, decided per request from the applied settings of the site the host names.
 * Other site APIs (content, help desk) register it the same way.
 */
export async function registerSiteApiCors(app: FastifyInstance): Promise<void> {
  await app.register(cors, {
    hideOptionsRoute: true,
    delegator: async (request: FastifyRequest) => {
      const target = request.target ?? request.raw.blumeTarget;
      const settings = target && target.kind === 'site' ? await app.instanceSettings.applied(target.site) : undefined;
      return {
        origin: settings ? allowedOrigin(settings, request.headers.origin) : false,
        methods: ['GET', 'HEAD', 'POST', 'PATCH', 'PUT', 'DELETE'],
        allowedHeaders: ['Authentication-Token', 'Authorization', 'Content-Type', 'If-Match'],
        exposedHeaders: ['X-Pagination', 'Link', 'Retry-After', 'WWW-Authenticate', 'ETag'],
        credentials: false,
        maxAge: 600,
      };
    },
  });
}

export async function forumPlugin(app: FastifyInstance): Promise<void> {
  app.addHook('onRoute', (route) => {
    route.constraints = { ...route.constraints, surface: 'community' };
  });
  app.decorateRequest('forum', null as never);
  app.addSchema(ThreadedPostOut);
  await registerOpenApi(app, {
    title: 'Blume Forum API',
    description:
      'Forums, topics and posts of a community instance. Authenticate with `Authentication-Token: <forum token>` (POST /auth/tokens mints one); anonymous reads work only when the instance enables FORUM_API_PUBLIC_READ and sets API_CORS_ORIGINS. Lists take `page` and `page_size` (default 10, max 100), answer a bare JSON array, and carry `X-Pagination` and `Link` headers.',
    prefix: FORUM_API_PREFIX,
    servedOn: 'site',
  });
  await app.register(
    async (api) => {
      await registerSiteApiCors(api);
      await api.register(structureRoutes);
      await api.register(topicRoutes);
      await api.register(memberRoutes);
      await api.register(waitlistRoutes);
      await api.register(uploadRoutes);
    },
    { prefix: FORUM_API_PREFIX },
  );
  await app.register(uploadServing);
}
