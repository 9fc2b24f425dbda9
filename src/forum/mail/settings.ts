// Which notifications a member gets by mail, and when (docs/decisions/0098-notification-mail.md): each
// kind (reply, mention, like) immediately, in the digest, or never, and the digest daily, weekly or
// never. A kind can wait for the digest only while there is one. Unsubscribe links stop one thing.
import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { AppError } from '../../http/errors.js';
import {
  forumMembers,
  NOTIFICATION_KINDS,
  type DigestFrequency,
  type ForumMemberRow,
  type MailDelivery,
  type NotificationKind,
} from '../tables.js';

export type MailSettings = Record<NotificationKind, MailDelivery> & { digest: DigestFrequency };

export function mailSettingsOf(member: ForumMemberRow): MailSettings {
  return { reply: member.mailReply, mention: member.mailMention, like: member.mailLike, digest: member.digest };
}

/** How the member wants to hear of a notification of this kind by mail. */
export function mailDeliveryOf(member: ForumMemberRow, kind: NotificationKind): MailDelivery {
  return mailSettingsOf(member)[kind];
}

/** Changes the named settings; a kind left waiting for a digest that is off is refused (422 `digest_off`). */
export async function updateMailSettings(
  db: Executor,
  member: ForumMemberRow,
  change: Partial<MailSettings>,
): Promise<MailSettings> {
  const next = { ...mailSettingsOf(member), ...change };
  const waiting = NOTIFICATION_KINDS.filter((kind) => next[kind] === 'digest');
  if (next.digest === 'never' && waiting.length > 0) {
    throw new AppError(
      'digest_off',
      `${waiting.join(', ')} would wait for a digest that is off: choose a daily or weekly digest, or another delivery \
for ${waiting.length === 1 ? 'it' : 'them'}.`,
    );
  }
  await db
    .update(forumMembers)
    .set({ mailReply: next.reply, mailMention: next.mention, mailLike: next.like, digest: next.digest })
    .where(and(eq(forumMembers.siteId, member.siteId), eq(forumMembers.id, member.id)));
  return next;
}

/**
 * What an unsubscribe link stops: mail of one notification kind, or the digest (and with it the
 * kinds that waited for it). `replies` is what links mailed before per-kind settings stop: reply
 * and mention mail, as their one setting did.
 */
export const UNSUBSCRIBE_SCOPES = [...NOTIFICATION_KINDS, 'digest', 'replies'] as const;
export type UnsubscribeScope = (typeof UNSUBSCRIBE_SCOPES)[number];

const never = (
  column: typeof forumMembers.mailReply | typeof forumMembers.mailMention | typeof forumMembers.mailLike,
) => sql`case when ${column} = 'digest' then 'never' else ${column} end`;

export async function unsubscribe(
  db: Executor,
  siteId: string,
  memberId: string,
  scope: UnsubscribeScope,
): Promise<void> {
  const change =
    scope === 'digest'
      ? {
          digest: 'never' as const,
          mailReply: never(forumMembers.mailReply),
          mailMention: never(forumMembers.mailMention),
          mailLike: never(forumMembers.mailLike),
        }
      : scope === 'replies'
        ? { mailReply: 'never' as const, mailMention: 'never' as const }
        : { [{ reply: 'mailReply', mention: 'mailMention', like: 'mailLike' }[scope]]: 'never' as const };
  await db
    .update(forumMembers)
    .set(change)
    .where(and(eq(forumMembers.siteId, siteId), eq(forumMembers.id, memberId)));
}
