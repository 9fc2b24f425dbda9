// Single-use links mailed to members (confirm the e-mail address, reset the password). The link
// carries `<id>.<secret>`; the database keeps the secret's SHA-256, the address it was sent to, an
// expiry and when it was used. Using a link is one conditional UPDATE, so two clicks cannot both win.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { and, eq, gt, isNull } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { newId } from '../../lib/ids.js';
import { forumMembers, forumMemberTokens, type ForumMemberRow, type ForumMemberTokenRow } from '../tables.js';

export type TokenPurpose = ForumMemberTokenRow['purpose'];

export const TOKEN_TTL_MS: Record<TokenPurpose, number> = {
  confirm: 7 * 24 * 3600 * 1000,
  // Short, as a reset link is as good as the password while it lives.
  reset: 3600 * 1000,
};

const TOKEN_SHAPE = /^([0-9a-z]{16})\.([A-Za-z0-9_-]{43})$/;

function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/**
 * Issues a link token for the member's current address. Earlier unused tokens of the same purpose
 * die with it, so only the newest mail works.
 */
export async function issueMemberToken(db: Executor, member: ForumMemberRow, purpose: TokenPurpose): Promise<string> {
  const id = newId();
  const secret = randomBytes(32).toString('base64url');
  await db.delete(forumMemberTokens).where(and(eq(forumMemberTokens.memberId, member.id), eq(forumMemberTokens.purpose, purpose), isNull(forumMemberTokens.usedAt)));
  await db.insert(forumMemberTokens).values({
    id,
    siteId: member.siteId,
    memberId: member.id,
    purpose,
    secretHash: hashSecret(secret),
    email: member.email,
    expiresAt: new Date(Date.now() + TOKEN_TTL_MS[purpose]),
  });
  return `${id}.${secret}`;
}

/** The live (unused, unexpired) token a link proves, with its member; undefined otherwise. */
export async function findMemberToken(db: Executor, siteId: string, purpose: TokenPurpose, presented: string): Promise<{ token: ForumMemberTokenRow; member: ForumMemberRow } | undefined> {
  const match = TOKEN_SHAPE.exec(presented);
  if (!match) return undefined;
  const [row] = await db
    .select({ token: forumMemberTokens, member: forumMembers })
    .from(forumMemberTokens)
    .innerJoin(forumMembers, eq(forumMembers.id, forumMemberTokens.memberId))
    .where(
      and(
        eq(forumMemberTokens.id, match[1]!),
        eq(forumMemberTokens.siteId, siteId),
        eq(forumMemberTokens.purpose, purpose),
        isNull(forumMemberTokens.usedAt),
        gt(forumMemberTokens.expiresAt, new Date()),
      ),
    );
  if (!row) return undefined;
  const expected = Buffer.from(row.token.secretHash, 'hex');
  const actual = Buffer.from(hashSecret(match[2]!), 'hex');
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return undefined;
  // A link sent to an address the member no longer has proves nothing about the new one.
  if (row.token.email.toLowerCase() !== row.member.email.toLowerCase()) return undefined;
  return row;
}

/** Marks the token used; false when another request used it first. */
export async function spendMemberToken(db: Executor, tokenId: string): Promise<boolean> {
  const spent = await db
    .update(forumMemberTokens)
    .set({ usedAt: new Date() })
    .where(and(eq(forumMemberTokens.id, tokenId), isNull(forumMemberTokens.usedAt)))
    .returning({ id: forumMemberTokens.id });
  return spent.length === 1;
}

// One-click unsubscribe links ------------------------------------------------------------------------

function unsubscribeSignature(secretKey: string, siteId: string, memberId: string): string {
  return createHmac('sha256', secretKey).update(`forum-unsubscribe:${siteId}:${memberId}`).digest('base64url');
}

/**
 * The token of a member's unsubscribe link: the member id and an HMAC with SECRET_KEY. It does not
 * expire: a link in an old mail must still work (RFC 8058), and all it can do is turn mail off.
 */
export function unsubscribeToken(secretKey: string, siteId: string, memberId: string): string {
  return `${memberId}.${unsubscribeSignature(secretKey, siteId, memberId)}`;
}

/** The member id an unsubscribe token names, when its signature holds. */
export function verifyUnsubscribeToken(secretKey: string, siteId: string, token: string): string | undefined {
  const [memberId, signature] = token.split('.');
  if (!memberId || !signature || !/^[0-9a-z]{16}$/.test(memberId)) return undefined;
  const expected = Buffer.from(unsubscribeSignature(secretKey, siteId, memberId));
  const actual = Buffer.from(signature);
  return expected.length === actual.length && timingSafeEqual(expected, actual) ? memberId : undefined;
}
