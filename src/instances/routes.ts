import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { presentRestart, presentSettings } from '../core/settings/presenters.js';
import { RestartOut, SettingsMapIn, SettingsMapOut } from '../core/settings/schemas.js';
import { applyDesiredSettings, diffSettings, loadSettings, replaceDesiredSettings } from '../core/settings/service.js';
import type { SiteSettingsRow } from '../core/settings/tables.js';
import { authorizeSite } from '../core/sites/policy.js';
import { SiteParams } from '../core/sites/schemas.js';
import { findSite } from '../core/sites/service.js';
import type { SiteRow } from '../core/sites/tables.js';
import { requireSession } from '../http/auth.js';

/** Tells the client whether saved settings wait for a restart. */
function pendingHeaders(reply: FastifyReply, row: SiteSettingsRow): void {
  reply.header('X-Settings-Pending', diffSettings(row.applied, row.desired).length > 0 ? 'true' : 'false');
  reply.header('X-Settings-Generation', String(row.generation));
}

export async function instanceRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const db = app.deps.database.db;

  // The site owner or a platform administrator; everybody else gets 404.
  const managedSite = async (request: FastifyRequest & { params: { id: string } }): Promise<SiteRow> =>
    authorizeSite(request.user!, await findSite(db, request.params.id), request.params.id);

  app.get(
    '/instances/:id/env',
    {
      schema: { tags: ['settings'], summary: 'The desired settings map (secrets masked)', params: SiteParams, response: { 200: SettingsMapOut } },
      preHandler: requireSession,
    },
    async (request, reply) => {
      const row = await loadSettings(db, (await managedSite(request)).id);
      pendingHeaders(reply, row);
      return presentSettings(row.desired);
    },
  );

  app.put(
    '/instances/:id/env',
    {
      schema: {
        tags: ['settings'],
        summary: 'Replace the whole settings map; takes effect at the next restart',
        params: SiteParams,
        body: SettingsMapIn,
        response: { 200: SettingsMapOut },
      },
      preHandler: requireSession,
    },
    async (request, reply) => {
      const row = await replaceDesiredSettings(db, (await managedSite(request)).id, request.body);
      pendingHeaders(reply, row);
      return presentSettings(row.desired);
    },
  );

  app.post(
    '/instances/:id/restart',
    {
      schema: { tags: ['settings'], summary: 'Apply the saved settings on every node and report what changed', params: SiteParams, response: { 200: RestartOut } },
      preHandler: requireSession,
    },
    async (request) => {
      const site = await managedSite(request);
      const applied = await applyDesiredSettings(db, site.id);
      await app.instanceSettings.changed(site.id);
      return presentRestart(site.id, applied);
    },
  );
}
