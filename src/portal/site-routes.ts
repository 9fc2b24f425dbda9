import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { presentSite, urlContext } from '../core/sites/presenters.js';
import { authorizePlanChoice, authorizeSite } from '../core/sites/policy.js';
import { CreateSiteBody, SiteOut, SiteParams } from '../core/sites/schemas.js';
import { createSite, deleteSite, findSite, listSites } from '../core/sites/service.js';
import { requireSession } from '../core/auth.js';
import { problems } from '../http/openapi.js';

export async function siteRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const db = app.deps.database.db;

  app.post(
    '/sites',
    {
      schema: {
        tags: ['sites'],
        summary: 'Create a site',
        body: CreateSiteBody,
        response: { 201: SiteOut, ...problems(409, 422) },
      },
      preHandler: requireSession,
    },
    async (request, reply) => {
      const defaultPlan = app.deps.config.defaultPlan;
      authorizePlanChoice(request.user!, request.body.plan, defaultPlan);
      const site = await createSite(db, request.user!, { ...request.body, plan: request.body.plan ?? defaultPlan });
      return reply.code(201).send(presentSite(site, urlContext(request)));
    },
  );

  app.get(
    '/sites',
    {
      schema: {
        tags: ['sites'],
        summary: 'Sites you own (all sites for administrators)',
        response: { 200: Type.Array(SiteOut) },
      },
      preHandler: requireSession,
      config: { etag: 'body' },
    },
    async (request) => (await listSites(db, request.user!)).map((site) => presentSite(site, urlContext(request))),
  );

  app.get(
    '/sites/:id',
    {
      schema: { tags: ['sites'], summary: 'One site', params: SiteParams, response: { 200: SiteOut } },
      preHandler: requireSession,
      config: { etag: 'body' },
    },
    async (request) =>
      presentSite(
        (await authorizeSite(db, request.user!, await findSite(db, request.params.id), request.params.id, 'viewer'))
          .site,
        urlContext(request),
      ),
  );

  app.delete(
    '/sites/:id',
    {
      schema: {
        tags: ['sites'],
        summary: 'Delete a site and everything in it',
        params: SiteParams,
        response: { 204: Type.Null() },
      },
      preHandler: requireSession,
    },
    async (request, reply) => {
      const { site } = await authorizeSite(db, request.user!, await findSite(db, request.params.id), request.params.id);
      await deleteSite(db, site.id);
      return reply.code(204).send(null);
    },
  );
}
