// The content model (`/content-types`) and globals (`/globals/{slug}`) of the Content API.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { cmsAccess } from './access.js';
import { contentModelTag } from './answer-tags.js';
import { createType, deleteType, findStoredType, listStoredTypes, updateType } from './content-types.js';
import { FORUM_TYPES } from './forum-types.js';
import { globalGroup } from './globals.js';
import { presentForumType, presentType } from './presenters.js';
import {
  ContentTypeBody,
  ContentTypeOut,
  ContentTypeUpdateBody,
  GlobalOut,
  GlobalParams,
  TypeParams,
  cmsSecurity,
} from './schemas.js';
import { AppError } from '../http/errors.js';

export async function typeRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const db = app.deps.database.db;

  app.get(
    '/content-types',
    {
      schema: {
        tags: ['content model'],
        summary: 'Every content type of the site',
        security: cmsSecurity,
        response: { 200: Type.Array(ContentTypeOut) },
      },
      preHandler: cmsAccess('cms-read'),
      config: { etag: contentModelTag },
    },
    async (request) => [
      ...(await listStoredTypes(db, request.cms.site.id)).map(presentType),
      ...FORUM_TYPES.map((t) => presentForumType(t.slug, t.name, t.fields)),
    ],
  );

  app.get(
    '/content-types/:slug',
    {
      schema: {
        tags: ['content model'],
        summary: 'One content type',
        security: cmsSecurity,
        params: TypeParams,
        response: { 200: ContentTypeOut },
      },
      preHandler: cmsAccess('cms-read'),
      config: { etag: contentModelTag },
    },
    async (request) => {
      const forumType = FORUM_TYPES.find((t) => t.slug === request.params.slug);
      if (forumType) return presentForumType(forumType.slug, forumType.name, forumType.fields);
      const row = await findStoredType(db, request.cms.site.id, request.params.slug);
      if (!row) throw new AppError('content_type_not_found', `No content type "${request.params.slug}".`);
      return presentType(row);
    },
  );

  app.post(
    '/content-types',
    {
      schema: {
        tags: ['content model'],
        summary: 'Define a custom content type (admin)',
        security: cmsSecurity,
        body: ContentTypeBody,
        response: { 201: ContentTypeOut },
      },
      preHandler: cmsAccess('admin'),
    },
    async (request, reply) => {
      const { slug, ...input } = request.body;
      return reply.code(201).send(presentType(await createType(db, request.cms.site.id, slug, input)));
    },
  );

  app.put(
    '/content-types/:slug',
    {
      schema: {
        tags: ['content model'],
        summary:
          "Replace a custom type's name and fields (admin); removed fields keep their data, lossy changes are 409",
        security: cmsSecurity,
        params: TypeParams,
        body: ContentTypeUpdateBody,
        response: { 200: ContentTypeOut },
      },
      preHandler: cmsAccess('admin'),
    },
    async (request) => {
      const row = await updateType(db, request.cms.site.id, request.params.slug, request.body);
      return presentType(row);
    },
  );

  app.delete(
    '/content-types/:slug',
    {
      schema: {
        tags: ['content model'],
        summary: 'Delete a custom type and its entries (admin)',
        security: cmsSecurity,
        params: TypeParams,
        response: { 204: Type.Null() },
      },
      preHandler: cmsAccess('admin'),
    },
    async (request, reply) => {
      await deleteType(db, request.cms.site.id, request.params.slug);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/globals/:slug',
    {
      schema: {
        tags: ['globals'],
        summary: 'A forum settings group (general, registration, api, ai, mail, helpdesk); secrets masked (admin)',
        security: cmsSecurity,
        params: GlobalParams,
        response: { 200: GlobalOut },
      },
      preHandler: cmsAccess('admin'),
    },
    async (request) => globalGroup(await app.instanceSettings.applied(request.cms.site.id), request.params.slug),
  );
}
