// The mails a community sends its members, as plain text plus simple HTML. Every value that comes
// from members or settings (names, titles, post text) is escaped in the HTML part; post bodies go
// out as their plain text, never as markup.
import { automatedMail, mailLink, mailParagraphs } from '../../adapters/mail/compose.js';
import type { OutgoingMail } from '../../adapters/mail/index.js';
import { escapeHtml } from '../../lib/html.js';
import type { NotificationView } from '../notifications.js';
import type { ForumMemberRow, ForumPostRow, ForumTopicRow } from '../tables.js';

/** What every mail of one community needs to know about where it comes from. */
export interface MailContext {
  /** `scheme://host[:port]` of the community as the request that caused the mail reached it. */
  origin: string;
  /** Name of the community (FORUM_TITLE, or the site id). */
  title: string;
  /** From address: the instance's MAIL_DEFAULT_SENDER, else undefined for BLUME_MAIL_DEFAULT_SENDER. */
  from: string | undefined;
}

const EXCERPT_LENGTH = 1500;

function mailDomain(origin: string): string {
  return new URL(origin).hostname;
}

/** Message-ID of the (never sent) root message every notification of a topic hangs under. */
function topicMessageId(origin: string, topicId: string): string {
  return `<topic.${topicId}@${mailDomain(origin)}>`;
}

function postMessageId(origin: string, postId: string): string {
  return `<post.${postId}@${mailDomain(origin)}>`;
}

function base(ctx: MailContext, to: ForumMemberRow, subject: string, text: string, html: string): OutgoingMail {
  return automatedMail({ to: to.email, subject, text, html, from: ctx.from });
}

export function confirmationMail(ctx: MailContext, member: ForumMemberRow, token: string): OutgoingMail {
  const url = `${ctx.origin}/confirm/${token}`;
  const subject = `Confirm your e-mail address for ${ctx.title}`;
  const text = `Hello ${member.username},

welcome to ${ctx.title}. Please confirm your e-mail address by opening this link:

${url}

Until you do, you can read but not post. The link works for 7 days, once.
If you did not sign up, ignore this mail and nothing happens.
`;
  const html = mailParagraphs([
    `Hello ${escapeHtml(member.username)},`,
    `welcome to ${escapeHtml(ctx.title)}. Please confirm your e-mail address:`,
    mailLink(url, 'Confirm my e-mail address'),
    'Until you do, you can read but not post. The link works for 7 days, once.',
    'If you did not sign up, ignore this mail and nothing happens.',
  ]);
  return base(ctx, member, subject, text, html);
}

export function resetMail(ctx: MailContext, member: ForumMemberRow, token: string): OutgoingMail {
  const url = `${ctx.origin}/password/reset/${token}`;
  const subject = `Reset your password for ${ctx.title}`;
  const text = `Hello ${member.username},

someone (hopefully you) asked to reset your password for ${ctx.title}. Choose a new one here:

${url}

The link works for one hour, once. Setting a new password logs you out everywhere else.
If you did not ask, ignore this mail: your password stays as it is.
`;
  const html = mailParagraphs([
    `Hello ${escapeHtml(member.username)},`,
    `someone (hopefully you) asked to reset your password for ${escapeHtml(ctx.title)}.`,
    mailLink(url, 'Choose a new password'),
    'The link works for one hour, once. Setting a new password logs you out everywhere else.',
    'If you did not ask, ignore this mail: your password stays as it is.',
  ]);
  return base(ctx, member, subject, text, html);
}

interface ReplyNotice {
  recipient: ForumMemberRow;
  replier: { username: string };
  topic: ForumTopicRow;
  post: ForumPostRow;
  /** The post replied to, when the reply answers a post rather than the topic. */
  parent: ForumPostRow | undefined;
  /** Mentioned in the post, or the author of the post replied to, or of the topic. */
  reason: 'mention' | 'post' | 'topic';
  unsubscribeUrl: string;
}

export function replyMail(ctx: MailContext, notice: ReplyNotice): OutgoingMail {
  const { recipient, replier, topic, post, parent } = notice;
  const url = `${ctx.origin}/t/${topic.id}?view=threaded#p-${post.id}`;
  const mentioned = notice.reason === 'mention';
  const why = notice.reason === 'post' ? 'your post' : 'your topic';
  const what = mentioned ? 'mentioned you in' : `replied to ${why}`;
  const because = mentioned ? 'someone mentioned you' : `you wrote ${why}`;
  const excerpt = post.bodyText.length > EXCERPT_LENGTH ? `${post.bodyText.slice(0, EXCERPT_LENGTH)}…` : post.bodyText;
  const end = footer(
    ctx,
    because,
    mentioned ? 'Stop mails about mentions' : 'Stop mails about replies',
    notice.unsubscribeUrl,
  );
  const text = `${replier.username} ${what} "${topic.title}" in ${ctx.title}:

${excerpt}

Read it and answer: ${url}

${end.text}`;
  const html = `${mailParagraphs([
    `<strong>${escapeHtml(replier.username)}</strong>\
 ${escapeHtml(what)} “${escapeHtml(topic.title)}” in ${escapeHtml(ctx.title)}:`,
  ])}
<blockquote style="border-left:3px solid #ccc;margin:0;padding-left:1em;white-space:pre-wrap">\
${escapeHtml(excerpt)}</blockquote>
${mailParagraphs([mailLink(url, 'Read it and answer')])}
${end.html}`;
  const root = topicMessageId(ctx.origin, topic.id);
  const mail = base(ctx, recipient, `Re: ${topic.title}`, text, html);
  return {
    ...mail,
    // One Message-ID per post and recipient; every mail of a topic refers to the topic's root, so
    // mail clients thread them together, and under the post answered when there is one.
    messageId: `<post.${post.id}.${recipient.id}@${mailDomain(ctx.origin)}>`,
    inReplyTo: parent ? postMessageId(ctx.origin, parent.id) : root,
    references: parent ? [root, postMessageId(ctx.origin, parent.id)] : [root],
    headers: { ...mail.headers, ...listHeaders(ctx, notice.unsubscribeUrl) },
  };
}

/** List headers of every notification mail: RFC 2369 List-Id and List-Unsubscribe, RFC 8058 one-click. */
function listHeaders(ctx: MailContext, unsubscribeUrl: string): Record<string, string> {
  return {
    'List-Id': `${ctx.title.replace(/[<>"\r\n]/g, '')} <forum.${mailDomain(ctx.origin)}>`,
    'List-Unsubscribe': `<${unsubscribeUrl}>`,
    // RFC 8058: mail providers may unsubscribe with one POST, without opening a page.
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
  };
}

function footer(
  ctx: MailContext,
  because: string,
  stop: string,
  unsubscribeUrl: string,
): { text: string; html: string } {
  const settingsUrl = `${ctx.origin}/account/notifications`;
  return {
    text: `--\nYou get this because ${because}. ${stop}: ${unsubscribeUrl}\nor choose what we mail you: \
${settingsUrl}\n`,
    html: `<hr>\
<p style="color:#666;font-size:.9em">\
You get this because ${escapeHtml(because)}. ${mailLink(unsubscribeUrl, stop)} or ${mailLink(
      settingsUrl,
      'choose what we mail you',
    )}.</p>`,
  };
}

interface LikeNotice {
  recipient: ForumMemberRow;
  liker: { username: string };
  topic: ForumTopicRow;
  post: ForumPostRow;
  unsubscribeUrl: string;
}

export function likeMail(ctx: MailContext, notice: LikeNotice): OutgoingMail {
  const { recipient, liker, topic, post } = notice;
  const url = `${ctx.origin}/p/${post.id}`;
  const excerpt = post.bodyText.length > 300 ? `${post.bodyText.slice(0, 300)}…` : post.bodyText;
  const end = footer(ctx, 'someone liked your post', 'Stop mails about likes', notice.unsubscribeUrl);
  const text = `${liker.username} liked your post in "${topic.title}" in \
${ctx.title}:\n\n${excerpt}\n\nSee it: ${url}\n\n${end.text}`;
  const html = `${mailParagraphs([
    `<strong>${escapeHtml(liker.username)}</strong> \
liked your post in “${escapeHtml(topic.title)}” in ${escapeHtml(ctx.title)}:`,
  ])}
<blockquote style="border-left:3px solid #ccc;margin:0;padding-left:1em;white-space:pre-wrap">\
${escapeHtml(excerpt)}</blockquote>
${mailParagraphs([mailLink(url, 'See it')])}
${end.html}`;
  const mail = base(ctx, recipient, `${liker.username} liked your post in ${topic.title}`, text, html);
  return {
    ...mail,
    messageId: `<like.${post.id}.${recipient.id}.${Date.now().toString(36)}@${mailDomain(ctx.origin)}>`,
    inReplyTo: postMessageId(ctx.origin, post.id),
    references: [topicMessageId(ctx.origin, topic.id), postMessageId(ctx.origin, post.id)],
    headers: { ...mail.headers, ...listHeaders(ctx, notice.unsubscribeUrl) },
  };
}

/** A new topic a digest lists (a TopicView; named here, as topics.ts queues mail through this folder). */
interface DigestTopic {
  topic: Pick<ForumTopicRow, 'id' | 'title' | 'postCount'>;
  author: { username: string } | null;
}

interface DigestNotice {
  recipient: ForumMemberRow;
  frequency: 'daily' | 'weekly';
  notifications: NotificationView[];
  moreNotifications: number;
  topics: DigestTopic[];
  unsubscribeUrl: string;
}

const DID: Record<NotificationView['notification']['kind'], string> = {
  reply: 'replied to you in',
  mention: 'mentioned you in',
  like: 'liked your post in',
};

export function digestMail(ctx: MailContext, notice: DigestNotice): OutgoingMail {
  const { notifications, topics } = notice;
  const lines = notifications.map(({ notification, actor, topicTitle }) => ({
    who: actor?.username ?? 'A former member',
    what: DID[notification.kind],
    title: topicTitle,
    url: `${ctx.origin}/p/${notification.postId}`,
  }));
  const more = notice.moreNotifications > 0 ? `…and ${notice.moreNotifications} more: ${ctx.origin}/notifications` : '';
  const topicLines = topics.map(({ topic, author }) => ({
    title: topic.title,
    by: author?.username ?? 'a former member',
    replies: Math.max(0, topic.postCount - 1),
    url: `${ctx.origin}/t/${topic.id}`,
  }));
  const period = notice.frequency === 'daily' ? 'day' : 'week';
  const end = footer(ctx, `you chose a ${notice.frequency} digest`, 'Stop the digest', notice.unsubscribeUrl);
  const text = [
    `Hello ${notice.recipient.username},`,
    `here is what happened in ${ctx.title} this ${period}.`,
    lines.length > 0
      ? `For you:\n${lines
          .map((l) => `- ${l.who} ${l.what} "${l.title}": ${l.url}`)
          .join('\n')}${more ? `\n${more}` : ''}`
      : '',
    topicLines.length > 0
      ? `Popular new topics:\n${topicLines
          .map((t) => `- "${t.title}" by ${t.by}, ${t.replies} ${t.replies === 1 ? 'reply' : 'replies'}: ${t.url}`)
          .join('\n')}`
      : '',
    end.text,
  ]
    .filter(Boolean)
    .join('\n\n');
  const item = (inner: string) => `<li style="margin:.25em 0">${inner}</li>`;
  const html = [
    mailParagraphs([
      `Hello ${escapeHtml(notice.recipient.username)},`,
      `here is what happened in ${escapeHtml(ctx.title)} this ${period}.`,
    ]),
    lines.length > 0
      ? `<h2 style="font-size:1.1em">For you</h2><ul>${lines
          .map((l) => item(`<strong>${escapeHtml(l.who)}</strong> ${escapeHtml(l.what)} ${mailLink(l.url, l.title)}`))
          .join('')}</ul>${
          notice.moreNotifications > 0
            ? mailParagraphs([
                `…and ${notice.moreNotifications} more in ${mailLink(
                  `${ctx.origin}/notifications`,
                  'your notifications',
                )}.`,
              ])
            : ''
        }`
      : '',
    topicLines.length > 0
      ? `<h2 style="font-size:1.1em">Popular new topics</h2><ul>${topicLines
          .map((t) =>
            item(
              `${mailLink(t.url, t.title)} by ${escapeHtml(t.by)}, ${t.replies} ${
                t.replies === 1 ? 'reply' : 'replies'
              }`,
            ),
          )
          .join('')}</ul>`
      : '',
    end.html,
  ]
    .filter(Boolean)
    .join('\n');
  const mail = base(ctx, notice.recipient, `Your ${notice.frequency} digest from ${ctx.title}`, text, html);
  return { ...mail, headers: { ...mail.headers, ...listHeaders(ctx, notice.unsubscribeUrl) } };
}
