// A site's team (decision 0142): its owner of record (`sites.owner_id`, always an owner) and the
// members with a role, invited by e-mail. An invitation is a single-use link whose secret is kept only
// as a hash; accepting it needs an account with the invited address. A site always keeps an owner:
// removing the owner of record hands the record to another owner, and the last owner stays.
import { and, asc, eq, gt } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { AppError } from '../../http/errors.js';
import { LINK_TTL_MS, newSecretToken, parseSecretToken, secretMatches } from '../../lib/secret-tokens.js';
import { users, type UserRow } from '../accounts/tables.js';
import { siteInvitations, siteMembers, sites, type SiteInvitationRow, type SiteRole, type SiteRow } from './tables.js';

export const SITE_ROLES: readonly SiteRole[] = ['owner', 'developer', 'viewer'];

/** What each role may do, weakest first: a role may do everything the ones before it may. */
const RANK: Record<SiteRole, number> = { viewer: 0, developer: 1, owner: 2 };

export function roleAllows(role: SiteRole, needed: SiteRole): boolean {
  return RANK[role] >= RANK[needed];
}

export interface TeamMember {
  user: Pick<UserRow, 'id' | 'username' | 'email'>;
  role: SiteRole;
  /** The owner of record: the account the site belongs to (billing, the community's admin). */
  ownerOfRecord: boolean;
  since: Date;
}

/** The role of an account on a site, or undefined when it has none. Platform administrators act as owners. */
export async function siteRole(db: Executor, user: UserRow, site: SiteRow): Promise<SiteRole | undefined> {
  if (user.isAdmin || site.ownerId === user.id) return 'owner';
  const [row] = await db
    .select({ role: siteMembers.role })
    .from(siteMembers)
    .where(and(eq(siteMembers.siteId, site.id), eq(siteMembers.userId, user.id)));
  return row?.role;
}

/** The owner of record first, then the members by when they joined. */
export async function listTeam(db: Executor, site: SiteRow): Promise<TeamMember[]> {
  const person = { id: users.id, username: users.username, email: users.email };
  const owner = site.ownerId ? await db.select(person).from(users).where(eq(users.id, site.ownerId)) : [];
  const members = await db
    .select({ user: person, role: siteMembers.role, since: siteMembers.createdAt })
    .from(siteMembers)
    .innerJoin(users, eq(users.id, siteMembers.userId))
    .where(eq(siteMembers.siteId, site.id))
    .orderBy(asc(siteMembers.createdAt), asc(users.username));
  return [
    ...owner.map((user) => ({ user, role: 'owner' as const, ownerOfRecord: true, since: site.createdAt })),
    ...members.map((row) => ({ ...row, ownerOfRecord: false })),
  ];
}

export async function listInvitations(db: Executor, siteId: string): Promise<SiteInvitationRow[]> {
  return db
    .select()
    .from(siteInvitations)
    .where(and(eq(siteInvitations.siteId, siteId), gt(siteInvitations.expiresAt, new Date())))
    .orderBy(asc(siteInvitations.createdAt));
}

interface NewInvitation {
  email: string;
  role: SiteRole;
}

/**
 * Records an invitation and answers it with the token its link carries (shown nowhere else). A new
 * invitation of the same address replaces the earlier one, whose link stops working. 409
 * `already_member` when an account with that address is on the team.
 */
export async function inviteMember(
  db: Executor,
  site: SiteRow,
  invitedBy: UserRow,
  input: NewInvitation,
): Promise<{ invitation: SiteInvitationRow; token: string }> {
  const email = input.email.trim().toLowerCase();
  const team = await listTeam(db, site);
  if (team.some((member) => member.user.email.toLowerCase() === email))
    throw new AppError('already_member', `${email} is already on the team of "${site.id}".`);
  const { id, secretHash, token } = newSecretToken();
  const values = {
    id,
    siteId: site.id,
    email,
    role: input.role,
    secretHash,
    invitedBy: invitedBy.id,
    createdAt: new Date(),
    expiresAt: new Date(Date.now() + LINK_TTL_MS.welcome),
  };
  const [invitation] = await db
    .insert(siteInvitations)
    .values(values)
    .onConflictDoUpdate({ target: [siteInvitations.siteId, siteInvitations.email], set: values })
    .returning();
  return { invitation: invitation!, token };
}

export async function revokeInvitation(db: Executor, siteId: string, id: string): Promise<void> {
  const gone = await db
    .delete(siteInvitations)
    .where(and(eq(siteInvitations.siteId, siteId), eq(siteInvitations.id, id)))
    .returning({ id: siteInvitations.id });
  if (gone.length === 0) throw new AppError('invitation_not_found', 'No such invitation.');
}

/** The live invitation a link's token proves, with its site; undefined for a wrong, used or expired one. */
export async function findInvitation(
  db: Executor,
  token: string,
): Promise<{ invitation: SiteInvitationRow; site: SiteRow } | undefined> {
  const parsed = parseSecretToken(token);
  if (!parsed) return undefined;
  const [row] = await db
    .select({ invitation: siteInvitations, site: sites })
    .from(siteInvitations)
    .innerJoin(sites, eq(sites.id, siteInvitations.siteId))
    .where(and(eq(siteInvitations.id, parsed.id), gt(siteInvitations.expiresAt, new Date())));
  if (!row || !secretMatches(row.invitation.secretHash, parsed.secret)) return undefined;
  return row;
}

/**
 * The signed-in account joins the team with the invitation's role and the link is spent. The
 * account's address must be the invited one (403 `invitation_email_mismatch`), so a forwarded link
 * does not let someone else in.
 */
export async function acceptInvitation(
  db: Executor,
  found: { invitation: SiteInvitationRow; site: SiteRow },
  user: UserRow,
): Promise<SiteRole> {
  if (user.email.toLowerCase() !== found.invitation.email)
    throw new AppError(
      'invitation_email_mismatch',
      `This invitation is for ${found.invitation.email}; log in with the account of that address.`,
    );
  return db.transaction(async (tx) => {
    const spent = await tx
      .delete(siteInvitations)
      .where(eq(siteInvitations.id, found.invitation.id))
      .returning({ role: siteInvitations.role });
    if (spent.length === 0) throw new AppError('invitation_not_found', 'The invitation was used or withdrawn.');
    if (found.site.ownerId === user.id) return 'owner';
    await tx
      .insert(siteMembers)
      .values({ siteId: found.site.id, userId: user.id, role: spent[0]!.role })
      .onConflictDoUpdate({ target: [siteMembers.siteId, siteMembers.userId], set: { role: spent[0]!.role } });
    return spent[0]!.role;
  });
}

/**
 * Takes an account off the team. The last owner cannot go (409 `last_owner`); when the owner of
 * record goes, the owner who joined first becomes the owner of record. One transaction, with the
 * site's row locked, so two removals cannot both take the last two owners.
 */
export async function removeMember(db: Executor, siteId: string, userId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const [site] = await tx.select().from(sites).where(eq(sites.id, siteId)).for('update');
    if (!site) throw new AppError('site_not_found', `No site "${siteId}".`);
    const owners = await tx
      .select({ userId: siteMembers.userId })
      .from(siteMembers)
      .where(and(eq(siteMembers.siteId, siteId), eq(siteMembers.role, 'owner')))
      .orderBy(asc(siteMembers.createdAt));
    if (site.ownerId === userId) {
      const heir = owners[0];
      if (!heir)
        throw new AppError('last_owner', 'The last owner of a site cannot be removed; add another owner first.');
      await tx.update(sites).set({ ownerId: heir.userId }).where(eq(sites.id, siteId));
      await tx.delete(siteMembers).where(and(eq(siteMembers.siteId, siteId), eq(siteMembers.userId, heir.userId)));
      return;
    }
    const isOwner = owners.some((owner) => owner.userId === userId);
    if (isOwner && site.ownerId === null && owners.length === 1)
      throw new AppError('last_owner', 'The last owner of a site cannot be removed; add another owner first.');
    const gone = await tx
      .delete(siteMembers)
      .where(and(eq(siteMembers.siteId, siteId), eq(siteMembers.userId, userId)))
      .returning({ userId: siteMembers.userId });
    if (gone.length === 0) throw new AppError('team_member_not_found', 'That account is not on the team.');
  });
}
