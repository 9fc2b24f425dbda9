// The purchase API at {portal_url}/api/purchase/v1, with its own OpenAPI document, the audit log of
// its calls and the job that purges canceled workspaces.
import type { FastifyInstance } from 'fastify';
import { registerOpenApi } from '../http/openapi.js';
import { WorkspacePurger } from './purge.js';
import { purchaseRoutes } from './routes.js';
import { recordCall } from './service.js';

const PREFIX = '/api/purchase/v1';

export async function purchasePlugin(app: FastifyInstance): Promise<void> {
  app.addHook('onRoute', (route) => {
    route.constraints = { ...route.constraints, surface: 'portal' };
  });
  const db = app.deps.database.db;
  const purger = new WorkspacePurger(db, app.log, () => app.services.epochs.announce(), {
    embeddedDatabase: app.deps.database.driver === 'pglite',
  });
  app.addHook('onReady', () => purger.start());
  app.addHook('onClose', () => purger.stop());

  // Every call but the document itself: which key, what, on which workspace, when, and the answer.
  app.addHook('onResponse', async (request, reply) => {
    if (request.routeOptions.url === `${PREFIX}/openapi.json`) return;
    const params = request.params as { id?: string } | undefined;
    const body = request.body as { site_id?: unknown } | undefined;
    const target = params?.id ?? (typeof body?.site_id === 'string' ? body.site_id : null);
    await recordCall(db, {
      credentialId: request.credential?.id ?? null,
      method: request.method,
      path: request.url.split('?')[0]!.slice(0, 500),
      target: target?.slice(0, 64) ?? null,
      status: reply.statusCode,
    });
  });

  await registerOpenApi(app, {
    title: 'Blume purchase API',
    description:
      'Provision and manage workspaces from a billing system. Authenticate with a purchase key: `Authorization: Bearer pk_<id>.<secret>`. A key reaches only the workspaces it provisioned; others answer 404.',
    prefix: PREFIX,
    servedOn: 'portal',
  });
  await app.register(purchaseRoutes, { prefix: PREFIX });
}
