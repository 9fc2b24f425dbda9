// Avatars in the web UI: the profile's upload form (multipart, the CSRF field first), going back to
// initials, `GET /avatars/{id}` serving a member's current avatar inert, as uploads are served, and
// `GET /avatars/initials/{colour}/{initials}.svg`, the generated avatar the Forum API names for
// members without a picture.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { AppError } from '../../http/errors.js';
import { verifyCsrf } from '../../http/csrf.js';
import { seeOther } from '../../http/forms.js';
import { sendInertFile, type UploadedFile } from '../../http/uploads.js';
import { initialsSvg, MAX_AVATAR_BYTES, removeAvatar, servedAvatar, setAvatar } from '../avatars.js';
import { requireMember } from '../policy.js';
import { uploadBytes } from '../uploads.js';
import { checkForm, loadUi } from './context.js';

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
const InitialsParams = Type.Object({ colour: Type.String({ maxLength: 2 }), file: Type.String({ maxLength: 40 }) });

export async function avatarRoutes(app: FastifyInstance): Promise<void> {
  // Only this scope reads multipart bodies.
  await app.register(multipart, {
    limits: { files: 1, fields: 1, fieldSize: 1024, parts: 2, fileSize: MAX_AVATAR_BYTES },
  });
  const db = app.deps.database.db;

  app.post('/account/avatar', { preHandler: loadUi }, async (request, reply) => {
    const ui = request.ui;
    let csrfChecked = false;
    let file: UploadedFile | undefined;
    try {
      for await (const part of request.parts()) {
        if (part.type === 'field') {
          if (part.fieldname === '_csrf' && !csrfChecked) {
            verifyCsrf(request, ui.site.id, ui.sessionId, String(part.value));
            csrfChecked = true;
          }
          continue;
        }
        // The token comes first, so no byte of a forged upload is read.
        if (!csrfChecked) verifyCsrf(request, ui.site.id, ui.sessionId, undefined);
        if (part.fieldname !== 'avatar') {
          part.file.resume();
          continue;
        }
        file = { filename: part.filename, declaredType: part.mimetype, bytes: await part.toBuffer() };
      }
    } catch (error) {
      if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE')
        throw new AppError('upload_too_large', `Avatars are at most ${MAX_AVATAR_BYTES / 1024 / 1024} MiB.`, {
          max_bytes: MAX_AVATAR_BYTES,
        });
      throw error;
    }
    if (!csrfChecked) verifyCsrf(request, ui.site.id, ui.sessionId, undefined);
    requireMember(ui.viewer);
    if (!file || file.bytes.length === 0) throw new AppError('upload_missing', 'Choose a picture to upload.');
    await setAvatar(db, app.deps.blobs, ui.site.id, ui.viewer, file);
    return seeOther(reply, '/account');
  });

  app.post('/account/avatar/remove', { preHandler: [loadUi, checkForm] }, async (request, reply) => {
    await removeAvatar(db, app.deps.blobs, request.ui.site.id, request.ui.viewer);
    return seeOther(reply, '/account');
  });

  const communityOf = async (request: FastifyRequest) => {
    const target = request.target;
    const site = target.kind === 'site' ? await app.services.sites.get(target.site) : undefined;
    return site?.kind === 'community' ? site : undefined;
  };

  app.get<{ Params: Static<typeof IdParams> }>(
    '/avatars/:id',
    { schema: { params: IdParams } },
    async (request, reply) => {
      const site = await communityOf(request);
      const row = site ? await servedAvatar(db, site.id, request.params.id) : undefined;
      if (!row) throw new AppError('upload_not_found', `No avatar "${request.params.id}".`);
      // A new avatar is a new id: the answer never changes.
      return sendInertFile(request, reply, { ...row, disposition: 'inline', filename: 'avatar' }, () =>
        uploadBytes(app.deps.blobs, row),
      );
    },
  );

  // Made from the address alone, the same for every member of those initials and colour.
  app.get<{ Params: Static<typeof InitialsParams> }>(
    '/avatars/initials/:colour/:file',
    { schema: { params: InitialsParams } },
    async (request, reply) => {
      const { colour, file } = request.params;
      const svg =
        file.endsWith('.svg') && (await communityOf(request))
          ? initialsSvg(colour, file.slice(0, -'.svg'.length))
          : undefined;
      if (svg === undefined) throw new AppError('upload_not_found', `No avatar "${colour}/${file}".`);
      const bytes = Buffer.from(svg);
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      return sendInertFile(
        request,
        reply,
        {
          id: sha256,
          sha256,
          contentType: 'image/svg+xml',
          size: bytes.length,
          disposition: 'inline',
          filename: 'avatar.svg',
        },
        async () => Readable.from([bytes]),
      );
    },
  );
}
