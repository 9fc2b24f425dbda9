// Member sessions of the web UI and the CSRF tokens bound to them. The cookie lives on the site host
// only (no Domain attribute), is HttpOnly and SameSite=Lax, and is Secure in production or over HTTPS.
// Forms carry a synchronizer token: an HMAC with SECRET_KEY over the session id, or for visitors
// without a session over a random value in a second cookie (signed double submit).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { and, eq, gt, lt } from 'drizzle-orm';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Executor } from '../../db/client.js';
import { AppError } from '../../http/errors.js';
import { newSecretToken, parseSecretToken, secretMatches } from '../../lib/secret-tokens.js';
import { forumMembers, forumSessions, type ForumMemberRow } from '../tables.js';

export const MEMBER_COOKIE = 'blume_member';
export const CSRF_COOKIE = 'blume_csrf';
export const MEMBER_SESSION_TTL_MS = 30 * 24 * 3600 * 1000;

/** Starts a session and answers the cookie value. */
export async function startMemberSession(db: Executor, siteId: string, memberId: string): Promise<string> {
  const { id, secretHash, token } = newSecretToken();
  await db.insert(forumSessions).values({ id, siteId, memberId, secretHash, expiresAt: new Date(Date.now() + MEMBER_SESSION_TTL_MS) });
  // Expired sessions of this member go as new ones start, so the table stays small.
  await db.delete(forumSessions).where(and(eq(forumSessions.memberId, memberId), lt(forumSessions.expiresAt, new Date())));
  return token;
}

export interface MemberSession {
  id: string;
  member: ForumMemberRow;
}

/** The live session a cookie proves on this site, or undefined. */
export async function memberForSession(db: Executor, siteId: string, cookie: string): Promise<MemberSession | undefined> {
  const parsed = parseSecretToken(cookie);
  if (!parsed) return undefined;
  const { id } = parsed;
  const [row] = await db
    .select({ member: forumMembers, secretHash: forumSessions.secretHash })
    .from(forumSessions)
    .innerJoin(forumMembers, eq(forumMembers.id, forumSessions.memberId))
    .where(and(eq(forumSessions.id, id), eq(forumSessions.siteId, siteId), gt(forumSessions.expiresAt, new Date())));
  if (!row) return undefined;
  return secretMatches(row.secretHash, parsed.secret) ? { id, member: row.member } : undefined;
}

export async function endMemberSession(db: Executor, sessionId: string): Promise<void> {
  await db.delete(forumSessions).where(eq(forumSessions.id, sessionId));
}

/** Ends every session of a member but one (after a password change), or all of them. */
export async function endOtherMemberSessions(db: Executor, memberId: string, keep?: string): Promise<void> {
  const sessions = await db.select({ id: forumSessions.id }).from(forumSessions).where(eq(forumSessions.memberId, memberId));
  for (const session of sessions) if (session.id !== keep) await endMemberSession(db, session.id);
}

// Cookies -----------------------------------------------------------------------------------------

function cookieOptions(request: FastifyRequest, maxAgeSeconds: number) {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: request.server.deps.config.production || request.protocol === 'https',
    maxAge: maxAgeSeconds,
  };
}

export function setMemberCookie(request: FastifyRequest, reply: FastifyReply, value: string): void {
  reply.setCookie(MEMBER_COOKIE, value, cookieOptions(request, MEMBER_SESSION_TTL_MS / 1000));
}

export function clearMemberCookie(reply: FastifyReply): void {
  reply.clearCookie(MEMBER_COOKIE, { path: '/' });
}

// CSRF --------------------------------------------------------------------------------------------

function sign(secretKey: string, siteId: string, binding: string): string {
  return createHmac('sha256', secretKey).update(`forum-csrf:${siteId}:${binding}`).digest('base64url');
}

/**
 * The form token for this request. A visitor without a session gets a random `blume_csrf` cookie
 * (set here when missing) and the token is bound to it; a member's token is bound to the session.
 */
export function csrfToken(request: FastifyRequest, reply: FastifyReply, siteId: string, sessionId: string | undefined): string {
  const secretKey = request.server.deps.config.secretKey;
  if (sessionId) return sign(secretKey, siteId, `session:${sessionId}`);
  let nonce = request.cookies[CSRF_COOKIE];
  if (!nonce || !/^[A-Za-z0-9_-]{22,64}$/.test(nonce)) {
    nonce = randomBytes(18).toString('base64url');
    reply.setCookie(CSRF_COOKIE, nonce, cookieOptions(request, 24 * 3600));
    // Later reads in this request see the same value.
    request.cookies[CSRF_COOKIE] = nonce;
  }
  return sign(secretKey, siteId, `visitor:${nonce}`);
}

function sameToken(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Refuses a form post that did not come from our own page: a foreign `Origin` (or, without one, a
 * foreign `Referer`) or a token that does not match the session or visitor cookie.
 */
export function verifyCsrf(request: FastifyRequest, siteId: string, sessionId: string | undefined, presented: string | undefined): void {
  const expectedOrigin = `${request.protocol}://${request.host}`;
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== expectedOrigin) throw new AppError('csrf_failed', 'The form was sent from another site.');
  const referer = request.headers.referer;
  if (origin === undefined && referer !== undefined && !(referer === expectedOrigin || referer.startsWith(`${expectedOrigin}/`))) {
    throw new AppError('csrf_failed', 'The form was sent from another site.');
  }
  const secretKey = request.server.deps.config.secretKey;
  const nonce = request.cookies[CSRF_COOKIE];
  const candidates = sessionId ? [sign(secretKey, siteId, `session:${sessionId}`)] : nonce ? [sign(secretKey, siteId, `visitor:${nonce}`)] : [];
  if (!presented || !candidates.some((expected) => sameToken(expected, presented))) {
    throw new AppError('csrf_failed', 'The form has expired or was not sent from this site; reload the page and try again.');
  }
}
