// Media: `POST|GET /media`, `GET|DELETE /media/{id}` under the Content API, and `GET /media/{id}` on
// the site itself, which serves the bytes (docs/decisions/0046-cms-media.md).
import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../http/errors.js';
import { problems } from '../http/openapi.js';
import { readUploadedFile, sendInertFile } from '../http/uploads.js';
import { PageQuery, setPaginationHeaders, toPage } from '../http/pagination.js';
import { validatorCompiler } from '../http/validation.js';
import { cmsAccess } from './access.js';
import {
  MAX_MEDIA_BYTES,
  deleteMedia,
  findMedia,
  listMedia,
  mediaBytes,
  presentMedia,
  servedMedia,
  storeMedia,
  updateMediaAlt,
} from './media.js';
import { MediaChange, MediaOut, MediaParams, MediaUpload, cmsSecurity } from './schemas.js';

export async function mediaRoutes(fastify: FastifyInstance): Promise<void> {
  await fastify.register(multipart, { limits: { files: 1, fields: 2, fieldSize: 1024, parts: 3 } });
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app.deps.database;
  const { blobs } = app.deps;

  app.post(
    '/media',
    {
      schema: {
        tags: ['media'],
        summary: "Upload a file (cms-write); a `media` field holds the answer's `url`",
        description: `multipart/form-data with the field \`file\`: PNG, JPEG, GIF, WebP, AVIF or PDF, at most ${MAX_MEDIA_BYTES / 1024 / 1024} MiB. The type is read from the bytes and must agree with the file name and declared type; SVG is refused.`,
        consumes: ['multipart/form-data'],
        security: cmsSecurity,
        body: MediaUpload,
        response: { 201: MediaOut, ...problems(400, 413, 415) },
      },
      // The multipart body is read by the handler; its schema only documents the form.
      validatorCompiler: (route) => (route.httpPart === 'body' ? () => true : validatorCompiler(route)),
      preHandler: cmsAccess('cms-write'),
    },
    async (request, reply) => {
      const file = await readUploadedFile(request, {
        field: 'file',
        maxBytes: MAX_MEDIA_BYTES,
        missing: 'media_missing',
        tooLarge: 'media_too_large',
        what: 'Media',
      });
      const row = await storeMedia(db, blobs, request.cms.site.id, file);
      return reply.code(201).send(presentMedia(row));
    },
  );

  app.get(
    '/media',
    {
      schema: {
        tags: ['media'],
        summary: 'Uploaded media, newest first',
        security: cmsSecurity,
        querystring: PageQuery,
        response: { 200: Type.Array(MediaOut) },
      },
      preHandler: cmsAccess('cms-read'),
    },
    async (request, reply) => {
      const page = toPage(request.query);
      const { rows, total } = await listMedia(db, request.cms.site.id, page);
      setPaginationHeaders(request, reply, page, total);
      return rows.map(presentMedia);
    },
  );

  app.get(
    '/media/:id',
    {
      schema: {
        tags: ['media'],
        summary: "One upload's description",
        security: cmsSecurity,
        params: MediaParams,
        response: { 200: MediaOut },
      },
      preHandler: cmsAccess('cms-read'),
    },
    async (request) => presentMedia(await findMedia(db, request.cms.site.id, request.params.id)),
  );

  app.patch(
    '/media/:id',
    {
      schema: {
        tags: ['media'],
        summary: "Change an upload's alt text (cms-write)",
        security: cmsSecurity,
        params: MediaParams,
        body: MediaChange,
        response: { 200: MediaOut, ...problems(400) },
      },
      preHandler: cmsAccess('cms-write'),
    },
    async (request) => presentMedia(await updateMediaAlt(db, request.cms.site.id, request.params.id, request.body.alt)),
  );

  app.delete(
    '/media/:id',
    {
      schema: {
        tags: ['media'],
        summary: 'Delete an upload no entry references (cms-write)',
        security: cmsSecurity,
        params: MediaParams,
        response: { 204: Type.Null(), ...problems(409) },
      },
      preHandler: cmsAccess('cms-write'),
    },
    async (request, reply) => {
      await deleteMedia(db, blobs, request.cms.site.id, request.params.id);
      return reply.code(204).send(null);
    },
  );
}

/** `GET /media/{id}` on the site: the bytes, with headers that keep a browser from running them. */
export async function mediaServing(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/media/:id', { schema: { hide: true, params: MediaParams } }, async (request, reply) => {
    const target = request.target;
    const site = target.kind === 'site' ? await app.services.sites.get(target.site) : undefined;
    const row =
      site?.kind === 'community' ? await servedMedia(app.deps.database.db, site.id, request.params.id) : undefined;
    if (!row) throw new AppError('media_not_found', `No media "${request.params.id}".`);
    return sendInertFile(request, reply, { ...row, disposition: 'inline' }, () => mediaBytes(app.deps.blobs, row));
  });
}
