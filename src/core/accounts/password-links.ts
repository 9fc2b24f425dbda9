// Single-use links that set an account's password (docs/decisions/0086): the invitation a new
// workspace owner gets, and the forgotten-password mail. The link carries `<id>.<secret>`; the
// database keeps the secret's SHA-256, the address it went to, an expiry and when it was used. Using
// a link is one conditional UPDATE, so two clicks cannot both win.
import { and, eq, gt, isNull } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { LINK_TTL_MS, newSecretToken, parseSecretToken, secretMatches } from '../../lib/secret-tokens.js';
import { hashNewPassword } from './service.js';
import { accountTokens, sessions, users, type AccountTokenRow, type UserRow } from './tables.js';

export type PasswordLinkPurpose = AccountTokenRow['purpose'];

const TTL_MS: Record<PasswordLinkPurpose, number> = { invite: LINK_TTL_MS.welcome, reset: LINK_TTL_MS.reset };

/**
 * Issues a link for the account's current address. Earlier unused links of the same purpose die
 * with it, so only the newest mail works.
 */
export async function issuePasswordLink(db: Executor, user: UserRow, purpose: PasswordLinkPurpose): Promise<string> {
  const { id, secretHash, token } = newSecretToken();
  await db
    .delete(accountTokens)
    .where(and(eq(accountTokens.userId, user.id), eq(accountTokens.purpose, purpose), isNull(accountTokens.usedAt)));
  await db.insert(accountTokens).values({
    id,
    userId: user.id,
    purpose,
    secretHash,
    email: user.email,
    expiresAt: new Date(Date.now() + TTL_MS[purpose]),
  });
  return token;
}

interface LivePasswordLink {
  token: AccountTokenRow;
  user: UserRow;
}

/** The live (unused, unexpired) link `presented` proves, with its account; undefined otherwise. */
export async function findPasswordLink(db: Executor, presented: string): Promise<LivePasswordLink | undefined> {
  const parsed = parseSecretToken(presented);
  if (!parsed) return undefined;
  const [row] = await db
    .select({ token: accountTokens, user: users })
    .from(accountTokens)
    .innerJoin(users, eq(users.id, accountTokens.userId))
    .where(and(eq(accountTokens.id, parsed.id), isNull(accountTokens.usedAt), gt(accountTokens.expiresAt, new Date())));
  if (!row || !secretMatches(row.token.secretHash, parsed.secret)) return undefined;
  // A link sent to an address the account no longer has proves nothing about the new one.
  if (row.token.email.toLowerCase() !== row.user.email.toLowerCase()) return undefined;
  return row;
}

/**
 * Sets the password through a link `findPasswordLink` found (422 `weak_password` when it is weak).
 * The link is spent, and so is every other live link of the account, and every session of the
 * account ends (the caller starts a fresh one). Undefined when another request spent the link first.
 */
export async function setPasswordThroughLink(
  db: Executor,
  found: LivePasswordLink,
  password: string,
): Promise<UserRow | undefined> {
  const passwordHash = await hashNewPassword(password);
  return db.transaction(async (tx) => {
    const spent = await tx
      .update(accountTokens)
      .set({ usedAt: new Date() })
      .where(and(eq(accountTokens.id, found.token.id), isNull(accountTokens.usedAt)))
      .returning({ id: accountTokens.id });
    if (spent.length === 0) return undefined;
    await tx
      .update(accountTokens)
      .set({ usedAt: new Date() })
      .where(and(eq(accountTokens.userId, found.user.id), isNull(accountTokens.usedAt)));
    const [user] = await tx
      .update(users)
      .set({ passwordHash, updatedAt: new Date() })
      .where(eq(users.id, found.user.id))
      .returning();
    await tx.delete(sessions).where(eq(sessions.userId, found.user.id));
    return user;
  });
}
