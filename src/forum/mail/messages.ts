// The mails a community sends its members, as plain text plus simple HTML. Every value that comes
// from members or settings (names, titles, post text) is escaped in the HTML part; post bodies go
// out as their plain text, never as markup.
import type { OutgoingMail } from '../../adapters/mail/index.js';
import { escapeHtml } from '../../lib/html.js';
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
export function topicMessageId(origin: string, topicId: string): string {
  return `<topic.${topicId}@${mailDomain(origin)}>`;
}

export function postMessageId(origin: string, postId: string): string {
  return `<post.${postId}@${mailDomain(origin)}>`;
}

function paragraphs(lines: string[]): string {
  return lines.map((line) => `<p>${line}</p>`).join('\n');
}

function htmlDocument(body: string): string {
  return `<!doctype html>\n<html><body style="font-family:system-ui,sans-serif;line-height:1.5;max-width:40rem">\n${body}\n</body></html>`;
}

function link(url: string, label: string): string {
  return `<a href="${escapeHtml(url)}">${escapeHtml(label)}</a>`;
}

function base(ctx: MailContext, to: ForumMemberRow, subject: string, text: string, html: string): OutgoingMail {
  return {
    to: to.email,
    subject,
    text,
    html: htmlDocument(html),
    ...(ctx.from ? { from: ctx.from } : {}),
    // Vacation responders and ticket systems should not answer a machine.
    headers: { 'Auto-Submitted': 'auto-generated' },
  };
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
  const html = paragraphs([
    `Hello ${escapeHtml(member.username)},`,
    `welcome to ${escapeHtml(ctx.title)}. Please confirm your e-mail address:`,
    link(url, 'Confirm my e-mail address'),
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
  const html = paragraphs([
    `Hello ${escapeHtml(member.username)},`,
    `someone (hopefully you) asked to reset your password for ${escapeHtml(ctx.title)}.`,
    link(url, 'Choose a new password'),
    'The link works for one hour, once. Setting a new password logs you out everywhere else.',
    'If you did not ask, ignore this mail: your password stays as it is.',
  ]);
  return base(ctx, member, subject, text, html);
}

export interface ReplyNotice {
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
  const settingsUrl = `${ctx.origin}/account`;
  const mentioned = notice.reason === 'mention';
  const why = notice.reason === 'post' ? 'your post' : 'your topic';
  const what = mentioned ? 'mentioned you in' : `replied to ${why}`;
  const because = mentioned ? 'someone mentioned you' : `you wrote ${why}`;
  const excerpt = post.bodyText.length > EXCERPT_LENGTH ? `${post.bodyText.slice(0, EXCERPT_LENGTH)}…` : post.bodyText;
  const text = `${replier.username} ${what} "${topic.title}" in ${ctx.title}:

${excerpt}

Read it and answer: ${url}

--
You get this because ${because}. Stop these mails: ${notice.unsubscribeUrl}
or change it in your profile: ${settingsUrl}
`;
  const html = `${paragraphs([`<strong>${escapeHtml(replier.username)}</strong> ${escapeHtml(what)} “${escapeHtml(topic.title)}” in ${escapeHtml(ctx.title)}:`])}
<blockquote style="border-left:3px solid #ccc;margin:0;padding-left:1em;white-space:pre-wrap">${escapeHtml(excerpt)}</blockquote>
${paragraphs([link(url, 'Read it and answer')])}
<hr><p style="color:#666;font-size:.9em">You get this because ${escapeHtml(because)}. ${link(notice.unsubscribeUrl, 'Stop these mails')} or change it in ${link(settingsUrl, 'your profile')}.</p>`;
  const root = topicMessageId(ctx.origin, topic.id);
  const mail = base(ctx, recipient, `Re: ${topic.title}`, text, html);
  return {
    ...mail,
    // One Message-ID per post and recipient; every mail of a topic refers to the topic's root, so
    // mail clients thread them together, and under the post answered when there is one.
    messageId: `<post.${post.id}.${recipient.id}@${mailDomain(ctx.origin)}>`,
    inReplyTo: parent ? postMessageId(ctx.origin, parent.id) : root,
    references: parent ? [root, postMessageId(ctx.origin, parent.id)] : [root],
    headers: {
      ...mail.headers,
      'List-Id': `${ctx.title.replace(/[<>"\r\n]/g, '')} <forum.${mailDomain(ctx.origin)}>`,
      'List-Unsubscribe': `<${notice.unsubscribeUrl}>`,
      // RFC 8058: mail providers may unsubscribe with one POST, without opening a page.
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  };
}
