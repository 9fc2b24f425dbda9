// An entry's revision history: `/entries/{type}/{id}/revisions[/{version}[/restore]]`, for callers
// who may read drafts (cms-write); decision 0139.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../http/errors.js';
import { PageQuery, setPaginationHeaders, toPage } from '../http/pagination.js';
import { cmsAccess } from './access.js';
import { etagOf, findEntry } from './entries.js';
import { FORUM_TYPE_SLUGS } from './forum-types.js';
import { presentEntry } from './presenters.js';
import { authorOf } from './revision-log.js';
import { findRevision, listRevisions, presentRevision, restoreRevision } from './revisions.js';
import { EntryOut, EntryParams, RestoreBody, RevisionOut, RevisionParams, cmsSecurity } from './schemas.js';
import { sourceContext } from './sources.js';
import { relationLookup } from './stored-source.js';

const IF_MATCH = Type.Object({
  'if-match': Type.Optional(
    Type.String({ maxLength: 500, description: 'The ETag of the entry as last read; a stale one answers 412.' }),
  ),
});

export async function revisionRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  /** The stored type and the entry (by id or slug) the request names, drafts included. */
  async function revisedEntry(request: FastifyRequest, typeSlug: string, idOrSlug: string) {
    if (FORUM_TYPE_SLUGS.includes(typeSlug))
      throw new AppError(
        'revision_not_found',
        `"${typeSlug}" is a view onto the forum: its entries keep no revisions.`,
      );
    const type = await app.cms.types.get(request.cms.site.id, typeSlug);
    if (!type) throw new AppError('content_type_not_found', `No content type "${typeSlug}".`);
    return { type, entry: await findEntry(app.deps.database.db, type, idOrSlug, 'any') };
  }

  app.get(
    '/entries/:type/:id/revisions',
    {
      schema: {
        tags: ['entries'],
        summary: "List an entry's revisions, newest first (the last 100 saves are kept)",
        security: cmsSecurity,
        params: EntryParams,
        querystring: PageQuery,
        response: { 200: Type.Array(RevisionOut) },
      },
      preHandler: cmsAccess('cms-write'),
    },
    async (request, reply) => {
      const { type, entry } = await revisedEntry(request, request.params.type, request.params.id);
      const page = toPage(request.query);
      const { revisions, total } = await listRevisions(app.deps.database.db, entry, page);
      setPaginationHeaders(request, reply, page, total);
      reply.header('Cache-Control', 'private, no-store');
      return revisions.map(({ row, before }) => presentRevision(type.fields, row, before));
    },
  );

  app.get(
    '/entries/:type/:id/revisions/:version',
    {
      schema: {
        tags: ['entries'],
        summary: 'Read one revision of an entry, with the fields it changed',
        security: cmsSecurity,
        params: RevisionParams,
        response: { 200: RevisionOut },
      },
      preHandler: cmsAccess('cms-write'),
    },
    async (request, reply) => {
      const { type, entry } = await revisedEntry(request, request.params.type, request.params.id);
      const { row, before } = await findRevision(app.deps.database.db, entry, request.params.version);
      reply.header('Cache-Control', 'private, no-store');
      return presentRevision(type.fields, row, before);
    },
  );

  app.post(
    '/entries/:type/:id/revisions/:version/restore',
    {
      schema: {
        tags: ['entries'],
        summary: "Restore a revision's slug and field values as a new revision (honours If-Match)",
        security: cmsSecurity,
        params: RevisionParams,
        headers: IF_MATCH,
        body: Type.Optional(RestoreBody),
        response: { 200: EntryOut },
      },
      preHandler: cmsAccess('cms-write'),
    },
    async (request, reply) => {
      const { type, entry } = await revisedEntry(request, request.params.type, request.params.id);
      const ctx = sourceContext(app, request.cms.site, request.cms.caller);
      const row = await restoreRevision(
        app.deps.database.db,
        type,
        entry,
        request.params.version,
        { status: request.body?.status, ifMatch: request.headers['if-match'] },
        relationLookup(ctx),
        { author: authorOf(request.cms.caller) },
      );
      app.cms.webhooks.wake();
      reply.header('ETag', etagOf(row));
      return presentEntry(type, row);
    },
  );
}
