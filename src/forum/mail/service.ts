// Mail-backed member flows: e-mail confirmation, password reset and reply notifications. Each writes
// its mail to the outbox in the caller's transaction; the caller nudges the outbox after commit.
import { and, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import type { SiteRow } from '../../core/sites/tables.js';
import type { Executor } from '../../db/client.js';
import { hashNewPassword } from '../../core/accounts/service.js';
import { viewerFor } from '../members.js';
import { canSeeTopic } from '../policy.js';
import { forumMembers, forumSessions, type ForumMemberRow, type ForumPostRow, type ForumRow, type ForumTopicRow } from '../tables.js';
import { confirmationMail, replyMail, resetMail, type MailContext } from './messages.js';
import { enqueueMail } from './outbox.js';
import { findMemberToken, issueMemberToken, spendMemberToken, unsubscribeToken } from './tokens.js';

export async function sendConfirmation(db: Executor, ctx: MailContext, member: ForumMemberRow): Promise<void> {
  await db.transaction(async (tx) => {
    const token = await issueMemberToken(tx, member, 'confirm');
    await enqueueMail(tx, member.siteId, 'confirm', confirmationMail(ctx, member, token));
  });
}

/** Confirms the address a live confirmation link was sent to; undefined when the link is not live. */
export async function confirmEmail(db: Executor, siteId: string, presented: string): Promise<ForumMemberRow | undefined> {
  const found = await findMemberToken(db, siteId, 'confirm', presented);
  if (!found || !(await spendMemberToken(db, found.token.id))) return undefined;
  const [member] = await db.update(forumMembers).set({ emailConfirmed: true }).where(eq(forumMembers.id, found.member.id)).returning();
  return member;
}

/**
 * The member a reset request names (username or e-mail), if it can have its password reset: members
 * linked to a platform account have no password here, and banned members get no mail.
 */
export async function findResettableMember(db: Executor, siteId: string, login: string): Promise<ForumMemberRow | undefined> {
  const [member] = await db
    .select()
    .from(forumMembers)
    .where(
      and(
        eq(forumMembers.siteId, siteId),
        isNull(forumMembers.userId),
        or(sql`lower(${forumMembers.username}) = lower(${login})`, sql`lower(${forumMembers.email}) = lower(${login})`),
      ),
    )
    .limit(1);
  return member && member.passwordHash && !member.banned ? member : undefined;
}

export async function sendPasswordReset(db: Executor, ctx: MailContext, member: ForumMemberRow): Promise<void> {
  await db.transaction(async (tx) => {
    const token = await issueMemberToken(tx, member, 'reset');
    await enqueueMail(tx, member.siteId, 'reset', resetMail(ctx, member, token));
  });
}

/** Whether a reset link is live (the form is shown only then). */
export async function resetLinkIsLive(db: Executor, siteId: string, presented: string): Promise<boolean> {
  return (await findMemberToken(db, siteId, 'reset', presented)) !== undefined;
}

/**
 * Sets a new password through a live reset link and ends every session of the member (the caller
 * starts a fresh one). The link also proves the address, so it confirms it. Undefined when the link
 * is not live, e.g. already used.
 */
export async function resetPassword(db: Executor, siteId: string, presented: string, password: string): Promise<ForumMemberRow | undefined> {
  const found = await findMemberToken(db, siteId, 'reset', presented);
  if (!found) return undefined;
  const passwordHash = await hashNewPassword(password);
  return db.transaction(async (tx) => {
    if (!(await spendMemberToken(tx, found.token.id))) return undefined;
    const [member] = await tx.update(forumMembers).set({ passwordHash, emailConfirmed: true }).where(eq(forumMembers.id, found.member.id)).returning();
    await tx.delete(forumSessions).where(eq(forumSessions.memberId, found.member.id));
    return member;
  });
}

export async function setReplyNotifications(db: Executor, siteId: string, memberId: string, on: boolean): Promise<void> {
  await db.update(forumMembers).set({ notifyReplies: on }).where(and(eq(forumMembers.siteId, siteId), eq(forumMembers.id, memberId)));
}

export interface ReplyEvent {
  site: SiteRow;
  forum: ForumRow;
  topic: ForumTopicRow;
  post: ForumPostRow;
  parent: ForumPostRow | undefined;
  replier: ForumMemberRow;
}

export interface ReplyMailOptions {
  ctx: MailContext;
  secretKey: string;
}

/**
 * Queues a mail to the author of the post replied to and to the topic's author (one mail each, the
 * post's author first), never to the replier, and only to members who want them, have a confirmed
 * address, are not banned, and may still see the topic.
 */
export async function enqueueReplyNotices(tx: Executor, event: ReplyEvent, options: ReplyMailOptions): Promise<number> {
  const wanted = new Map<string, 'post' | 'topic'>();
  if (event.parent?.authorId && !event.parent.deletedAt) wanted.set(event.parent.authorId, 'post');
  if (event.topic.authorId && !wanted.has(event.topic.authorId)) wanted.set(event.topic.authorId, 'topic');
  wanted.delete(event.replier.id);
  if (wanted.size === 0) return 0;
  const recipients = await tx
    .select()
    .from(forumMembers)
    .where(and(eq(forumMembers.siteId, event.site.id), inArray(forumMembers.id, [...wanted.keys()]), eq(forumMembers.notifyReplies, true), eq(forumMembers.emailConfirmed, true), eq(forumMembers.banned, false)));
  let queued = 0;
  for (const recipient of recipients) {
    if (!canSeeTopic(viewerFor(event.site, recipient), event.forum, event.topic)) continue;
    const unsubscribeUrl = `${options.ctx.origin}/unsubscribe/${unsubscribeToken(options.secretKey, event.site.id, recipient.id)}`;
    const mail = replyMail(options.ctx, {
      recipient,
      replier: event.replier,
      topic: event.topic,
      post: event.post,
      parent: event.parent,
      reason: wanted.get(recipient.id)!,
      unsubscribeUrl,
    });
    await enqueueMail(tx, event.site.id, 'reply', mail);
    queued++;
  }
  return queued;
}
