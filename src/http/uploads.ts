// The one file of a multipart upload (`POST /media`, `POST /uploads`), read into memory up to a
// limit. The route's own error codes say what was missing or too large.
import type { FastifyRequest } from 'fastify';
import { AppError, type ErrorCode } from './errors.js';

export interface UploadedFile {
  filename: string;
  /** The type the client declared; never trusted alone (lib/file-types.ts). */
  declaredType: string;
  bytes: Buffer;
}

export async function readUploadedFile(request: FastifyRequest, options: { field: string; maxBytes: number; missing: ErrorCode; tooLarge: ErrorCode; what: string }): Promise<UploadedFile> {
  const part = await request.file({ limits: { fileSize: options.maxBytes } });
  if (!part || part.fieldname !== options.field) {
    part?.file.resume();
    throw new AppError(options.missing, `Send the file in the multipart field \`${options.field}\`.`);
  }
  try {
    return { filename: part.filename, declaredType: part.mimetype, bytes: await part.toBuffer() };
  } catch (error) {
    if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') {
      throw new AppError(options.tooLarge, `${options.what} are at most ${options.maxBytes / 1024 / 1024} MiB.`, { max_bytes: options.maxBytes });
    }
    throw error;
  }
}
