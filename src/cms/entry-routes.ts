// Entries of every content type: `/entries/{type}[/{id-or-slug}]` (DESIGN section 11).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { setPaginationHeaders, toPage } from '../http/pagination.js';
import { sendSerializedOnce } from '../http/response-schemas.js';
import { cmsAccess } from './access.js';
import { entryListTag } from './answer-tags.js';
import {
  EntryBody,
  EntryListQuery,
  EntryOut,
  EntryParams,
  EntryReadQuery,
  EntryTypeParams,
  cmsSecurity,
} from './schemas.js';
import { sourceContext, type SourceContext } from './sources.js';
import { sourceFor } from './source-for.js';

const ETAG_HEADERS = Type.Object({
  'if-match': Type.Optional(
    Type.String({ maxLength: 500, description: 'The ETag of the entry as last read; a stale one answers 412.' }),
  ),
});

export async function entryRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const context = (request: FastifyRequest): SourceContext => sourceContext(app, request.cms.site, request.cms.caller);

  app.get(
    '/entries/:type',
    {
      schema: {
        tags: ['entries'],
        summary: 'List entries (published ones unless status says otherwise)',
        security: cmsSecurity,
        params: EntryTypeParams,
        querystring: EntryListQuery,
        response: { 200: Type.Array(EntryOut) },
      },
      preHandler: cmsAccess('cms-read'),
      config: { etag: entryListTag },
    },
    async (request, reply) => {
      const page = toPage(request.query);
      const { rows, total } = await sourceFor(request.params.type).list(
        context(request),
        request.query as typeof request.query & Record<string, unknown>,
        page,
      );
      setPaginationHeaders(request, reply, page, total);
      return sendSerializedOnce(reply, rows);
    },
  );

  app.post(
    '/entries/:type',
    {
      schema: {
        tags: ['entries'],
        summary: 'Create an entry',
        security: cmsSecurity,
        params: EntryTypeParams,
        body: EntryBody,
        response: { 201: EntryOut },
      },
      preHandler: cmsAccess('cms-write'),
    },
    async (request, reply) => {
      const { entry, etag } = await sourceFor(request.params.type).create(context(request), request.body);
      app.cms.webhooks.wake();
      if (etag) reply.header('ETag', etag);
      return reply.code(201).send(entry);
    },
  );

  app.get(
    '/entries/:type/:id',
    {
      schema: {
        tags: ['entries'],
        summary: 'Read an entry by id or slug',
        security: cmsSecurity,
        params: EntryParams,
        querystring: EntryReadQuery,
        response: { 200: EntryOut },
      },
      preHandler: cmsAccess('cms-read'),
    },
    async (request, reply) => {
      const { entry, etag } = await sourceFor(request.params.type).read(
        context(request),
        request.params.id,
        request.query,
      );
      if (etag) reply.header('ETag', etag);
      return sendSerializedOnce(reply, entry);
    },
  );

  app.put(
    '/entries/:type/:id',
    {
      schema: {
        tags: ['entries'],
        summary: "Replace an entry's data (honours If-Match)",
        security: cmsSecurity,
        params: EntryParams,
        headers: ETAG_HEADERS,
        body: EntryBody,
        response: { 200: EntryOut },
      },
      preHandler: cmsAccess('cms-write'),
    },
    async (request, reply) => {
      const { entry, etag } = await sourceFor(request.params.type).update(
        context(request),
        request.params.id,
        request.body,
        request.headers['if-match'],
      );
      app.cms.webhooks.wake();
      if (etag) reply.header('ETag', etag);
      return entry;
    },
  );

  app.delete(
    '/entries/:type/:id',
    {
      schema: {
        tags: ['entries'],
        summary: 'Delete an entry by id or slug (honours If-Match)',
        security: cmsSecurity,
        params: EntryParams,
        headers: ETAG_HEADERS,
        response: { 204: Type.Null() },
      },
      preHandler: cmsAccess('cms-write'),
    },
    async (request, reply) => {
      await sourceFor(request.params.type).remove(context(request), request.params.id, request.headers['if-match']);
      app.cms.webhooks.wake();
      return reply.code(204).send(null);
    },
  );
}
