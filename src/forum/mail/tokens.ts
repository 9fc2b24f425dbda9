// Single-use links mailed to members (confirm the e-mail address, reset the password). The link
// carries `<id>.<secret>`; the database keeps the secret's SHA-256, the address it was sent to, an
// expiry and when it was used. Using a link is one conditional UPDATE, so two clicks cannot both win.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { and, eq, gt, isNull } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { LINK_TTL_MS, newSecretToken, parseSecretToken, secretMatches } from '../../lib/secret-tokens.js';
import { forumMembers, forumMemberTokens, type ForumMemberRow, type ForumMemberTokenRow } from '../tables.js';
import { UNSUBSCRIBE_SCOPES, type UnsubscribeScope } from './settings.js';

type TokenPurpose = ForumMemberTokenRow['purpose'];

const TOKEN_TTL_MS: Record<TokenPurpose, number> = { confirm: LINK_TTL_MS.welcome, reset: LINK_TTL_MS.reset };

/**
 * Issues a link token for the member's current address. Earlier unused tokens of the same purpose
 * die with it, so only the newest mail works.
 */
export async function issueMemberToken(db: Executor, member: ForumMemberRow, purpose: TokenPurpose): Promise<string> {
  const { id, secretHash, token } = newSecretToken();
  await db
    .delete(forumMemberTokens)
    .where(
      and(
        eq(forumMemberTokens.memberId, member.id),
        eq(forumMemberTokens.purpose, purpose),
        isNull(forumMemberTokens.usedAt),
      ),
    );
  await db.insert(forumMemberTokens).values({
    id,
    siteId: member.siteId,
    memberId: member.id,
    purpose,
    secretHash,
    email: member.email,
    expiresAt: new Date(Date.now() + TOKEN_TTL_MS[purpose]),
  });
  return token;
}

/** The live (unused, unexpired) token a link proves, with its member; undefined otherwise. */
export async function findMemberToken(
  db: Executor,
  siteId: string,
  purpose: TokenPurpose,
  presented: string,
): Promise<{ token: ForumMemberTokenRow; member: ForumMemberRow } | undefined> {
  const parsed = parseSecretToken(presented);
  if (!parsed) return undefined;
  const [row] = await db
    .select({ token: forumMemberTokens, member: forumMembers })
    .from(forumMemberTokens)
    .innerJoin(forumMembers, eq(forumMembers.id, forumMemberTokens.memberId))
    .where(
      and(
        eq(forumMemberTokens.id, parsed.id),
        eq(forumMemberTokens.siteId, siteId),
        eq(forumMemberTokens.purpose, purpose),
        isNull(forumMemberTokens.usedAt),
        gt(forumMemberTokens.expiresAt, new Date()),
      ),
    );
  if (!row || !secretMatches(row.token.secretHash, parsed.secret)) return undefined;
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

/** Links mailed before per-kind settings carry no scope; they stop what their one setting did. */
function unsubscribeSignature(secretKey: string, siteId: string, memberId: string, scope: UnsubscribeScope): string {
  const subject =
    scope === 'replies'
      ? `forum-unsubscribe:${siteId}:${memberId}`
      : `forum-unsubscribe:${siteId}:${memberId}:${scope}`;
  return createHmac('sha256', secretKey).update(subject).digest('base64url');
}

/**
 * The token of a member's unsubscribe link: the member id, what it stops (a notification kind, or
 * the digest) and an HMAC of both with SECRET_KEY. It does not expire: a link in an old mail must
 * still work (RFC 8058), and all it can do is turn mail off.
 */
export function unsubscribeToken(
  secretKey: string,
  siteId: string,
  memberId: string,
  scope: Exclude<UnsubscribeScope, 'replies'>,
): string {
  return `${memberId}.${scope}.${unsubscribeSignature(secretKey, siteId, memberId, scope)}`;
}

/** The member and what an unsubscribe token stops, when its signature holds. */
export function verifyUnsubscribeToken(
  secretKey: string,
  siteId: string,
  token: string,
): { memberId: string; scope: UnsubscribeScope } | undefined {
  const parts = token.split('.');
  const [memberId, scope, signature] =
    parts.length === 2 ? [parts[0], 'replies', parts[1]] : parts.length === 3 ? parts : [];
  if (!memberId || !signature || !/^[0-9a-z]{16}$/.test(memberId)) return undefined;
  if (!(UNSUBSCRIBE_SCOPES as readonly string[]).includes(scope!) || (parts.length === 3 && scope === 'replies'))
    return undefined;
  const expected = Buffer.from(unsubscribeSignature(secretKey, siteId, memberId, scope as UnsubscribeScope));
  const actual = Buffer.from(signature);
  return expected.length === actual.length && timingSafeEqual(expected, actual)
    ? { memberId, scope: scope as UnsubscribeScope }
    : undefined;
}
