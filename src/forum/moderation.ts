// Warnings, suspensions and the moderation audit log (docs/decisions/0096-forum-moderation-and-trust.md).
// A warning is a log row the member sees until it acknowledges it; a suspension refuses the member's
// tokens and ends its sessions until it ends or is lifted. Every moderator decision is one log row,
// written in the decision's transaction.
import { and, count, desc, eq, isNull, sql, type SQL } from 'drizzle-orm';
import type { SiteRow } from '../core/sites/tables.js';
import type { Executor } from '../db/client.js';
import type { Param } from '../db/prepared.js';
import { AppError } from '../http/errors.js';
import type { Page } from '../http/pagination.js';
import { newId } from '../lib/ids.js';
import { effectiveRole, findMember } from './members.js';
import { authorizeBan, authorizeModeration, requireMember, type MemberViewer, type Viewer } from './policy.js';
import { forumMembers, forumModActions, forumSessions, type ForumMemberRow, type ForumModActionRow } from './tables.js';

export type ModAction = ForumModActionRow['action'];

/** How long a moderator's reason may be. */
export const MAX_REASON_LENGTH = 1000;

interface LoggedAction {
  action: ModAction;
  target?: Pick<ForumMemberRow, 'id' | 'username'> | undefined;
  postId?: string | undefined;
  flagId?: string | undefined;
  reason?: string | null | undefined;
  until?: Date | null | undefined;
}

/** Writes one audit row for a moderator's decision, in the caller's transaction. */
export async function logModAction(
  tx: Executor,
  siteId: string,
  actor: MemberViewer,
  entry: LoggedAction,
): Promise<ForumModActionRow> {
  const [row] = await tx
    .insert(forumModActions)
    .values({
      id: newId(),
      siteId,
      action: entry.action,
      actorId: actor.member.id,
      actorName: actor.member.username,
      targetMemberId: entry.target?.id ?? null,
      targetName: entry.target?.username ?? null,
      postId: entry.postId ?? null,
      flagId: entry.flagId ?? null,
      reason: entry.reason?.trim() || null,
      until: entry.until ?? null,
    })
    .returning();
  return row!;
}

interface Suspension {
  /** Null: until a moderator lifts it. */
  until: Date | null;
  reason: string | null;
}

/** The suspension that stands for the member now, if any; one whose end has passed is over. */
export function activeSuspension(
  member: Pick<ForumMemberRow, 'suspendedAt' | 'suspendedUntil' | 'suspensionReason'>,
  now = new Date(),
): Suspension | undefined {
  if (!member.suspendedAt) return undefined;
  if (member.suspendedUntil && member.suspendedUntil <= now) return undefined;
  return { until: member.suspendedUntil, reason: member.suspensionReason };
}

/** Words for a suspension, for problem details and pages. */
export function suspensionWords(suspension: Suspension): string {
  const until = suspension.until ? `until ${suspension.until.toISOString()}` : 'until a moderator lifts it';
  return `This member is suspended ${until}${suspension.reason ? `: ${suspension.reason}` : ''}.`;
}

/** Throws 403 `member_suspended` (with the end and reason) while the member's suspension stands. */
export function refuseSuspended(member: ForumMemberRow): void {
  const suspension = activeSuspension(member);
  if (!suspension) return;
  throw new AppError('member_suspended', suspensionWords(suspension), {
    suspended_until: suspension.until?.toISOString() ?? null,
    reason: suspension.reason,
  });
}

/** The member a moderator acts on: moderators act on plain members, admins on anyone but the owner. */
export async function moderatedMember(
  db: Executor,
  site: SiteRow,
  viewer: Viewer,
  memberId: string,
): Promise<{ viewer: MemberViewer; target: ForumMemberRow }> {
  authorizeModeration(viewer);
  const target = await findMember(db, site.id, memberId);
  if (!target) throw new AppError('member_not_found', `No member "${memberId}".`);
  if (target.userId) throw new AppError('owner_member', "The site owner's membership cannot be moderated.");
  authorizeBan(viewer, target, effectiveRole(site, target));
  return { viewer, target };
}

interface WarningInput {
  reason: string;
  postId?: string | undefined;
  flagId?: string | undefined;
}

export interface SuspensionInput extends WarningInput {
  /** Null or undefined: indefinite. */
  until?: Date | null | undefined;
}

function requireReason(input: WarningInput): void {
  if (!input.reason.trim()) throw new AppError('reason_required', 'Say why: the member reads the reason.');
}

/** Checks a warning or suspension before a caller's transaction applies it. */
export function checkSanction(action: 'warn' | 'suspend', input: SuspensionInput): void {
  requireReason(input);
  if (action === 'suspend' && input.until && input.until <= new Date())
    throw new AppError(
      'invalid_suspension_end',
      'A suspension ends in the future; leave the end out for an indefinite one.',
    );
}

/**
 * Warns or suspends a checked member in the caller's transaction. A warning is its log row; a
 * suspension (until `until`, or indefinite) replaces an earlier one and ends the member's sessions.
 */
export async function applySanction(
  tx: Executor,
  siteId: string,
  viewer: MemberViewer,
  target: ForumMemberRow,
  action: 'warn' | 'suspend',
  input: SuspensionInput,
): Promise<ForumModActionRow> {
  if (action === 'suspend') {
    await tx
      .update(forumMembers)
      .set({ suspendedAt: new Date(), suspendedUntil: input.until ?? null, suspensionReason: input.reason.trim() })
      .where(eq(forumMembers.id, target.id));
    await tx.delete(forumSessions).where(eq(forumSessions.memberId, target.id));
  }
  return logModAction(tx, siteId, viewer, {
    action,
    target,
    reason: input.reason,
    until: action === 'suspend' ? (input.until ?? null) : null,
    postId: input.postId,
    flagId: input.flagId,
  });
}

/** Warns a member: the member sees the warning on every page and in `GET /warnings` until it acknowledges it. */
export async function warnMember(
  db: Executor,
  site: SiteRow,
  actor: Viewer,
  memberId: string,
  input: WarningInput,
): Promise<ForumModActionRow> {
  const { viewer, target } = await moderatedMember(db, site, actor, memberId);
  checkSanction('warn', input);
  return applySanction(db, site.id, viewer, target, 'warn', input);
}

/**
 * Suspends a member until `until` (or indefinitely): its tokens answer 403 `member_suspended` and its
 * web sessions end at once; a later suspension replaces the earlier one.
 */
export async function suspendMember(
  db: Executor,
  site: SiteRow,
  actor: Viewer,
  memberId: string,
  input: SuspensionInput,
): Promise<ForumMemberRow> {
  const { viewer, target } = await moderatedMember(db, site, actor, memberId);
  checkSanction('suspend', input);
  await db.transaction((tx) => applySanction(tx, site.id, viewer, target, 'suspend', input));
  return (await findMember(db, site.id, target.id))!;
}

/** Ends a member's suspension now. */
export async function liftSuspension(
  db: Executor,
  site: SiteRow,
  actor: Viewer,
  memberId: string,
): Promise<ForumMemberRow> {
  const { viewer, target } = await moderatedMember(db, site, actor, memberId);
  if (!activeSuspension(target)) throw new AppError('not_suspended', `"${target.username}" is not suspended.`);
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(forumMembers)
      .set({ suspendedAt: null, suspendedUntil: null, suspensionReason: null })
      .where(eq(forumMembers.id, target.id))
      .returning();
    await logModAction(tx, site.id, viewer, { action: 'unsuspend', target });
    return row!;
  });
}

interface ModLogFilter {
  memberId?: string | undefined;
  action?: ModAction | undefined;
}

/** The audit log, newest first (moderators and admins). */
export async function listModActions(
  db: Executor,
  siteId: string,
  viewer: Viewer,
  filter: ModLogFilter,
  page: Page,
): Promise<{ rows: ForumModActionRow[]; total: number }> {
  authorizeModeration(viewer);
  const where = and(
    eq(forumModActions.siteId, siteId),
    filter.memberId ? eq(forumModActions.targetMemberId, filter.memberId) : undefined,
    filter.action ? eq(forumModActions.action, filter.action) : undefined,
  );
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(forumModActions)
      .where(where)
      .orderBy(desc(forumModActions.createdAt), desc(forumModActions.id))
      .limit(page.pageSize)
      .offset(page.offset),
    db.select({ n: count() }).from(forumModActions).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}

function warningsOf(siteId: Param<string>, memberId: Param<string>, unacknowledgedOnly: boolean): SQL {
  return and(
    eq(forumModActions.siteId, siteId),
    eq(forumModActions.targetMemberId, memberId),
    eq(forumModActions.action, 'warn'),
    unacknowledgedOnly ? isNull(forumModActions.acknowledgedAt) : undefined,
  )!;
}

/** Whether the member has warnings it has not acknowledged, as an expression the web UI header selects. */
export function hasUnacknowledgedWarnings(siteId: Param<string>, memberId: Param<string>): SQL<boolean> {
  return sql<boolean>`exists (select 1 from ${forumModActions} where ${warningsOf(siteId, memberId, true)})`;
}

/** The viewer's own warnings, newest first (the unacknowledged ones only, for the page banner). */
export async function listWarnings(
  db: Executor,
  siteId: string,
  viewer: Viewer,
  unacknowledgedOnly: boolean,
): Promise<ForumModActionRow[]> {
  requireMember(viewer);
  return db
    .select()
    .from(forumModActions)
    .where(warningsOf(siteId, viewer.member.id, unacknowledgedOnly))
    .orderBy(desc(forumModActions.createdAt))
    .limit(50);
}

/** The member says it has read a warning of its own; other ids answer 404. */
export async function acknowledgeWarning(
  db: Executor,
  siteId: string,
  viewer: Viewer,
  id: string,
): Promise<ForumModActionRow> {
  requireMember(viewer);
  const [row] = await db
    .update(forumModActions)
    .set({ acknowledgedAt: new Date() })
    .where(and(warningsOf(siteId, viewer.member.id, false), eq(forumModActions.id, id)))
    .returning();
  if (!row) throw new AppError('warning_not_found', `No warning "${id}" of yours.`);
  return row;
}
