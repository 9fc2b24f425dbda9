import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { settingsScope } from '../core/settings/directory.js';
import { presentRestart, presentSettings } from '../core/settings/presenters.js';
import { RestartOut, SettingsMapIn, SettingsMapOut } from '../core/settings/schemas.js';
import {
  applyDesiredSettings,
  loadSettings,
  replaceDesiredSettings,
  settingsPending,
} from '../core/settings/service.js';
import type { SiteSettingsRow } from '../core/settings/tables.js';
import { SiteParams } from '../core/sites/schemas.js';
import type { InstanceAccess } from './policy.js';
import { problems } from '../http/openapi.js';

/** Tells the client whether saved settings wait for a restart. */
function pendingHeaders(reply: FastifyReply, row: SiteSettingsRow): void {
  reply.header('X-Settings-Pending', settingsPending(row) ? 'true' : 'false');
  reply.header('X-Settings-Generation', String(row.generation));
}

type IdRequest = FastifyRequest & { params: { id: string } };

export async function instanceRoutes(fastify: FastifyInstance, options: { access: InstanceAccess }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const db = app.deps.database.db;
  const { access } = options;

  app.get(
    '/instances/:id/env',
    {
      schema: {
        tags: ['settings'],
        summary: 'The desired settings map (secrets masked)',
        params: SiteParams,
        response: { 200: SettingsMapOut },
      },
      preHandler: access.authenticate,
      // Tagged with the epoch of the site's settings (src/http/etags.ts), once the caller may read them.
      config: {
        etag: async (request) => [
          await app.services.epochs.epochOf(settingsScope((await access.site(request as IdRequest)).id)),
        ],
      },
    },
    async (request, reply) => {
      const row = await loadSettings(db, (await access.site(request)).id);
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
        response: { 200: SettingsMapOut, ...problems(422) },
      },
      preHandler: access.authenticate,
    },
    async (request, reply) => {
      const row = await replaceDesiredSettings(
        db,
        (await access.site(request)).id,
        request.body,
        app.deps.config.secretKey,
      );
      pendingHeaders(reply, row);
      return presentSettings(row.desired);
    },
  );

  app.post(
    '/instances/:id/restart',
    {
      schema: {
        tags: ['settings'],
        summary: 'Apply the saved settings on every node and report what changed',
        params: SiteParams,
        response: { 200: RestartOut },
      },
      preHandler: access.authenticate,
    },
    async (request) => {
      const site = await access.site(request);
      const applied = await applyDesiredSettings(db, site.id);
      return presentRestart(site.id, applied);
    },
  );
}
