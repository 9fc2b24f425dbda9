// Platform accounts: sign-up, login and sessions. Passwords are scrypt-hashed; sessions are
// `<id>.<secret>` cookies of which only the secret's hash is stored.
import { and, count, desc, eq, gt, lt, ne, or, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { AppError } from '../../http/errors.js';
import type { Page } from '../../http/pagination.js';
import { newId } from '../../lib/ids.js';
import { passwordProblem } from '../../lib/password-rules.js';
import { burnPasswordCheck, hashPassword, verifyPassword } from '../../lib/passwords.js';
import { newSecretToken, parseSecretToken, secretMatches } from '../../lib/secret-tokens.js';
import { sessions, users, type UserRow } from './tables.js';

export const SESSION_TTL_MS = 30 * 24 * 3600 * 1000;

interface NewAccount {
  username: string;
  email: string;
  password: string;
  isAdmin?: boolean;
}

/**
 * Hashes a password someone is setting (sign-up, change, reset), for accounts and forum members alike;
 * 422 `weak_password` when it is too short, too long or one of the common passwords.
 */
export async function hashNewPassword(password: string): Promise<string> {
  const problem = passwordProblem(password);
  if (problem) throw new AppError('weak_password', `The password ${problem}.`);
  return hashPassword(password);
}

/** Creates an account; 409 `username_taken` / `email_taken` when either is in use. */
export async function createAccount(db: Executor, input: NewAccount): Promise<UserRow> {
  const clash = async () => {
    const rows = await db
      .select({ username: users.username, email: users.email })
      .from(users)
      .where(
        or(
          sql`lower(${users.username}) = lower(${input.username})`,
          sql`lower(${users.email}) = lower(${input.email})`,
        ),
      );
    for (const row of rows) {
      if (row.username.toLowerCase() === input.username.toLowerCase())
        throw new AppError('username_taken', `The username "${input.username}" is taken.`);
      throw new AppError('email_taken', 'An account with this e-mail address exists.');
    }
  };
  await clash();
  const [row] = await db
    .insert(users)
    .values({
      id: newId(),
      username: input.username,
      email: input.email,
      passwordHash: await hashNewPassword(input.password),
      isAdmin: input.isAdmin ?? false,
    })
    // A concurrent sign-up with the same name or address got in first: the same answer as above.
    .onConflictDoNothing()
    .returning();
  if (!row) {
    await clash();
    throw new AppError('conflict', 'Another account was created with this name or address at the same time.');
  }
  return row;
}

export async function findUserByLogin(db: Executor, login: string): Promise<UserRow | undefined> {
  const [row] = await db
    .select()
    .from(users)
    .where(or(sql`lower(${users.username}) = lower(${login})`, sql`lower(${users.email}) = lower(${login})`))
    .limit(1);
  return row;
}

/** The account for a login and password, or undefined; takes the same time whether the login exists or not. */
export async function authenticate(db: Executor, login: string, password: string): Promise<UserRow | undefined> {
  const user = await findUserByLogin(db, login);
  if (!user) {
    await burnPasswordCheck(password);
    return undefined;
  }
  return (await verifyPassword(password, user.passwordHash)) ? user : undefined;
}

/** Starts a session and answers the cookie value. */
export async function startSession(db: Executor, userId: string): Promise<string> {
  const { id, secretHash, token } = newSecretToken();
  await db.insert(sessions).values({ id, userId, secretHash, expiresAt: new Date(Date.now() + SESSION_TTL_MS) });
  // Expired sessions of this user are dropped as new ones start, so the table stays small.
  await db.delete(sessions).where(and(eq(sessions.userId, userId), lt(sessions.expiresAt, new Date())));
  return token;
}

export async function userForSession(db: Executor, cookie: string): Promise<UserRow | undefined> {
  const parsed = parseSecretToken(cookie);
  if (!parsed) return undefined;
  const [row] = await db
    .select({ user: users, secretHash: sessions.secretHash })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.id, parsed.id), gt(sessions.expiresAt, new Date())));
  return row && secretMatches(row.secretHash, parsed.secret) ? row.user : undefined;
}

export async function endSession(db: Executor, cookie: string): Promise<void> {
  const [id] = cookie.split('.');
  if (id) await db.delete(sessions).where(eq(sessions.id, id));
}

export async function createAdmin(db: Executor, input: Omit<NewAccount, 'isAdmin'>): Promise<UserRow> {
  return createAccount(db, { ...input, isAdmin: true });
}

/** Whether the platform has an administrator yet (the start banner says how to make the first). */
export async function hasPlatformAdmin(db: Executor): Promise<boolean> {
  const [row] = await db.select({ id: users.id }).from(users).where(eq(users.isAdmin, true)).limit(1);
  return row !== undefined;
}

/** One page of every account, newest first, and the total: the platform administrators' list. */
export async function listAccounts(db: Executor, page: Page): Promise<{ rows: UserRow[]; total: number }> {
  const rows = await db
    .select()
    .from(users)
    .orderBy(desc(users.createdAt), desc(users.id))
    .limit(page.pageSize)
    .offset(page.offset);
  const [total] = await db.select({ n: count() }).from(users);
  return { rows, total: total!.n };
}

export interface SessionSummary {
  id: string;
  createdAt: Date;
  expiresAt: Date;
}

/** The account's live sessions, newest first. */
export async function listSessions(db: Executor, userId: string): Promise<SessionSummary[]> {
  return db
    .select({ id: sessions.id, createdAt: sessions.createdAt, expiresAt: sessions.expiresAt })
    .from(sessions)
    .where(and(eq(sessions.userId, userId), gt(sessions.expiresAt, new Date())))
    .orderBy(desc(sessions.createdAt), desc(sessions.id));
}

/** The id part of a session cookie (`<id>.<secret>`). */
export function sessionIdOf(cookie: string): string | undefined {
  return parseSecretToken(cookie)?.id;
}

/** Ends every session of the account except `keep` ("log out everywhere else"). */
export async function endOtherSessions(db: Executor, userId: string, keep: string | undefined): Promise<void> {
  await db
    .delete(sessions)
    .where(keep ? and(eq(sessions.userId, userId), ne(sessions.id, keep)) : eq(sessions.userId, userId));
}

/**
 * Changes the password after checking the current one (401 `invalid_credentials` when wrong, 422
 * `weak_password`), and ends the account's other sessions.
 */
export async function changePassword(
  db: Executor,
  user: UserRow,
  current: string,
  next: string,
  keepSession: string | undefined,
): Promise<void> {
  if (!(await verifyPassword(current, user.passwordHash)))
    throw new AppError('invalid_credentials', 'The current password is wrong.');
  const passwordHash = await hashNewPassword(next);
  await db.update(users).set({ passwordHash, updatedAt: new Date() }).where(eq(users.id, user.id));
  await endOtherSessions(db, user.id, keepSession);
}
