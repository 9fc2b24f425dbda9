// The digest (docs/decisions/0098-notification-mail.md): an hourly `forum.digest` sweep on the one job
// runner mails each member whose daily or weekly digest is due a summary of its unread
// notifications of the kinds it put in the digest and of the popular new topics it may see, then
// moves its `last_digest_at` to the hour. A member's row is locked while its digest is made and it
// is due once per period, so a sweep run twice, or by two nodes, mails nobody twice.
import { and, asc, desc, eq, gt, isNull, ne, notExists, or, sql } from 'drizzle-orm';
import { findSite } from '../../core/sites/service.js';
import type { SiteRow } from '../../core/sites/tables.js';
import type { Executor } from '../../db/client.js';
import { enqueueMail } from '../../jobs/mail-outbox.js';
import { viewerFor } from '../members.js';
import { unreadNotificationsSince, type NotificationView } from '../notifications.js';
import { visibleTopicsWhere } from '../policy.js';
import {
  forumMembers,
  forums,
  forumTopicReads,
  forumTopics,
  NOTIFICATION_KINDS,
  type ForumMemberRow,
} from '../tables.js';
import { topicColumns, type TopicView } from '../topics.js';
import { authorOf } from '../avatars.js';
import { digestMail, type MailContext } from './messages.js';
import { mailSettingsOf } from './settings.js';
import { unsubscribeToken } from './tokens.js';

/** Notifications one digest lists; it says how many more there are. */
const DIGEST_NOTIFICATIONS = 20;
/** New topics one digest lists, most replied first. */
const DIGEST_TOPICS = 5;
const BATCH = 100;

interface DigestContent {
  notifications: NotificationView[];
  /** Unread notifications of the digest's kinds beyond those listed. */
  moreNotifications: number;
  topics: TopicView[];
}

/** What a member's digest holds since `since`: only what it may see now, never its own topics. */
async function digestContent(db: Executor, site: SiteRow, member: ForumMemberRow, since: Date): Promise<DigestContent> {
  const viewer = viewerFor(site, member);
  const settings = mailSettingsOf(member);
  const kinds = NOTIFICATION_KINDS.filter((kind) => settings[kind] === 'digest');
  const { rows: notifications, total } = await unreadNotificationsSince(
    db,
    site.id,
    viewer,
    kinds,
    since,
    DIGEST_NOTIFICATIONS,
  );
  const opened = db
    .select({ one: sql`1` })
    .from(forumTopicReads)
    .where(and(eq(forumTopicReads.memberId, member.id), eq(forumTopicReads.topicId, forumTopics.id)));
  const topics = await db
    .select(topicColumns)
    .from(forumTopics)
    .innerJoin(forums, eq(forums.id, forumTopics.forumId))
    .leftJoin(forumMembers, eq(forumMembers.id, forumTopics.authorId))
    .where(
      and(
        eq(forumTopics.siteId, site.id),
        gt(forumTopics.createdAt, since),
        visibleTopicsWhere(viewer),
        or(isNull(forumTopics.authorId), ne(forumTopics.authorId, member.id)),
        notExists(opened),
      ),
    )
    .orderBy(desc(forumTopics.postCount), desc(forumTopics.lastPostAt), desc(forumTopics.id))
    .limit(DIGEST_TOPICS);
  return {
    notifications,
    moreNotifications: total - notifications.length,
    topics: topics.map((row) => ({
      topic: row.topic,
      author: authorOf(row.authorId, row.authorName, row.authorAvatar),
    })),
  };
}

/** Members whose digest is due: on, a confirmed address, not banned, a period since the last one. */
const due = and(
  ne(forumMembers.digest, 'never'),
  eq(forumMembers.emailConfirmed, true),
  eq(forumMembers.banned, false),
  sql`coalesce(${forumMembers.lastDigestAt}, ${forumMembers.createdAt}) \
<= now() - case ${forumMembers.digest} when 'daily' then interval '1 day' else interval '7 days' end`,
);

export interface DigestSender {
  /** Where a site's mail says it comes from, without a request (configured URLs, decision 0098). */
  contextFor(site: SiteRow): Promise<MailContext>;
  /** Whether the site's mail can go out (its own SMTP server or the server's). */
  mails(site: SiteRow): Promise<boolean>;
  secretKey: string;
  /** Told once a sweep committed mail, to send it now rather than at the outbox's next sweep. */
  queued(): void;
}

/** Makes the digest of every member it is due for; answers how many mails were queued. */
export async function sendDueDigests(db: Executor, sender: DigestSender): Promise<number> {
  let queued = 0;
  let after = '';
  for (;;) {
    const batch = await db
      .select({ id: forumMembers.id })
      .from(forumMembers)
      .where(and(due, gt(forumMembers.id, after)))
      .orderBy(asc(forumMembers.id))
      .limit(BATCH);
    for (const { id } of batch) if (await sendDigest(db, id, sender)) queued++;
    if (batch.length < BATCH) return queued;
    after = batch.at(-1)!.id;
  }
}

/** One member's digest, in one transaction with its row locked; false when nothing was mailed. */
async function sendDigest(db: Executor, memberId: string, sender: DigestSender): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [member] = await tx
      .select()
      .from(forumMembers)
      .where(and(eq(forumMembers.id, memberId), due))
      .for('update', { skipLocked: true });
    if (!member) return false;
    const site = await findSite(tx, member.siteId);
    let mailed = false;
    if (site?.status === 'active' && site.kind === 'community' && (await sender.mails(site))) {
      const content = await digestContent(tx, site, member, member.lastDigestAt ?? member.createdAt);
      if (content.notifications.length > 0 || content.topics.length > 0) {
        const ctx = await sender.contextFor(site);
        const unsubscribeUrl = `${ctx.origin}/unsubscribe/${unsubscribeToken(
          sender.secretKey,
          site.id,
          member.id,
          'digest',
        )}`;
        await enqueueMail(
          tx,
          site.id,
          'digest',
          digestMail(ctx, {
            recipient: member,
            frequency: member.digest === 'daily' ? 'daily' : 'weekly',
            ...content,
            unsubscribeUrl,
          }),
        );
        mailed = true;
      }
    }
    // On the hour: the hourly sweep finds the member due at the same hour of the next period.
    await tx
      .update(forumMembers)
      .set({ lastDigestAt: sql`date_trunc('hour', now())` })
      .where(eq(forumMembers.id, member.id));
    return mailed;
  });
}
