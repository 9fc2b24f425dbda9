// Members of one community and how they prove who they are. A member logs in with the username or
// e-mail and password of its community; the site owner logs in with its platform account and is
// given a linked member row that is admin for as long as the account owns the site.
import { and, asc, count, eq, ilike, inArray, isNull, ne, or, sql, type Placeholder, type SQL } from 'drizzle-orm';
import { findUserByLogin, hashNewPassword } from '../core/accounts/service.js';
import type { UserRow } from '../core/accounts/tables.js';
import type { SiteRow } from '../core/sites/tables.js';
import { acceptSecret, parseCredential } from '../core/credentials/service.js';
import { credentials } from '../core/credentials/tables.js';
import { sites } from '../core/sites/tables.js';
import type { Database, Executor } from '../db/client.js';
import { preparedStatement } from '../db/prepared.js';
import { AppError } from '../http/errors.js';
import type { Page } from '../http/pagination.js';
import { randomAlnum, newId } from '../lib/ids.js';
import { burnPasswordCheck, verifyPassword } from '../lib/passwords.js';
import { topicListVersions, visibilityVersion } from './cached-counts.js';
import { authorVersion } from './cached-pages.js';
import type { Role, Viewer } from './policy.js';
import { forumMembers, type ForumMemberRow } from './tables.js';

export type { ForumMemberRow };

interface NewMember {
  username: string;
  email: string;
  password: string;
  role?: Role | undefined;
  /** False for self sign-ups that must confirm their address; members added by admins are vouched for. */
  emailConfirmed?: boolean | undefined;
  /** 0 for self sign-ups (the trust ladder, trust.ts); members added by admins are trusted. */
  trustLevel?: number | undefined;
}

const sameText = (column: typeof forumMembers.username | typeof forumMembers.email, value: string) =>
  sql`lower(${column}) = lower(${value})`;

export async function createMember(db: Executor, siteId: string, input: NewMember): Promise<ForumMemberRow> {
  const clash = await db
    .select({ username: forumMembers.username, email: forumMembers.email, userId: forumMembers.userId })
    .from(forumMembers)
    .where(
      and(
        eq(forumMembers.siteId, siteId),
        or(
          sameText(forumMembers.username, input.username),
          and(sameText(forumMembers.email, input.email), isNull(forumMembers.userId)),
        ),
      ),
    );
  for (const row of clash) {
    if (row.username.toLowerCase() === input.username.toLowerCase())
      throw new AppError('username_taken', `The username "${input.username}" is taken in this community.`);
    throw new AppError('email_taken', 'A member with this e-mail address exists.');
  }
  const [row] = await db
    .insert(forumMembers)
    .values({
      id: newId(),
      siteId,
      username: input.username,
      email: input.email,
      passwordHash: await hashNewPassword(input.password),
      role: input.role ?? 'member',
      emailConfirmed: input.emailConfirmed ?? true,
      trustLevel: input.trustLevel ?? 1,
    })
    .returning();
  return row!;
}

/** A member of the site by username (case-insensitive). */
export async function findMemberByUsername(
  db: Executor,
  siteId: string,
  username: string,
): Promise<ForumMemberRow | undefined> {
  const [row] = await db
    .select()
    .from(forumMembers)
    .where(and(eq(forumMembers.siteId, siteId), sameText(forumMembers.username, username)))
    .limit(1);
  return row;
}

/** Sets a new password after checking the current one; false when the current one is wrong. */
export async function changeMemberPassword(
  db: Executor,
  member: ForumMemberRow,
  current: string,
  next: string,
): Promise<boolean> {
  // Linked members log in with their platform account, whose password the portal changes.
  if (!member.passwordHash || !(await verifyPassword(current, member.passwordHash))) return false;
  await db
    .update(forumMembers)
    .set({ passwordHash: await hashNewPassword(next) })
    .where(eq(forumMembers.id, member.id));
  return true;
}

const tokenMember = preparedStatement('forum_token_member', (db) =>
  db
    .select({
      credential: { id: credentials.id, secretHash: credentials.secretHash, lastUsedAt: credentials.lastUsedAt },
      member: forumMembers,
      versions: communityVersions(sql.placeholder('siteId')),
    })
    .from(credentials)
    .innerJoin(
      forumMembers,
      and(eq(forumMembers.id, credentials.subjectId), eq(forumMembers.siteId, credentials.siteId)),
    )
    .where(
      and(
        eq(credentials.id, sql.placeholder('id')),
        eq(credentials.kind, 'forum_token'),
        isNull(credentials.revokedAt),
        eq(credentials.siteId, sql.placeholder('siteId')),
      ),
    ),
);

/**
 * The member of the site a live forum token acts as, read with the token in one query; undefined for
 * a wrong or revoked token, or one of another community. Read on every request, never cached, so a
 * revocation, ban or role change holds from the next request on, on every node.
 */
export async function findTokenMember(
  db: Database,
  siteId: string,
  presented: string,
): Promise<ForumMemberRow | undefined> {
  return (await readTokenMember(db, siteId, presented))?.member;
}

/**
 * The community's versions a token's statement reads with its member, so in its snapshot: what the
 * member's cached pages are checked against besides the member's own versions (decisions 0109, 0110).
 */
export interface CommunityVersions {
  /** The visibility and author versions, joined (cached-counts.ts, cached-pages.ts). */
  visibilityAndAuthor: string;
  /** The sum of the forums' topic list versions (cached-counts.ts). */
  topicLists: string;
}

/** SQL: the community's versions, to select with a member (its token's or its session's statement). */
export function communityVersions(siteId: Placeholder): { [K in keyof CommunityVersions]: SQL<string> } {
  return {
    visibilityAndAuthor: sql<string>`concat_ws(':', ${visibilityVersion(siteId)}, ${authorVersion(siteId)})`,
    topicLists: sql<string>`${topicListVersions(siteId)}::text`,
  };
}

/** A token's member, with the community's versions read beside it. */
interface TokenMember {
  member: ForumMemberRow;
  versions: CommunityVersions;
}

/** `findTokenMember`, with the community's versions read in the same statement. */
export async function readTokenMember(
  db: Database,
  siteId: string,
  presented: string,
): Promise<TokenMember | undefined> {
  const parsed = parseCredential(presented);
  if (!parsed || parsed.kind !== 'forum_token') return undefined;
  const [row] = await tokenMember(db, undefined).execute({ id: parsed.id, siteId });
  return row && (await acceptSecret(db, row.credential, parsed.secret))
    ? { member: row.member, versions: row.versions }
    : undefined;
}

export async function findMember(db: Executor, siteId: string, id: string): Promise<ForumMemberRow | undefined> {
  const [row] = await db
    .select()
    .from(forumMembers)
    .where(and(eq(forumMembers.siteId, siteId), eq(forumMembers.id, id)));
  return row;
}

/** Usernames of the site's members among `ids`, by id, in one statement. */
export async function memberNames(db: Executor, siteId: string, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: forumMembers.id, username: forumMembers.username })
    .from(forumMembers)
    .where(and(eq(forumMembers.siteId, siteId), inArray(forumMembers.id, [...ids])));
  return new Map(rows.map((row) => [row.id, row.username]));
}

/** The owner's linked member, made on first use. Its username falls back to a suffixed one on a clash. */
export async function ensureOwnerMember(db: Executor, site: SiteRow, user: UserRow): Promise<ForumMemberRow> {
  const [existing] = await db
    .select()
    .from(forumMembers)
    .where(and(eq(forumMembers.siteId, site.id), eq(forumMembers.userId, user.id)));
  if (existing) return existing;
  for (const username of [user.username, `${user.username}-${randomAlnum(4)}`, `${user.username}-${randomAlnum(8)}`]) {
    const [taken] = await db
      .select({ id: forumMembers.id })
      .from(forumMembers)
      .where(and(eq(forumMembers.siteId, site.id), sameText(forumMembers.username, username)));
    if (taken) continue;
    const [row] = await db
      .insert(forumMembers)
      .values({
        id: newId(),
        siteId: site.id,
        userId: user.id,
        username,
        email: user.email,
        passwordHash: null,
        role: 'admin',
      })
      .onConflictDoNothing()
      .returning();
    if (row) return row;
    // A concurrent first login made it: read it back.
    const [raced] = await db
      .select()
      .from(forumMembers)
      .where(and(eq(forumMembers.siteId, site.id), eq(forumMembers.userId, user.id)));
    if (raced) return raced;
  }
  throw new AppError('username_taken', 'Could not find a free username for the site owner in this community.');
}

/**
 * The member a login and password prove, or undefined; a community member of that name wins over
 * the site owner's account. Takes the same time whether the login exists or not.
 */
export async function authenticateMember(
  db: Executor,
  site: SiteRow,
  login: string,
  password: string,
): Promise<ForumMemberRow | undefined> {
  const [member] = await db
    .select()
    .from(forumMembers)
    .where(
      and(
        eq(forumMembers.siteId, site.id),
        isNull(forumMembers.userId),
        or(sameText(forumMembers.username, login), sameText(forumMembers.email, login)),
      ),
    )
    .limit(1);
  if (member?.passwordHash) return (await verifyPassword(password, member.passwordHash)) ? member : undefined;
  const user = site.ownerId ? await findUserByLogin(db, login) : undefined;
  if (!user || user.id !== site.ownerId) {
    await burnPasswordCheck(password);
    return undefined;
  }
  return (await verifyPassword(password, user.passwordHash)) ? ensureOwnerMember(db, site, user) : undefined;
}

/** The role a member acts with: a linked member is admin exactly while its account owns the site. */
export function effectiveRole(site: SiteRow, member: ForumMemberRow): Role {
  if (member.userId) return site.ownerId === member.userId ? 'admin' : 'member';
  return member.role;
}

export function viewerFor(site: SiteRow, member: ForumMemberRow): Viewer {
  return { kind: 'member', member, role: effectiveRole(site, member) };
}

/** `%`, `_` and `\\` match themselves in a member search. */
function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** A page of the site's members, oldest first; `query` matches part of the username or e-mail. */
export async function listMembers(
  db: Executor,
  siteId: string,
  page: Page,
  query?: string,
): Promise<{ rows: ForumMemberRow[]; total: number }> {
  const pattern = query?.trim() ? likePattern(query.trim()) : undefined;
  const where = and(
    eq(forumMembers.siteId, siteId),
    pattern ? or(ilike(forumMembers.username, pattern), ilike(forumMembers.email, pattern)) : undefined,
  );
  const [total] = await db.select({ n: count() }).from(forumMembers).where(where);
  const rows = await db
    .select()
    .from(forumMembers)
    .where(where)
    .orderBy(asc(forumMembers.createdAt), asc(forumMembers.id))
    .limit(page.pageSize)
    .offset(page.offset);
  return { rows, total: total?.n ?? 0 };
}

interface MemberChange {
  role?: Role | undefined;
  banned?: boolean | undefined;
}

/** An admin who can log in and act: an unbanned member with the admin role. */
function actsAsAdmin(member: Pick<ForumMemberRow, 'role' | 'banned'>): boolean {
  return member.role === 'admin' && !member.banned;
}

/**
 * The one last-admin guard: a community must keep an admin who can log in. Called inside the
 * transaction of every change that takes admin powers away (demotion, ban, deletion). The site's
 * own admins are locked first, so two admins demoting each other at once cannot both pass; the
 * owner's account (platform sites) is always an admin, so a site with an owner always passes.
 */
async function keepAnAdmin(tx: Executor, siteId: string, target: ForumMemberRow): Promise<void> {
  const [site] = await tx.select({ ownerId: sites.ownerId }).from(sites).where(eq(sites.id, siteId));
  if (site?.ownerId) return;
  const admins = await tx
    .select({ id: forumMembers.id, role: forumMembers.role, banned: forumMembers.banned })
    .from(forumMembers)
    .where(and(eq(forumMembers.siteId, siteId), eq(forumMembers.role, 'admin'), isNull(forumMembers.userId)))
    .orderBy(asc(forumMembers.id))
    .for('update');
  if (!admins.some((admin) => admin.id !== target.id && actsAsAdmin(admin))) {
    throw new AppError(
      'last_admin',
      `"${target.username}" is the last admin of this community; make another member admin first.`,
    );
  }
}

/** Whether the change leaves a working admin without admin powers. */
function takesAdminAway(member: ForumMemberRow, change: MemberChange): boolean {
  if (!actsAsAdmin(member)) return false;
  return (change.role !== undefined && change.role !== 'admin') || change.banned === true;
}

/** The member of the site, for a change; 404 when missing, 409 for the owner's linked member. */
async function changeableMember(db: Executor, siteId: string, id: string): Promise<ForumMemberRow> {
  const member = await findMember(db, siteId, id);
  if (!member) throw new AppError('member_not_found', `No member "${id}".`);
  if (member.userId)
    throw new AppError(
      'owner_member',
      "The site owner's membership cannot be changed here; it follows the site's ownership.",
    );
  return member;
}

export async function updateMember(
  db: Executor,
  siteId: string,
  id: string,
  change: MemberChange,
): Promise<ForumMemberRow> {
  return db.transaction(async (tx) => {
    const member = await changeableMember(tx, siteId, id);
    if (takesAdminAway(member, change)) await keepAnAdmin(tx, siteId, member);
    const [row] = await tx
      .update(forumMembers)
      .set({
        ...(change.role !== undefined ? { role: change.role } : {}),
        ...(change.banned !== undefined ? { banned: change.banned } : {}),
      })
      .where(and(eq(forumMembers.siteId, siteId), eq(forumMembers.id, id)))
      .returning();
    return row!;
  });
}

/**
 * Deletes a member: sessions and mail links go with it (foreign keys), its forum tokens are revoked,
 * and its topics and posts stay, without an author.
 */
export async function deleteMember(db: Executor, siteId: string, id: string): Promise<ForumMemberRow> {
  return db.transaction(async (tx) => {
    const member = await changeableMember(tx, siteId, id);
    if (actsAsAdmin(member)) await keepAnAdmin(tx, siteId, member);
    await tx
      .update(credentials)
      .set({ revokedAt: new Date() })
      .where(
        and(
          eq(credentials.kind, 'forum_token'),
          eq(credentials.siteId, siteId),
          eq(credentials.subjectId, member.id),
          isNull(credentials.revokedAt),
        ),
      );
    await tx.delete(forumMembers).where(and(eq(forumMembers.siteId, siteId), eq(forumMembers.id, id)));
    return member;
  });
}

/** How many members of the site hold each role (for the admin's first-run checklist). */
export async function countMembersByRole(db: Executor, siteId: string): Promise<Record<Role, number>> {
  const rows = await db
    .select({ role: forumMembers.role, n: count() })
    .from(forumMembers)
    .where(and(eq(forumMembers.siteId, siteId), ne(forumMembers.banned, true)))
    .groupBy(forumMembers.role);
  const out: Record<Role, number> = { admin: 0, moderator: 0, member: 0 };
  for (const row of rows) out[row.role] = row.n;
  return out;
}

/**
 * Up to `limit` members whose username starts with `prefix` (any case), for @mention suggestions; banned members are
 * left out.
 */
export async function suggestMembers(
  db: Executor,
  siteId: string,
  prefix: string,
  limit: number,
): Promise<Array<Pick<ForumMemberRow, 'username'>>> {
  const pattern = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return db
    .select({ username: forumMembers.username })
    .from(forumMembers)
    .where(and(eq(forumMembers.siteId, siteId), eq(forumMembers.banned, false), ilike(forumMembers.username, pattern)))
    .orderBy(asc(sql`lower(${forumMembers.username})`), asc(forumMembers.username))
    .limit(limit);
}
