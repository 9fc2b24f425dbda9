// Member sessions of the web UI and the CSRF tokens bound to them. The cookie lives on the site host
// only (no Domain attribute), is HttpOnly and SameSite=Lax, and is Secure in production or over HTTPS.
// Forms carry the CSRF token of src/http/csrf.ts bound to the session, scoped to the site.
import { and, eq, gt, lt, sql } from 'drizzle-orm';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database, Executor } from '../../db/client.js';
import { preparedStatement } from '../../db/prepared.js';
import { newSecretToken, parseSecretToken, secretMatches } from '../../lib/secret-tokens.js';
import { communityVersions, type CommunityVersions } from '../members.js';
import { forumMembers, forumSessions, type ForumMemberRow } from '../tables.js';

export const MEMBER_COOKIE = 'blume_member';
const MEMBER_SESSION_TTL_MS = 30 * 24 * 3600 * 1000;

/** Starts a session and answers the cookie value. */
export async function startMemberSession(db: Executor, siteId: string, memberId: string): Promise<string> {
  const { id, secretHash, token } = newSecretToken();
  await db
    .insert(forumSessions)
    .values({ id, siteId, memberId, secretHash, expiresAt: new Date(Date.now() + MEMBER_SESSION_TTL_MS) });
  // Expired sessions of this member go as new ones start, so the table stays small.
  await db
    .delete(forumSessions)
    .where(and(eq(forumSessions.memberId, memberId), lt(forumSessions.expiresAt, new Date())));
  return token;
}

interface MemberSession {
  id: string;
  member: ForumMemberRow;
  /** The community's versions, read with the member (cached pages, decision 0110). */
  versions: CommunityVersions;
}

/** Every page a member opens reads its session: one statement, parsed and planned once per connection. */
const sessionMember = preparedStatement('forum_ui_session', (db) =>
  db
    .select({
      member: forumMembers,
      secretHash: forumSessions.secretHash,
      versions: communityVersions(sql.placeholder('siteId')),
    })
    .from(forumSessions)
    .innerJoin(forumMembers, eq(forumMembers.id, forumSessions.memberId))
    .where(
      and(
        eq(forumSessions.id, sql.placeholder('id')),
        eq(forumSessions.siteId, sql.placeholder('siteId')),
        gt(forumSessions.expiresAt, sql.placeholder('now')),
      ),
    ),
);

/** The live session a cookie proves on this site, or undefined. */
export async function memberForSession(
  db: Database,
  siteId: string,
  cookie: string,
): Promise<MemberSession | undefined> {
  const parsed = parseSecretToken(cookie);
  if (!parsed) return undefined;
  const { id } = parsed;
  const [row] = await sessionMember(db, undefined).execute({ id, siteId, now: new Date() });
  if (!row) return undefined;
  return secretMatches(row.secretHash, parsed.secret) ? { id, member: row.member, versions: row.versions } : undefined;
}

export async function endMemberSession(db: Executor, sessionId: string): Promise<void> {
  await db.delete(forumSessions).where(eq(forumSessions.id, sessionId));
}

/** Ends every session of a member but one (after a password change), or all of them. */
export async function endOtherMemberSessions(db: Executor, memberId: string, keep?: string): Promise<void> {
  const sessions = await db
    .select({ id: forumSessions.id })
    .from(forumSessions)
    .where(eq(forumSessions.memberId, memberId));
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
