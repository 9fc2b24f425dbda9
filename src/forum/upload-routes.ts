// Uploads: `POST /uploads` and `DELETE /uploads/{id}` in the Forum API, and `GET
// /uploads/{id}/{filename}` on the instance, which serves the bytes (docs/decisions/0082-forum-uploads.md).
import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../http/errors.js';
import { problems } from '../http/openapi.js';
import { consumeRateLimit } from '../http/rate-limit.js';
import { readUploadedFile, sendInertFile } from '../http/uploads.js';
import { validatorCompiler } from '../http/validation.js';
import { forumMember } from './access.js';
import { memberSecurity, UploadForm, UploadOut, UploadParams } from './schemas.js';
import {
  ACCEPTED_UPLOADS,
  deleteUpload,
  MAX_UPLOAD_BYTES,
  presentUpload,
  servedUpload,
  storeUpload,
  uploadBytes,
  UPLOADS_PER_HOUR,
} from './uploads.js';

export async function uploadRoutes(fastify: FastifyInstance): Promise<void> {
  await fastify.register(multipart, { limits: { files: 1, fields: 2, fieldSize: 1024, parts: 3 } });
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app.deps.database;
  const { blobs } = app.deps;

  app.post(
    '/uploads',
    {
      schema: {
        tags: ['uploads'],
        summary: "Upload an image or a file for a post; put the answer's `markdown` in the post",
        description: `multipart/form-data with the field \`file\`: ${ACCEPTED_UPLOADS.join(', ')}, at most \
${MAX_UPLOAD_BYTES / 1024 / 1024} MiB, ${UPLOADS_PER_HOUR} an hour per member. The type is read from the bytes and must\
 agree with the file name and declared type; \
SVG is refused. Images are stored without their metadata (EXIF, XMP, comments) and without bytes after the picture.`,
        consumes: ['multipart/form-data'],
        security: memberSecurity,
        body: UploadForm,
        response: { 201: UploadOut, ...problems(400, 403, 413, 415) },
      },
      // The multipart body is read by the handler; its schema only documents the form.
      validatorCompiler: (route) => (route.httpPart === 'body' ? () => true : validatorCompiler(route)),
      preHandler: forumMember,
    },
    async (request, reply) => {
      const { site, viewer } = request.forum;
      if (viewer.kind === 'member')
        await consumeRateLimit(
          app.deps.cache.cache,
          `forum:uploads:${site.id}:${viewer.member.id}`,
          UPLOADS_PER_HOUR,
          3600,
          'uploads',
        );
      const file = await readUploadedFile(request, {
        field: 'file',
        maxBytes: MAX_UPLOAD_BYTES,
        missing: 'upload_missing',
        tooLarge: 'upload_too_large',
        what: 'Uploads',
      });
      const row = await storeUpload(db, blobs, site.id, viewer, file);
      return reply.code(201).send(presentUpload(row));
    },
  );

  app.delete(
    '/uploads/:id',
    {
      schema: {
        tags: ['uploads'],
        summary: 'Delete an upload (its uploader or moderators)',
        security: memberSecurity,
        params: UploadParams,
        response: { 204: Type.Null(), ...problems(403, 404) },
      },
      preHandler: forumMember,
    },
    async (request, reply) => {
      await deleteUpload(db, blobs, request.forum.site.id, request.forum.viewer, request.params.id);
      return reply.code(204).send(null);
    },
  );
}

/**
 * `GET /uploads/{id}/{filename}` on the instance: the bytes, with headers that keep a browser from
 * running them; anything but an image is a download.
 */
export async function uploadServing(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/uploads/:id/:filename',
    {
      schema: {
        hide: true,
        params: Type.Object({ id: Type.String({ maxLength: 100 }), filename: Type.String({ maxLength: 300 }) }),
      },
    },
    async (request, reply) => {
      const target = request.target;
      const site = target.kind === 'site' ? await app.services.sites.get(target.site) : undefined;
      const row =
        site?.kind === 'community' ? await servedUpload(app.deps.database.db, site.id, request.params.id) : undefined;
      if (!row || row.filename !== request.params.filename)
        throw new AppError('upload_not_found', `No upload "${request.params.id}".`);
      const contentType =
        row.kind === 'file' && row.contentType === 'text/plain' ? 'text/plain; charset=utf-8' : row.contentType;
      return sendInertFile(
        request,
        reply,
        { ...row, contentType, disposition: row.kind === 'image' ? 'inline' : 'attachment' },
        () => uploadBytes(app.deps.blobs, row),
      );
    },
  );
}
