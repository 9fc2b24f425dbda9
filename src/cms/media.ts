// Media of the Content API: files uploaded through `POST /media`, kept in the blob store (one blob
// per upload) and served by the site at `/media/{id}`. Only types recognised from their own bytes are
// taken (images and PDF); SVG and anything whose bytes disagree with its name or declared type are
// refused. Deleting an entry never deletes media; media is deleted on its own, and only while no
// entry references it (docs/decisions/0046-cms-media.md).
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { and, count, desc, eq, ilike, inArray, or, sql } from 'drizzle-orm';
import { imageSize } from 'image-size';
import type { BlobStore } from '../adapters/blobs/index.js';
import type { Executor } from '../db/client.js';
import { AppError } from '../http/errors.js';
import type { UploadedFile } from '../http/uploads.js';
import type { Page } from '../http/pagination.js';
import { cleanFilename, FILE_KINDS, sniffFileKind } from '../lib/file-types.js';
import { newId } from '../lib/ids.js';
import { escapeLike } from './query.js';
import type { MediaOut } from './schemas.js';
import { cmsContentTypes, cmsEntries, cmsMedia, type MediaRow } from './tables.js';

export const MAX_MEDIA_BYTES = 10 * 1024 * 1024;
const MAX_ALT_LENGTH = 500;
/** The site path media are served at; a `media` field holding such a path must name existing media. */
export const MEDIA_PATH = '/media/';

const KINDS = [FILE_KINDS.png, FILE_KINDS.jpeg, FILE_KINDS.gif, FILE_KINDS.webp, FILE_KINDS.avif, FILE_KINDS.pdf];
const ACCEPTED_MEDIA = KINDS.map((k) => k.type);

/** The blob of one row (a backup copies them by this key too). */
export const mediaBlobKey = (row: Pick<MediaRow, 'id'>): string => `cms-media/${row.id}`;

/** The accepted type of an upload, or a 415 saying why it is refused. */
function mediaTypeOf(filename: string, declared: string, bytes: Buffer): string {
  const sniffed = sniffFileKind(filename, declared, bytes, KINDS);
  if ('refused' in sniffed) throw new AppError('media_type_refused', sniffed.refused, { accepted: ACCEPTED_MEDIA });
  return sniffed.kind.type;
}

const mediaUrl = (row: Pick<MediaRow, 'id'>): string => `${MEDIA_PATH}${row.id}`;

export function presentMedia(row: MediaRow): MediaOut {
  return {
    id: row.id,
    url: mediaUrl(row),
    filename: row.filename,
    content_type: row.contentType,
    size: row.size,
    alt: row.alt,
    width: row.width,
    height: row.height,
    sha256: row.sha256,
    created_at: row.createdAt.toISOString(),
  };
}

/**
 * An image's pixel size as shown (a JPEG turned by its EXIF orientation swaps them); undefined for
 * PDF and for an image whose header the reader does not know.
 */
function dimensionsOf(contentType: string, bytes: Buffer): { width: number; height: number } | undefined {
  if (!contentType.startsWith('image/')) return undefined;
  let size: ReturnType<typeof imageSize>;
  try {
    size = imageSize(bytes);
  } catch {
    // Sniffing accepted the bytes; a header the reader cannot follow only leaves the size unknown.
    return undefined;
  }
  const turned = (size.orientation ?? 1) >= 5;
  return turned ? { width: size.height, height: size.width } : { width: size.width, height: size.height };
}

function checkedAlt(alt: string): string {
  const trimmed = alt.trim();
  if (trimmed.length > MAX_ALT_LENGTH)
    throw new AppError('validation_failed', `Alt text is at most ${MAX_ALT_LENGTH} characters.`);
  return trimmed;
}

export async function storeMedia(
  db: Executor,
  blobs: BlobStore,
  siteId: string,
  upload: UploadedFile,
  alt = '',
): Promise<MediaRow> {
  const filename = cleanFilename(upload.filename);
  const contentType = mediaTypeOf(filename, upload.declaredType, upload.bytes);
  const dimensions = dimensionsOf(contentType, upload.bytes);
  const text = checkedAlt(alt);
  const sha256 = createHash('sha256').update(upload.bytes).digest('hex');
  const id = newId();
  // The blob first: a row never names bytes that are not there.
  await blobs.put(mediaBlobKey({ id }), upload.bytes, upload.bytes.length);
  const [row] = await db
    .insert(cmsMedia)
    .values({ id, siteId, sha256, filename, contentType, size: upload.bytes.length, alt: text, ...dimensions })
    .returning();
  return row!;
}

/** A site's media, newest first; `q` keeps those whose file name or alt text holds it. */
export async function listMedia(
  db: Executor,
  siteId: string,
  page: Page,
  q = '',
): Promise<{ rows: MediaRow[]; total: number }> {
  const pattern = `%${escapeLike(q.trim())}%`;
  const where =
    q.trim() === ''
      ? eq(cmsMedia.siteId, siteId)
      : and(eq(cmsMedia.siteId, siteId), or(ilike(cmsMedia.filename, pattern), ilike(cmsMedia.alt, pattern)));
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(cmsMedia)
      .where(where)
      .orderBy(desc(cmsMedia.createdAt), desc(cmsMedia.id))
      .limit(page.pageSize)
      .offset(page.offset),
    db.select({ n: count() }).from(cmsMedia).where(where),
  ]);
  return { rows, total: total!.n };
}

export async function findMedia(db: Executor, siteId: string, id: string): Promise<MediaRow> {
  const [row] = await db
    .select()
    .from(cmsMedia)
    .where(and(eq(cmsMedia.siteId, siteId), eq(cmsMedia.id, id)));
  if (!row) throw new AppError('media_not_found', `No media "${id}".`);
  return row;
}

/** Sets the alt text of one upload. */
export async function updateMediaAlt(db: Executor, siteId: string, id: string, alt: string): Promise<MediaRow> {
  const [row] = await db
    .update(cmsMedia)
    .set({ alt: checkedAlt(alt) })
    .where(and(eq(cmsMedia.siteId, siteId), eq(cmsMedia.id, id)))
    .returning();
  if (!row) throw new AppError('media_not_found', `No media "${id}".`);
  return row;
}

/** An entry that references an upload: its id, its type and its fields (to name it by its title). */
interface MediaUse {
  id: string;
  slug: string | null;
  typeSlug: string;
  data: Record<string, unknown>;
}

const MAX_USES_SHOWN = 50;

const usesMedia = (row: MediaRow) => sql`${cmsEntries.data}::text like ${`%${escapeLike(mediaUrl(row))}%`}`;

/** Entries that reference an upload (in any field, Markdown bodies included), as deleting checks. */
export async function mediaUses(db: Executor, row: MediaRow): Promise<MediaUse[]> {
  return db
    .select({ id: cmsEntries.id, slug: cmsEntries.slug, typeSlug: cmsContentTypes.slug, data: cmsEntries.data })
    .from(cmsEntries)
    .innerJoin(cmsContentTypes, eq(cmsContentTypes.id, cmsEntries.typeId))
    .where(and(eq(cmsEntries.siteId, row.siteId), usesMedia(row)))
    .orderBy(desc(cmsEntries.updatedAt), desc(cmsEntries.id))
    .limit(MAX_USES_SHOWN);
}

/** The `/media/{id}` paths of `paths` that name no media of the site. */
export async function missingMedia(db: Executor, siteId: string, paths: string[]): Promise<string[]> {
  const ids = paths.map((path) => path.slice(MEDIA_PATH.length));
  const found =
    ids.length === 0
      ? []
      : await db
          .select({ id: cmsMedia.id })
          .from(cmsMedia)
          .where(and(eq(cmsMedia.siteId, siteId), inArray(cmsMedia.id, ids)));
  const present = new Set(found.map((row) => row.id));
  return paths.filter((_, i) => !present.has(ids[i]!));
}

/** Deletes media no entry references (any field, Markdown bodies included), then its bytes. */
export async function deleteMedia(db: Executor, blobs: BlobStore, siteId: string, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(cmsMedia)
      .where(and(eq(cmsMedia.siteId, siteId), eq(cmsMedia.id, id)))
      .for('update');
    if (!row) throw new AppError('media_not_found', `No media "${id}".`);
    const [users] = await tx
      .select({ n: count() })
      .from(cmsEntries)
      .where(and(eq(cmsEntries.siteId, siteId), usesMedia(row)));
    if (users!.n > 0)
      throw new AppError(
        'media_in_use',
        `${users!.n} entr${users!.n === 1 ? 'y references' : 'ies reference'} ${mediaUrl(row)}; change them first.`,
        { entries: users!.n },
      );
    await tx.delete(cmsMedia).where(eq(cmsMedia.id, row.id));
  });
  await blobs.delete(mediaBlobKey({ id }));
}

/** A site's media row, or undefined (serving answers 404 without a problem body's detail). */
export async function servedMedia(db: Executor, siteId: string, id: string): Promise<MediaRow | undefined> {
  const [row] = await db
    .select()
    .from(cmsMedia)
    .where(and(eq(cmsMedia.siteId, siteId), eq(cmsMedia.id, id)));
  return row;
}

export async function mediaBytes(blobs: BlobStore, row: MediaRow): Promise<Readable | undefined> {
  return blobs.get(mediaBlobKey(row));
}
