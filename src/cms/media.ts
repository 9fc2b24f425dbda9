// Media of the Content API: files uploaded through `POST /media`, kept in the blob store (one blob
// per upload) and served by the site at `/media/{id}`. Only types recognised from their own bytes are
// taken (images and PDF); SVG and anything whose bytes disagree with its name or declared type are
// refused. Deleting an entry never deletes media; media is deleted on its own, and only while no
// entry references it (docs/decisions/0046-cms-media.md).
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { and, count, desc, eq, inArray, sql } from 'drizzle-orm';
import type { BlobStore } from '../adapters/blobs/index.js';
import type { Executor } from '../db/client.js';
import { AppError } from '../http/errors.js';
import type { Page } from '../http/pagination.js';
import { newId } from '../lib/ids.js';
import type { MediaOut } from './schemas.js';
import { cmsEntries, cmsMedia, type MediaRow } from './tables.js';

export const MAX_MEDIA_BYTES = 10 * 1024 * 1024;
/** The site path media are served at; a `media` field holding such a path must name existing media. */
export const MEDIA_PATH = '/media/';

interface MediaKind {
  type: string;
  extensions: string[];
  matches(bytes: Buffer): boolean;
}

const ascii = (bytes: Buffer, start: number, text: string): boolean => bytes.subarray(start, start + text.length).toString('latin1') === text;

const KINDS: MediaKind[] = [
  { type: 'image/png', extensions: ['png'], matches: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) },
  { type: 'image/jpeg', extensions: ['jpg', 'jpeg'], matches: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { type: 'image/gif', extensions: ['gif'], matches: (b) => ascii(b, 0, 'GIF87a') || ascii(b, 0, 'GIF89a') },
  { type: 'image/webp', extensions: ['webp'], matches: (b) => ascii(b, 0, 'RIFF') && ascii(b, 8, 'WEBP') },
  { type: 'image/avif', extensions: ['avif'], matches: (b) => ascii(b, 4, 'ftyp') && (ascii(b, 8, 'avif') || ascii(b, 8, 'avis')) },
  { type: 'application/pdf', extensions: ['pdf'], matches: (b) => ascii(b, 0, '%PDF-') },
];

const ACCEPTED_MEDIA = KINDS.map((k) => k.type);

const blobKey = (row: Pick<MediaRow, 'id'>): string => `cms-media/${row.id}`;

/** The file name as served: its last path segment, reduced to safe characters. */
function cleanFilename(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const clean = base.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+/, '').slice(-200);
  return clean === '' ? 'file' : clean;
}

/** The accepted type of an upload, or a 415 saying why it is refused. */
function mediaTypeOf(filename: string, declared: string, bytes: Buffer): string {
  const extension = filename.includes('.') ? filename.split('.').pop()!.toLowerCase() : '';
  if (extension === 'svg' || declared === 'image/svg+xml') {
    throw new AppError('media_type_refused', 'SVG files are refused: they can carry scripts. Upload a PNG or WebP instead.', { accepted: ACCEPTED_MEDIA });
  }
  const kind = KINDS.find((k) => k.matches(bytes));
  if (!kind) throw new AppError('media_type_refused', `The bytes of "${filename}" are not a ${ACCEPTED_MEDIA.join(', ')} file.`, { accepted: ACCEPTED_MEDIA });
  if (!kind.extensions.includes(extension)) {
    throw new AppError('media_type_refused', `"${filename}" holds ${kind.type}; name it .${kind.extensions[0]}.`, { accepted: ACCEPTED_MEDIA });
  }
  if (declared !== kind.type && declared !== 'application/octet-stream') {
    throw new AppError('media_type_refused', `"${filename}" was sent as ${declared} but holds ${kind.type}.`, { accepted: ACCEPTED_MEDIA });
  }
  return kind.type;
}

const mediaUrl = (row: Pick<MediaRow, 'id'>): string => `${MEDIA_PATH}${row.id}`;

export function presentMedia(row: MediaRow): MediaOut {
  return { id: row.id, url: mediaUrl(row), filename: row.filename, content_type: row.contentType, size: row.size, sha256: row.sha256, created_at: row.createdAt.toISOString() };
}

export interface Upload {
  filename: string;
  declaredType: string;
  bytes: Buffer;
}

export async function storeMedia(db: Executor, blobs: BlobStore, siteId: string, upload: Upload): Promise<MediaRow> {
  const filename = cleanFilename(upload.filename);
  const contentType = mediaTypeOf(filename, upload.declaredType, upload.bytes);
  const sha256 = createHash('sha256').update(upload.bytes).digest('hex');
  const id = newId();
  // The blob first: a row never names bytes that are not there.
  await blobs.put(blobKey({ id }), upload.bytes, upload.bytes.length);
  const [row] = await db.insert(cmsMedia).values({ id, siteId, sha256, filename, contentType, size: upload.bytes.length }).returning();
  return row!;
}

export async function listMedia(db: Executor, siteId: string, page: Page): Promise<{ rows: MediaRow[]; total: number }> {
  const where = eq(cmsMedia.siteId, siteId);
  const [rows, [total]] = await Promise.all([
    db.select().from(cmsMedia).where(where).orderBy(desc(cmsMedia.createdAt), desc(cmsMedia.id)).limit(page.pageSize).offset(page.offset),
    db.select({ n: count() }).from(cmsMedia).where(where),
  ]);
  return { rows, total: total!.n };
}

export async function findMedia(db: Executor, siteId: string, id: string): Promise<MediaRow> {
  const [row] = await db.select().from(cmsMedia).where(and(eq(cmsMedia.siteId, siteId), eq(cmsMedia.id, id)));
  if (!row) throw new AppError('media_not_found', `No media "${id}".`);
  return row;
}

/** The `/media/{id}` paths of `paths` that name no media of the site. */
export async function missingMedia(db: Executor, siteId: string, paths: string[]): Promise<string[]> {
  const ids = paths.map((path) => path.slice(MEDIA_PATH.length));
  const found = ids.length === 0 ? [] : await db.select({ id: cmsMedia.id }).from(cmsMedia).where(and(eq(cmsMedia.siteId, siteId), inArray(cmsMedia.id, ids)));
  const present = new Set(found.map((row) => row.id));
  return paths.filter((_, i) => !present.has(ids[i]!));
}

/** Deletes media no entry references (any field, Markdown bodies included), then its bytes. */
export async function deleteMedia(db: Executor, blobs: BlobStore, siteId: string, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    const [row] = await tx.select().from(cmsMedia).where(and(eq(cmsMedia.siteId, siteId), eq(cmsMedia.id, id))).for('update');
    if (!row) throw new AppError('media_not_found', `No media "${id}".`);
    const needle = `%${mediaUrl(row)}%`;
    const [users] = await tx.select({ n: count() }).from(cmsEntries).where(and(eq(cmsEntries.siteId, siteId), sql`${cmsEntries.data}::text like ${needle}`));
    if (users!.n > 0) throw new AppError('media_in_use', `${users!.n} entr${users!.n === 1 ? 'y references' : 'ies reference'} ${mediaUrl(row)}; change them first.`, { entries: users!.n });
    await tx.delete(cmsMedia).where(eq(cmsMedia.id, row.id));
  });
  await blobs.delete(blobKey({ id }));
}

/** A site's media row, or undefined (serving answers 404 without a problem body's detail). */
export async function servedMedia(db: Executor, siteId: string, id: string): Promise<MediaRow | undefined> {
  const [row] = await db.select().from(cmsMedia).where(and(eq(cmsMedia.siteId, siteId), eq(cmsMedia.id, id)));
  return row;
}

export async function mediaBytes(blobs: BlobStore, row: MediaRow): Promise<Readable | undefined> {
  return blobs.get(blobKey(row));
}
