// The one file of a multipart upload (`POST /media`, `POST /uploads`), read into memory up to a
// limit. The route's own error codes say what was missing or too large. And the one way stored
// user files go back out (media, forum uploads, avatars): with headers that keep a browser from
// running them.
import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { contentDisposition } from '../lib/content-disposition.js';
import { AppError, type ErrorCode } from './errors.js';

export interface UploadedFile {
  filename: string;
  /** The type the client declared; never trusted alone (lib/file-types.ts). */
  declaredType: string;
  bytes: Buffer;
}

export async function readUploadedFile(
  request: FastifyRequest,
  options: { field: string; maxBytes: number; missing: ErrorCode; tooLarge: ErrorCode; what: string },
): Promise<UploadedFile> {
  const part = await request.file({ limits: { fileSize: options.maxBytes } });
  if (!part || part.fieldname !== options.field) {
    part?.file.resume();
    throw new AppError(options.missing, `Send the file in the multipart field \`${options.field}\`.`);
  }
  try {
    return { filename: part.filename, declaredType: part.mimetype, bytes: await part.toBuffer() };
  } catch (error) {
    if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') {
      throw new AppError(options.tooLarge, `${options.what} are at most ${options.maxBytes / 1024 / 1024} MiB.`, {
        max_bytes: options.maxBytes,
      });
    }
    throw error;
  }
}

/** A stored user file as it is served: content-addressed, so its answer never changes. */
interface InertFile {
  id: string;
  sha256: string;
  contentType: string;
  size: number;
  /** `inline` shows it (images), `attachment` downloads it. */
  disposition: 'inline' | 'attachment';
  filename: string;
}

/** Answers a stored file (304 on a matching ETag) with headers that keep a browser from running it. */
export async function sendInertFile(
  request: FastifyRequest,
  reply: FastifyReply,
  file: InertFile,
  bytes: () => Promise<Readable | undefined>,
): Promise<FastifyReply> {
  const etag = `"${file.sha256}"`;
  reply
    .header('etag', etag)
    .header('cache-control', 'public, max-age=31536000, immutable')
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', "default-src 'none'; sandbox")
    .header('content-disposition', contentDisposition(file.disposition, file.filename));
  if (request.headers['if-none-match'] === etag) return reply.code(304).send();
  const body = await bytes();
  if (!body) throw new Error(`stored file ${file.id} has no bytes in the blob store`);
  return reply.header('content-type', file.contentType).header('content-length', file.size).send(body);
}
