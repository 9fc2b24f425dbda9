// A static site's build environment variables and custom domains under /api/deploy/{id} (decision
// 0142), for a deploy token of the site or a team member's session (viewers read, developers write),
// and the host check a TLS proxy asks before it gets a certificate for a domain.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../http/errors.js';
import { problems } from '../http/openapi.js';
import { addDomain, listDomains, normalizeDomain, removeDomain, type PlatformHosts } from './domains.js';
import { deleteEnvVar, listEnvVars, setEnvVar } from './env-vars.js';
import { requireSiteTokenOrRole } from './policy.js';
import { presentDomain, presentEnvVar } from './presenters.js';
import {
  DeploySiteParams,
  DomainBody,
  DomainCheckOut,
  DomainCheckQuery,
  DomainOut,
  DomainParams,
  EnvVarBody,
  EnvVarOut,
  EnvVarParams,
  EnvVarQuery,
} from './schemas.js';

export function platformHosts(app: FastifyInstance): PlatformHosts {
  return { portalHost: app.deps.config.publicUrl.hostname.toLowerCase(), sitesDomain: app.deps.config.sitesDomain };
}

export async function siteConfigRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app.deps.database;
  const secretKey = app.deps.config.secretKey;
  const read = requireSiteTokenOrRole('viewer');
  const write = requireSiteTokenOrRole('developer');

  app.get(
    '/api/deploy/:id/env',
    {
      schema: {
        tags: ['environment'],
        summary: "The site's build environment variables (secret values are null)",
        params: DeploySiteParams,
        response: { 200: Type.Array(EnvVarOut) },
      },
      preHandler: read,
    },
    async (request) => (await listEnvVars(db, request.params.id)).map((row) => presentEnvVar(row, secretKey)),
  );
  app.put(
    '/api/deploy/:id/env/:name',
    {
      schema: {
        tags: ['environment'],
        summary: 'Set a build environment variable for a context (201 new, 200 replaced)',
        params: EnvVarParams,
        body: EnvVarBody,
        response: { 200: EnvVarOut, 201: EnvVarOut, ...problems(422) },
      },
      preHandler: write,
    },
    async (request, reply) => {
      const { row, created } = await setEnvVar(db, secretKey, request.params.id, {
        name: request.params.name,
        context: request.body.context ?? 'all',
        value: request.body.value,
        secret: request.body.secret ?? false,
      });
      return reply.code(created ? 201 : 200).send(presentEnvVar(row, secretKey));
    },
  );
  app.delete(
    '/api/deploy/:id/env/:name',
    {
      schema: {
        tags: ['environment'],
        summary: "Delete a build environment variable's value for a context (default `all`)",
        params: EnvVarParams,
        querystring: EnvVarQuery,
        response: { 204: Type.Null() },
      },
      preHandler: write,
    },
    async (request, reply) => {
      await deleteEnvVar(db, request.params.id, request.params.name, request.query.context ?? 'all');
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/api/deploy/:id/domains',
    {
      schema: {
        tags: ['domains'],
        summary: "The site's custom domains",
        params: DeploySiteParams,
        response: { 200: Type.Array(DomainOut) },
      },
      preHandler: read,
    },
    async (request) => (await listDomains(db, request.params.id)).map(presentDomain),
  );
  app.post(
    '/api/deploy/:id/domains',
    {
      schema: {
        tags: ['domains'],
        summary: 'Add a custom domain: the edge serves the live release on it',
        params: DeploySiteParams,
        body: DomainBody,
        response: { 201: DomainOut, ...problems(409, 422) },
      },
      preHandler: write,
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(presentDomain(await addDomain(db, request.params.id, request.body.domain, platformHosts(app)))),
  );
  app.delete(
    '/api/deploy/:id/domains/:domain',
    {
      schema: {
        tags: ['domains'],
        summary: 'Remove a custom domain',
        params: DomainParams,
        response: { 204: Type.Null() },
      },
      preHandler: write,
    },
    async (request, reply) => {
      await removeDomain(db, request.params.id, request.params.domain);
      return reply.code(204).send(null);
    },
  );
}

/**
 * The host check for on-demand TLS (Caddy's `ask`): 200 when the domain serves an active site, 404
 * otherwise, so a proxy gets certificates only for names Blume serves. No credential: the proxy asks.
 */
export async function domainCheckRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/domains/check',
    {
      schema: {
        tags: ['domains'],
        summary: 'Whether a custom domain serves a site (for a TLS proxy deciding on a certificate)',
        querystring: DomainCheckQuery,
        response: { 200: DomainCheckOut, ...problems(404) },
      },
    },
    async (request) => {
      let domain: string;
      try {
        domain = normalizeDomain(request.query.domain, platformHosts(app));
      } catch (error) {
        if (error instanceof AppError)
          throw new AppError('domain_not_found', `"${request.query.domain}" serves no site.`);
        throw error;
      }
      const siteId = await app.services.domains.get(domain);
      const site = siteId ? await app.services.sites.get(siteId) : undefined;
      if (!site || site.status !== 'active') throw new AppError('domain_not_found', `"${domain}" serves no site.`);
      return { domain, site: site.id };
    },
  );
}
