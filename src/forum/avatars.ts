// Member avatars: an image the member uploads (checked by its bytes and stored without metadata, as
// uploads are), or initials generated from the username on a colour of a fixed palette that keeps
// white text at a contrast of at least 4.5:1. Served at `/avatars/{upload id}`.
import { and, eq } from 'drizzle-orm';
import type { BlobStore } from '../adapters/blobs/index.js';
import type { Executor } from '../db/client.js';
import type { UploadedFile } from '../http/uploads.js';
import { requireMember, type Viewer } from './policy.js';
import { forumMembers, forumUploads, type ForumMemberRow, type UploadRow } from './tables.js';
import { IMAGE_KINDS, saveUpload, uploadBlobKey } from './uploads.js';

/** A member as posts, topics and notifications name them. */
export interface Author {
  id: string;
  username: string;
  /** The member's avatar upload (pages show it; generated initials without one). */
  avatar: string | null;
}

/** The author as posts and topics show them; null once the member is gone. */
export function authorOf(id: string | null, username: string | null, avatar: string | null): Author | null {
  return id && username ? { id, username, avatar } : null;
}

/** Avatars are small pictures. */
export const MAX_AVATAR_BYTES = 1024 * 1024;
/**
 * Colours of the initials bubble, each keeping white text at 4.5:1 or better: the stylesheet's
 * classes `avatar-c0` ... and the generated SVG take them from here.
 */
export const AVATAR_PALETTE = [
  '#1d4ed8',
  '#047857',
  '#b91c1c',
  '#7e22ce',
  '#c2410c',
  '#0e7490',
  '#be185d',
  '#4d7c0f',
] as const;
/** What initials may be: one or two letters, digits or the other characters of usernames. */
const INITIALS = /^[\p{L}\p{N}_.-]{1,2}$/u;

/** One or two letters for the bubble: the first letters of the name's parts, else its first two characters. */
export function initialsOf(username: string): string {
  const parts = username.split(/[._-]+/).filter((part) => part !== '');
  const letters = parts.length > 1 ? parts[0]![0]! + parts[1]![0]! : [...username].slice(0, 2).join('');
  return letters.toUpperCase();
}

/**
 * The palette entry of a name: stable, so a member keeps its colour. FNV-1a of the lower-cased
 * name, its halves folded: every author on every page and API list is coloured, so no digest here.
 */
export function colourOf(username: string): number {
  const name = username.toLowerCase();
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i += 1) hash = Math.imul(hash ^ name.charCodeAt(i), 0x01000193);
  return ((hash ^ (hash >>> 16)) >>> 0) % AVATAR_PALETTE.length;
}

export const avatarUrl = (uploadId: string): string => `/avatars/${uploadId}`;

/** Where the generated avatar of a name is served: its initials on its colour, as SVG. */
const initialsAvatarUrl = (username: string): string =>
  `/avatars/initials/${colourOf(username)}/${encodeURIComponent(initialsOf(username))}.svg`;

/** The avatar the Forum API names for a member: its uploaded picture, else its generated initials. */
export function memberAvatarUrl(member: { username: string; avatar: string | null }): string {
  return member.avatar ? avatarUrl(member.avatar) : initialsAvatarUrl(member.username);
}

/**
 * The generated avatar `/avatars/initials/{colour}/{initials}.svg`: a disc of the palette colour with
 * the initials in white, nothing else (no script, no link, no font to fetch). Undefined for a
 * colour or initials no name gives.
 */
export function initialsSvg(colour: string, initials: string): string | undefined {
  const fill = /^\d$/.test(colour) ? AVATAR_PALETTE[Number(colour)] : undefined;
  if (!fill || !INITIALS.test(initials) || initials !== initials.toUpperCase()) return undefined;
  // The letters are checked above, so none needs escaping in the text node.
  return `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64">\
<circle cx="32" cy="32" r="32" fill="${fill}"/>\
<text x="32" y="32" dominant-baseline="central" text-anchor="middle" font-family="system-ui,sans-serif" font-size="26" \
font-weight="700" fill="#fff">${initials}</text></svg>`;
}

async function dropUpload(db: Executor, blobs: BlobStore, siteId: string, id: string | null): Promise<void> {
  if (!id) return;
  const [row] = await db
    .delete(forumUploads)
    .where(and(eq(forumUploads.siteId, siteId), eq(forumUploads.id, id)))
    .returning({ id: forumUploads.id });
  if (row) await blobs.delete(uploadBlobKey(row));
}

/** Sets the viewer's avatar from an uploaded image (PNG, JPEG, GIF or WebP; SVG refused); the old one goes. */
export async function setAvatar(
  db: Executor,
  blobs: BlobStore,
  siteId: string,
  viewer: Viewer,
  upload: UploadedFile,
): Promise<ForumMemberRow> {
  requireMember(viewer);
  const stored = await saveUpload(db, blobs, siteId, viewer.member.id, upload, IMAGE_KINDS);
  const [member] = await db
    .update(forumMembers)
    .set({ avatarUploadId: stored.id })
    .where(eq(forumMembers.id, viewer.member.id))
    .returning();
  await dropUpload(db, blobs, siteId, viewer.member.avatarUploadId);
  return member!;
}

/** Goes back to generated initials. */
export async function removeAvatar(db: Executor, blobs: BlobStore, siteId: string, viewer: Viewer): Promise<void> {
  requireMember(viewer);
  await db.update(forumMembers).set({ avatarUploadId: null }).where(eq(forumMembers.id, viewer.member.id));
  await dropUpload(db, blobs, siteId, viewer.member.avatarUploadId);
}

/** The image of an avatar of the site: a member's current avatar only. */
export async function servedAvatar(db: Executor, siteId: string, uploadId: string): Promise<UploadRow | undefined> {
  const [row] = await db
    .select({ upload: forumUploads })
    .from(forumUploads)
    .innerJoin(forumMembers, eq(forumMembers.avatarUploadId, forumUploads.id))
    .where(and(eq(forumUploads.siteId, siteId), eq(forumUploads.id, uploadId), eq(forumUploads.kind, 'image')));
  return row?.upload;
}
