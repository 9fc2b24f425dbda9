// Reading what the composer posts. Browsers send it as multipart/form-data (it may carry a file);
// the fields become the request's form body, as the url-encoded parser makes it, so `checkForm` and
// `field` read both alike. The CSRF field comes first in the form, and is checked before any byte of
// a file is read. An empty file input (nothing chosen) sends a part without a name: it is skipped.
// A file over the limit is read no further and refused when the handler asks for it, so the form
// can come back with what was written.
import type { FastifyRequest } from 'fastify';
import type { FormBody } from '../../http/forms.js';
import { AppError } from '../../http/errors.js';
import type { UploadedFile } from '../../http/uploads.js';
import { MAX_BODY_LENGTH } from '../schemas.js';
import { MAX_UPLOAD_BYTES } from '../uploads.js';
import { checkForm } from './context.js';

/** Bytes of the longest field: a full-size body, three UTF-8 bytes to a UTF-16 unit at most. */
const FIELD_BYTES = MAX_BODY_LENGTH * 3 + 1024;
export const COMPOSER_LIMITS = { files: 1, fields: 12, parts: 13, fieldSize: FIELD_BYTES, fileSize: MAX_UPLOAD_BYTES };
export const COMPOSER_BODY_LIMIT = FIELD_BYTES + MAX_UPLOAD_BYTES + 64 * 1024;

const files = new WeakMap<FastifyRequest, UploadedFile | AppError>();

/** The file the composer's form carried, if one was chosen; throws `upload_too_large` for one over the limit. */
export function composerFile(request: FastifyRequest): UploadedFile | undefined {
  const file = files.get(request);
  if (file instanceof AppError) throw file;
  return file;
}

/** preHandler after `loadUi`, in place of `checkForm`, for forms that may be multipart. */
export async function readComposerForm(request: FastifyRequest): Promise<void> {
  if (!request.isMultipart()) return checkForm(request);
  const form: FormBody = Object.create(null) as FormBody;
  request.body = form;
  for await (const part of request.parts({ limits: COMPOSER_LIMITS })) {
    if (part.type === 'field') {
      if (part.valueTruncated) throw new AppError('payload_too_large', `The field "${part.fieldname}" is too long.`);
      if (!(part.fieldname in form) && typeof part.value === 'string') form[part.fieldname] = part.value;
      continue;
    }
    if (part.fieldname !== 'file' || part.filename === '' || files.has(request)) {
      part.file.resume();
      continue;
    }
    await checkForm(request);
    const bytes = await part.toBuffer();
    files.set(
      request,
      part.file.truncated
        ? new AppError(
            'upload_too_large',
            `"${part.filename}" is larger than ${MAX_UPLOAD_BYTES / 1024 / 1024} MiB, the most an upload may be.`,
            { max_bytes: MAX_UPLOAD_BYTES },
          )
        : { filename: part.filename, declaredType: part.mimetype, bytes },
    );
  }
  return checkForm(request);
}
