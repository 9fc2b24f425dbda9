// The Help desk API at /api/helpdesk/v1 on community site hosts: CORS from the site's
// API_CORS_ORIGINS (as the Forum API) and its OpenAPI document; and what the API and the help
// desk's pages share on a node.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { registerSiteApiCors } from '../core/settings/site-api-cors.js';
import { registerOpenApi } from '../http/openapi.js';
import { deskRoutes } from './desk-routes.js';
import { inboundRoutes } from './inbound-routes.js';
import { libraryRoutes } from './library-routes.js';
import { TicketListCache } from './cached-lists.js';
import { reportRoutes } from './report-routes.js';
import { ticketRoutes } from './ticket-routes.js';

const HELPDESK_API_PREFIX = '/api/helpdesk/v1';

declare module 'fastify' {
  interface FastifyInstance {
    /** Pages of ticket lists this node keeps until the site's tickets change. */
    ticketLists: TicketListCache;
  }
}

/** What the help desk's API and pages share on a node; registered before either. */
export const helpdeskRuntimePlugin = fp(
  async (app: FastifyInstance) => {
    app.decorate('ticketLists', new TicketListCache(app.services.epochs));
  },
  { name: 'blume-helpdesk-runtime' },
);

export async function helpdeskPlugin(app: FastifyInstance): Promise<void> {
  app.addHook('onRoute', (route) => {
    route.constraints = { ...route.constraints, surface: 'community' };
  });
  app.decorateRequest('helpdesk', null as never);
  await registerOpenApi(app, {
    title: 'Blume Help desk API',
    description:
      "Tickets, their thread, categories, agents, SLA policies and reports of a site's help desk. Authenticate with `Authorization: Bearer blu_sk_...` (scopes helpdesk-read, helpdesk-write), an agent's forum token (`Authentication-Token`) or member session, or the site owner's session. Lists take `page` and `page_size` (default 10, max 100), answer a bare JSON array, and carry `X-Pagination` and `Link` headers.",
    prefix: HELPDESK_API_PREFIX,
    servedOn: 'site',
  });
  await app.register(
    async (api) => {
      await registerSiteApiCors(api);
      await api.register(ticketRoutes);
      await api.register(deskRoutes);
      await api.register(libraryRoutes);
      await api.register(inboundRoutes);
      await api.register(reportRoutes);
    },
    { prefix: HELPDESK_API_PREFIX },
  );
}
