// The CMS domain: its per-node services (`app.cms`: the content types it serves, the webhook
// sender), and the Content API at /api/cms/v1 on community site hosts: CORS from the site's
// API_CORS_ORIGINS (as the Forum API), an OpenAPI document built from the routes plus the site's own
// types; and the site's `/media/{id}` files. The editor pages (ui/) register beside the forum UI,
// outside this document, and use the same services.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { registerSiteApiCors } from '../core/settings/site-api-cors.js';
import { registerOpenApi } from '../http/openapi.js';
import { aiRoutes } from './ai-routes.js';
import { entryRoutes } from './entry-routes.js';
import { mediaRoutes, mediaServing } from './media-routes.js';
import { cmsOpenApi } from './openapi.js';
import { PublishedReads } from './published-reads.js';
import { revisionRoutes } from './revision-routes.js';
import { ContentTypeDirectory } from './type-directory.js';
import { typeRoutes } from './type-routes.js';
import { webhookRoutes } from './webhook-routes.js';
import { WebhookDispatcher } from './webhooks.js';

const CMS_API_PREFIX = '/api/cms/v1';

interface CmsRuntime {
  /** The content types the Content API serves, cached per node until one changes (decision 0052). */
  types: ContentTypeDirectory;
  /** Published lists and entries, cached per node until a write changes them (decision 0105). */
  reads: PublishedReads;
  /** Sends Content API webhooks queued by entry writes. */
  webhooks: WebhookDispatcher;
}

declare module 'fastify' {
  interface FastifyInstance {
    cms: CmsRuntime;
  }
}

async function cmsApi(app: FastifyInstance): Promise<void> {
  app.addHook('onRoute', (route) => {
    route.constraints = { ...route.constraints, surface: 'community' };
  });
  app.decorateRequest('cms', null as never);
  await registerOpenApi(app, {
    title: 'Blume Content API',
    description:
      "Content types and entries of a site (headless CMS). Authenticate with `Authorization: Bearer blu_sk_...` (scopes cms-read, cms-write, admin) or as the site owner's session. Lists take `page` and `page_size` (default 10, max 100), answer a bare JSON array, and carry `X-Pagination` and `Link` headers.",
    prefix: CMS_API_PREFIX,
    servedOn: 'site',
    extend: cmsOpenApi(CMS_API_PREFIX),
  });
  await app.register(
    async (api) => {
      await registerSiteApiCors(api);
      await api.register(typeRoutes);
      await api.register(entryRoutes);
      await api.register(revisionRoutes);
      await api.register(aiRoutes);
      await api.register(webhookRoutes);
      await api.register(mediaRoutes);
    },
    { prefix: CMS_API_PREFIX },
  );
  await app.register(mediaServing);
}

export const cmsPlugin = fp(
  async (app: FastifyInstance) => {
    const { database, config } = app.deps;
    const types = new ContentTypeDirectory(database.db, app.services.epochs);
    const reads = new PublishedReads(database.db, app.services.epochs);
    const webhooks = new WebhookDispatcher(database.db, config.secretKey, app.log, {
      embeddedDatabase: database.driver === 'pglite',
      allowPrivateTargets: config.webhooksAllowPrivate,
    });
    app.decorate('cms', { types, reads, webhooks } satisfies CmsRuntime);
    app.addHook('onReady', () => webhooks.start());
    app.addHook('onClose', async () => {
      await webhooks.stop();
    });
    await app.register(cmsApi);
  },
  { name: 'blume-cms' },
);
