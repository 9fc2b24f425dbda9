// Files members attach to their posts: typed by their bytes (lib/file-types), images rewritten
// without metadata or trailing bytes (lib/image-metadata), one blob each, served by the instance at
// `/uploads/{id}/{filename}`: images inline, everything else as a download
// (docs/decisions/0082-forum-uploads.md).
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { and, eq } from 'drizzle-orm';
import type { BlobStore } from '../adapters/blobs/index.js';
import type { Executor } from '../db/client.js';
import { AppError } from '../http/errors.js';
import type { UploadedFile } from '../http/uploads.js';
import { cleanFilename, FILE_KINDS, sniffFileKind, type FileKind } from '../lib/file-types.js';
import { newId } from '../lib/ids.js';
import { MalformedImage, stripImageMetadata } from '../lib/image-metadata.js';
import { isStaff, requirePoster, type Viewer } from './policy.js';
import { requireTrusted } from './trust.js';
import type { UploadOut } from './schemas.js';
import { forumUploads, type UploadRow } from './tables.js';

export const MAX_UPLOAD_BYTES = 8 * 1024 * 1024;
/** Uploads one member may make per hour. */
export const UPLOADS_PER_HOUR = 60;
/** What members may upload: images, PDF, zip and plain text, each told by its bytes. */
export const UPLOAD_KINDS = [
  FILE_KINDS.png,
  FILE_KINDS.jpeg,
  FILE_KINDS.gif,
  FILE_KINDS.webp,
  FILE_KINDS.pdf,
  FILE_KINDS.zip,
  FILE_KINDS.text,
];
/** What avatars may be: the images uploads accept. */
export const IMAGE_KINDS = [FILE_KINDS.png, FILE_KINDS.jpeg, FILE_KINDS.gif, FILE_KINDS.webp];
export const ACCEPTED_UPLOADS = UPLOAD_KINDS.map((k) => k.type);
const UPLOADS_PATH = '/uploads/';

/** The blob of one row (a backup copies them by this key too). */
export const uploadBlobKey = (row: Pick<UploadRow, 'id'>): string => `forum-uploads/${row.id}`;
const uploadUrl = (row: Pick<UploadRow, 'id' | 'filename'>): string => `${UPLOADS_PATH}${row.id}/${row.filename}`;

export function presentUpload(row: UploadRow): UploadOut {
  const url = uploadUrl(row);
  // Brackets would end the link text early; the file name is already reduced to safe characters.
  const markdown = row.kind === 'image' ? `![${row.filename}](${url})` : `[${row.filename}](${url})`;
  return {
    id: row.id,
    url,
    markdown,
    filename: row.filename,
    content_type: row.contentType,
    kind: row.kind,
    size: row.size,
    width: row.width,
    height: row.height,
    created_at: row.createdAt.toISOString(),
  };
}

export async function storeUpload(
  db: Executor,
  blobs: BlobStore,
  siteId: string,
  viewer: Viewer,
  upload: UploadedFile,
): Promise<UploadRow> {
  requirePoster(viewer);
  requireTrusted(viewer);
  return saveUpload(db, blobs, siteId, viewer.member.id, upload, UPLOAD_KINDS);
}

/** A file checked by its bytes: its kind, and its bytes as stored (an image without its metadata). */
interface CheckedFile {
  kind: FileKind;
  bytes: Buffer;
  size: { width: number; height: number } | undefined;
}

/** Checks a file against `kinds` by its bytes and strips an image's metadata; refuses anything else (`upload_type_refused`). */
export function checkUploadedFile(
  upload: UploadedFile,
  kinds: ReadonlyArray<(typeof UPLOAD_KINDS)[number]>,
  filename: string,
): CheckedFile {
  const accepted = kinds.map((k) => k.type);
  const sniffed = sniffFileKind(filename, upload.declaredType, upload.bytes, kinds);
  if ('refused' in sniffed) throw new AppError('upload_type_refused', sniffed.refused, { accepted });
  const { kind } = sniffed;
  if (kind.kind !== 'image') return { kind, bytes: upload.bytes, size: undefined };
  try {
    const { bytes, ...size } = stripImageMetadata(kind.type, upload.bytes);
    return { kind, bytes, size };
  } catch (error) {
    if (error instanceof MalformedImage)
      throw new AppError('upload_type_refused', `"${filename}" is not a well-formed image: ${error.message}.`, {
        accepted,
      });
    throw error;
  }
}

/** Checks a file against `kinds` by its bytes, strips an image's metadata, and stores it as the member's upload. */
export async function saveUpload(
  db: Executor,
  blobs: BlobStore,
  siteId: string,
  memberId: string,
  upload: UploadedFile,
  kinds: ReadonlyArray<(typeof UPLOAD_KINDS)[number]>,
  filename = cleanFilename(upload.filename),
): Promise<UploadRow> {
  const { kind, bytes, size } = checkUploadedFile(upload, kinds, filename);
  const id = newId();
  // The blob first: a row never names bytes that are not there.
  await blobs.put(uploadBlobKey({ id }), bytes, bytes.length);
  const [row] = await db
    .insert(forumUploads)
    .values({
      id,
      siteId,
      memberId,
      filename,
      contentType: kind.type,
      kind: kind.kind,
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      width: size?.width ?? null,
      height: size?.height ?? null,
    })
    .returning();
  return row!;
}

/** Uploaders delete their own uploads, moderators any; posts showing it then show a broken link. */
export async function deleteUpload(
  db: Executor,
  blobs: BlobStore,
  siteId: string,
  viewer: Viewer,
  id: string,
): Promise<void> {
  requirePoster(viewer);
  const [row] = await db
    .select()
    .from(forumUploads)
    .where(and(eq(forumUploads.siteId, siteId), eq(forumUploads.id, id)));
  if (!row) throw new AppError('upload_not_found', `No upload "${id}".`);
  if (!isStaff(viewer) && row.memberId !== viewer.member.id)
    throw new AppError('forbidden', 'Only the uploader or a moderator may delete this upload.');
  await db.delete(forumUploads).where(eq(forumUploads.id, id));
  await blobs.delete(uploadBlobKey(row));
}

/** A site's upload, or undefined (serving answers 404). */
export async function servedUpload(db: Executor, siteId: string, id: string): Promise<UploadRow | undefined> {
  const [row] = await db
    .select()
    .from(forumUploads)
    .where(and(eq(forumUploads.siteId, siteId), eq(forumUploads.id, id)));
  return row;
}

export async function uploadBytes(blobs: BlobStore, row: UploadRow): Promise<Readable | undefined> {
  return blobs.get(uploadBlobKey(row));
}
