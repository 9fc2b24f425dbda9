// The Content API at /api/cms/v1 on community site hosts: CORS from the site's API_CORS_ORIGINS
// (as the Forum API), an OpenAPI document built from the routes plus the site's own types; and the
// site's `/media/{id}` files. The editor pages (ui/) register beside the forum UI, outside this document.
import type { FastifyInstance } from 'fastify';
import { registerSiteApiCors } from '../forum/plugin.js';
import { registerOpenApi } from '../http/openapi.js';
import { aiRoutes } from './ai-routes.js';
import { entryRoutes } from './entry-routes.js';
import { mediaRoutes, mediaServing } from './media-routes.js';
import { cmsOpenApi } from './openapi.js';
import { typeRoutes } from './type-routes.js';
import { webhookRoutes } from './webhook-routes.js';

export const CMS_API_PREFIX = '/api/cms/v1';

export async function cmsPlugin(app: FastifyInstance): Promise<void> {
  app.addHook('onRoute', (route) => {
    route.constraints = { ...route.constraints, surface: 'community' };
  });
  app.decorateRequest('cms', null as never);
  await registerOpenApi(app, {
    title: 'Blume Content API',
    description:
      'Content types and entries of a site (headless CMS). Authenticate with `Authorization: Bearer blu_sk_...` (scopes cms-read, cms-write, admin) or as the site owner\'s session. Lists take `page` and `page_size` (default 10, max 100), answer a bare JSON array, and carry `X-Pagination` and `Link` headers.',
    prefix: CMS_API_PREFIX,
    servedOn: 'site',
    extend: cmsOpenApi(CMS_API_PREFIX),
  });
  await app.register(
    async (api) => {
      await registerSiteApiCors(api);
      await api.register(typeRoutes);
      await api.register(entryRoutes);
      await api.register(aiRoutes);
      await api.register(webhookRoutes);
      await api.register(mediaRoutes);
    },
    { prefix: CMS_API_PREFIX },
  );
  await app.register(mediaServing);
}
