import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  presentApiKey,
  presentApiKeyCreated,
  presentToken,
  presentTokenCreated,
} from '../core/credentials/presenters.js';
import {
  ApiKeyBody,
  ApiKeyCreatedOut,
  ApiKeyOut,
  NameBody,
  TokenCreatedOut,
  TokenOut,
} from '../core/credentials/schemas.js';
import { listCredentials, mintCredential, type CredentialKind } from '../core/credentials/service.js';
import { authorizeSite } from '../core/sites/policy.js';
import { SiteParams } from '../core/sites/schemas.js';
import { findSite } from '../core/sites/service.js';
import type { SiteRole, SiteRow } from '../core/sites/tables.js';
import { requirePlatformAdmin, requireSession } from '../core/auth.js';
import { AppError } from '../http/errors.js';
import { problems } from '../http/openapi.js';

const CredentialParams = Type.Object({
  id: Type.String({ maxLength: 64 }),
  credential_id: Type.String({ maxLength: 64 }),
});

export async function credentialRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const db = app.deps.database.db;

  /** The site when the caller's role allows `needed`: developers handle deploy tokens, owners API keys. */
  const managedSite = async (
    request: FastifyRequest & { params: { id: string } },
    needed: SiteRole = 'owner',
  ): Promise<SiteRow> =>
    (await authorizeSite(db, request.user!, await findSite(db, request.params.id), request.params.id, needed)).site;

  const revoke = async (kind: CredentialKind, siteId: string, id: string): Promise<void> => {
    if (!(await app.services.credentials.revoke(id, { kind, siteId })))
      throw new AppError('credential_not_found', `No such credential "${id}".`);
  };

  // Deploy tokens: one site each, every plan.
  app.post(
    '/sites/:id/deploy-tokens',
    {
      schema: {
        tags: ['credentials'],
        summary: 'Mint a deploy token (shown once); 422 site_not_static for a community site',
        params: SiteParams,
        body: NameBody,
        response: { 201: TokenCreatedOut, ...problems(422) },
      },
      preHandler: requireSession,
    },
    async (request, reply) => {
      const site = await managedSite(request, 'developer');
      // A community site takes no deploys: a token for it could do nothing.
      if (site.kind !== 'static')
        throw new AppError(
          'site_not_static',
          `Site "${site.id}" is a ${site.kind} site; deploy tokens are for static sites.`,
        );
      const minted = await mintCredential(db, {
        kind: 'deploy_token',
        siteId: site.id,
        subjectId: request.user!.id,
        name: request.body.name,
      });
      return reply.code(201).send(presentTokenCreated(minted));
    },
  );
  app.get(
    '/sites/:id/deploy-tokens',
    {
      schema: {
        tags: ['credentials'],
        summary: 'Live deploy tokens (no secrets)',
        params: SiteParams,
        response: { 200: Type.Array(TokenOut) },
      },
      preHandler: requireSession,
    },
    async (request) =>
      (await listCredentials(db, { kind: 'deploy_token', siteId: (await managedSite(request, 'viewer')).id })).map(
        presentToken,
      ),
  );
  app.delete(
    '/sites/:id/deploy-tokens/:credential_id',
    {
      schema: {
        tags: ['credentials'],
        summary: 'Revoke a deploy token',
        params: CredentialParams,
        response: { 204: Type.Null() },
      },
      preHandler: requireSession,
    },
    async (request, reply) => {
      await revoke('deploy_token', (await managedSite(request, 'developer')).id, request.params.credential_id);
      return reply.code(204).send(null);
    },
  );

  // API keys for the content and help desk APIs, with scopes.
  app.post(
    '/sites/:id/api-keys',
    {
      schema: {
        tags: ['credentials'],
        summary: 'Mint an API key (shown once)',
        params: SiteParams,
        body: ApiKeyBody,
        response: { 201: ApiKeyCreatedOut },
      },
      preHandler: requireSession,
    },
    async (request, reply) => {
      const site = await managedSite(request);
      const minted = await mintCredential(db, {
        kind: 'api_key',
        siteId: site.id,
        subjectId: request.user!.id,
        name: request.body.name,
        scopes: request.body.scopes,
      });
      return reply.code(201).send(presentApiKeyCreated(minted));
    },
  );
  app.get(
    '/sites/:id/api-keys',
    {
      schema: {
        tags: ['credentials'],
        summary: 'Live API keys (no secrets)',
        params: SiteParams,
        response: { 200: Type.Array(ApiKeyOut) },
      },
      preHandler: requireSession,
    },
    async (request) =>
      (await listCredentials(db, { kind: 'api_key', siteId: (await managedSite(request)).id })).map(presentApiKey),
  );
  app.delete(
    '/sites/:id/api-keys/:credential_id',
    {
      schema: {
        tags: ['credentials'],
        summary: 'Revoke an API key',
        params: CredentialParams,
        response: { 204: Type.Null() },
      },
      preHandler: requireSession,
    },
    async (request, reply) => {
      await revoke('api_key', (await managedSite(request)).id, request.params.credential_id);
      return reply.code(204).send(null);
    },
  );

  // Purchase keys: platform-wide, minted by platform administrators.
  app.post(
    '/admin/purchase-keys',
    {
      schema: {
        tags: ['admin'],
        summary: 'Mint a purchase API key (shown once)',
        body: NameBody,
        response: { 201: TokenCreatedOut },
      },
      preHandler: requirePlatformAdmin,
    },
    async (request, reply) => {
      const minted = await mintCredential(db, {
        kind: 'purchase_key',
        subjectId: request.user!.id,
        name: request.body.name,
      });
      return reply.code(201).send(presentTokenCreated(minted));
    },
  );
  app.get(
    '/admin/purchase-keys',
    {
      schema: { tags: ['admin'], summary: 'Live purchase keys (no secrets)', response: { 200: Type.Array(TokenOut) } },
      preHandler: requirePlatformAdmin,
    },
    async () => (await listCredentials(db, { kind: 'purchase_key' })).map(presentToken),
  );
  app.delete(
    '/admin/purchase-keys/:credential_id',
    {
      schema: {
        tags: ['admin'],
        summary: 'Revoke a purchase key',
        params: Type.Object({ credential_id: Type.String({ maxLength: 64 }) }),
        response: { 204: Type.Null() },
      },
      preHandler: requirePlatformAdmin,
    },
    async (request, reply) => {
      if (!(await app.services.credentials.revoke(request.params.credential_id, { kind: 'purchase_key' }))) {
        throw new AppError('credential_not_found', `No such credential "${request.params.credential_id}".`);
      }
      return reply.code(204).send(null);
    },
  );
}
