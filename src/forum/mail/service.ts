// Mail-backed member flows: e-mail confirmation, password reset and reply notifications. Each writes
// its mail to the outbox in the caller's transaction; the caller nudges the outbox after commit.
import { and, eq, isNull, or, sql } from 'drizzle-orm';
import type { SiteRow } from '../../core/sites/tables.js';
import type { Executor } from '../../db/client.js';
import { hashNewPassword } from '../../core/accounts/service.js';
import type { Notified } from '../notifications.js';
import {
  forumMembers,
  forumSessions,
  type ForumMemberRow,
  type ForumPostRow,
  type ForumTopicRow,
  type NotificationKind,
} from '../tables.js';
import { confirmationMail, likeMail, replyMail, resetMail, type MailContext } from './messages.js';
import { mailDeliveryOf } from './settings.js';
import { enqueueMail } from '../../jobs/mail-outbox.js';
import { findMemberToken, issueMemberToken, spendMemberToken, unsubscribeToken } from './tokens.js';

export async function sendConfirmation(db: Executor, ctx: MailContext, member: ForumMemberRow): Promise<void> {
  await db.transaction(async (tx) => {
    const token = await issueMemberToken(tx, member, 'confirm');
    await enqueueMail(tx, member.siteId, 'confirm', confirmationMail(ctx, member, token));
  });
}

/** Confirms the address a live confirmation link was sent to; undefined when the link is not live. */
export async function confirmEmail(
  db: Executor,
  siteId: string,
  presented: string,
): Promise<ForumMemberRow | undefined> {
  const found = await findMemberToken(db, siteId, 'confirm', presented);
  if (!found || !(await spendMemberToken(db, found.token.id))) return undefined;
  const [member] = await db
    .update(forumMembers)
    .set({ emailConfirmed: true })
    .where(eq(forumMembers.id, found.member.id))
    .returning();
  return member;
}

/**
 * The member a reset request names (username or e-mail), if it can have its password reset: members
 * linked to a platform account have no password here, and banned members get no mail.
 */
export async function findResettableMember(
  db: Executor,
  siteId: string,
  login: string,
): Promise<ForumMemberRow | undefined> {
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
export async function resetPassword(
  db: Executor,
  siteId: string,
  presented: string,
  password: string,
): Promise<ForumMemberRow | undefined> {
  const found = await findMemberToken(db, siteId, 'reset', presented);
  if (!found) return undefined;
  const passwordHash = await hashNewPassword(password);
  return db.transaction(async (tx) => {
    if (!(await spendMemberToken(tx, found.token.id))) return undefined;
    const [member] = await tx
      .update(forumMembers)
      .set({ passwordHash, emailConfirmed: true })
      .where(eq(forumMembers.id, found.member.id))
      .returning();
    await tx.delete(forumSessions).where(eq(forumSessions.memberId, found.member.id));
    return member;
  });
}

interface PostMailEvent {
  site: SiteRow;
  topic: ForumTopicRow;
  post: ForumPostRow;
  parent: ForumPostRow | undefined;
  author: ForumMemberRow;
  /** Who the post notified in the forum (notifications.ts), the only members it may mail. */
  notified: readonly Notified[];
}

export interface ReplyMailOptions {
  ctx: MailContext;
  secretKey: string;
}

/** Whether a notification of this kind goes to the member by mail now (not in a digest, not never). */
function mailsAtOnce(member: ForumMemberRow, kind: NotificationKind): boolean {
  return member.emailConfirmed && mailDeliveryOf(member, kind) === 'immediately';
}

function unsubscribeUrl(options: ReplyMailOptions, siteId: string, memberId: string, kind: NotificationKind): string {
  return `${options.ctx.origin}/unsubscribe/${unsubscribeToken(options.secretKey, siteId, memberId, kind)}`;
}

/**
 * Queues one mail to each member a new post notified of a reply or a mention, when the member wants
 * that kind at once and has a confirmed address (a digest picks up the others later). The
 * notification step already kept out the author, banned members and members who may not see the
 * topic. The caller drains the outbox once the transaction commits.
 */
export async function enqueuePostMails(tx: Executor, event: PostMailEvent, options: ReplyMailOptions): Promise<number> {
  let queued = 0;
  for (const { member: recipient, kind } of event.notified) {
    if (kind === 'like' || !mailsAtOnce(recipient, kind)) continue;
    const reason =
      kind === 'mention'
        ? 'mention'
        : event.parent?.authorId === recipient.id && !event.parent.deletedAt
          ? 'post'
          : 'topic';
    const mail = replyMail(options.ctx, {
      recipient,
      replier: event.author,
      topic: event.topic,
      post: event.post,
      parent: event.parent,
      reason,
      unsubscribeUrl: unsubscribeUrl(options, event.site.id, recipient.id, kind),
    });
    await enqueueMail(tx, event.site.id, 'reply', mail);
    queued++;
  }
  return queued;
}

/** Queues the like mail to the post's author when a like notified it and it wants likes at once. */
export async function enqueueLikeMail(
  tx: Executor,
  event: {
    site: SiteRow;
    topic: ForumTopicRow;
    post: ForumPostRow;
    liker: ForumMemberRow;
    notified: readonly Notified[];
  },
  options: ReplyMailOptions,
): Promise<number> {
  let queued = 0;
  for (const { member: recipient, kind } of event.notified) {
    if (kind !== 'like' || !mailsAtOnce(recipient, kind)) continue;
    await enqueueMail(
      tx,
      event.site.id,
      'like',
      likeMail(options.ctx, {
        recipient,
        liker: event.liker,
        topic: event.topic,
        post: event.post,
        unsubscribeUrl: unsubscribeUrl(options, event.site.id, recipient.id, kind),
      }),
    );
    queued++;
  }
  return queued;
}
