// The member's notifications page: replies, mentions and likes, newest first, unread ones marked,
// each linking to its post, with "mark read" forms (one, or all). Likes of one post on a page are one
// entry ("3 people liked your post"), marked read together.
import type { NotificationView } from '../notifications.js';
import type { MailSettings } from '../mail/settings.js';
import {
  NOTIFICATION_KINDS,
  type DigestFrequency,
  type ForumNotificationRow,
  type MailDelivery,
  type NotificationKind,
} from '../tables.js';
import type { UiContext } from './context.js';
import { html, type SafeHtml } from '../../lib/html.js';
import { csrfField, notice, pager, postButton, relativeTime, unreadWords } from './layout.js';

const WHAT: Record<ForumNotificationRow['kind'], string> = {
  reply: 'replied in',
  mention: 'mentioned you in',
  like: 'liked your post in',
};

/** Notifications shown as one entry: likes of the same post on the page together, each other one alone. */
interface NotificationGroup {
  first: NotificationView;
  all: NotificationView[];
}

function groupNotifications(rows: NotificationView[]): NotificationGroup[] {
  const groups: NotificationGroup[] = [];
  const likesOf = new Map<string, NotificationGroup>();
  for (const row of rows) {
    const { kind, postId } = row.notification;
    const known = kind === 'like' ? likesOf.get(postId) : undefined;
    if (known) {
      known.all.push(row);
      continue;
    }
    const group = { first: row, all: [row] };
    groups.push(group);
    if (kind === 'like') likesOf.set(postId, group);
  }
  return groups;
}

/** "bea", "bea and cy", "3 people" (with their names after): who did what a group tells. */
function actorsWords(group: NotificationGroup): { who: string; names: string } {
  const names = [...new Set(group.all.map(({ actor }) => actor?.username ?? 'a former member'))];
  if (names.length === 1) return { who: names[0]!, names: '' };
  if (names.length === 2) return { who: `${names[0]} and ${names[1]}`, names: '' };
  return { who: `${names.length} people`, names: names.join(', ') };
}

export function notificationsView(ui: UiContext, rows: NotificationView[], page: number, totalPages: number): SafeHtml {
  const unread = ui.unreadNotifications ?? 0;
  return html`<div class="toolbar"><h1>Notifications</h1>${
    unread > 0 ? postButton(ui, '/notifications/read', 'Mark all read', {}, 'secondary') : ''
  }</div>
<p class="muted" role="status">${unread === 0 ? 'You have read them all.' : `${unreadWords(unread)} unread.`}</p>
${
  rows.length === 0
    ? html`<p class="muted">\
Nothing yet: when someone replies to you, mentions you or likes your post, it shows here.</p>`
    : html`<ol class="notifications">${groupNotifications(rows).map((group) => {
        const { notification, topicTitle } = group.first;
        const unreadIds = group.all.filter((row) => row.notification.readAt === null).map((row) => row.notification.id);
        const read = unreadIds.length === 0;
        const { who, names } = actorsWords(group);
        const what =
          group.all.length > 1 && notification.kind === 'like' ? 'liked your post in' : WHAT[notification.kind];
        return html`<li class="${read ? 'read' : 'unread'}">${
          read ? '' : html`<span class="badge new">Unread</span> `
        }<a href="/p/${notification.postId}"><strong>${who}</strong> ${what} “${topicTitle}”</a>${
          names ? html` <span class="meta">${names}</span>` : ''
        }
<span class="meta">${relativeTime(notification.createdAt)}</span>${
          read ? '' : postButton(ui, '/notifications/read', 'Mark read', { id: unreadIds.join(',') }, 'link')
        }</li>`;
      })}</ol>`
}
${pager(page, totalPages, (n) => `/notifications?page=${n}`)}`;
}

const DELIVERY_LABELS: Record<MailDelivery, string> = {
  immediately: 'At once',
  digest: 'In the digest',
  never: 'Never',
};
const DIGEST_LABELS: Record<DigestFrequency, string> = { daily: 'Daily', weekly: 'Weekly', never: 'Never' };
const KIND_LABELS: Record<NotificationKind, string> = {
  reply: 'Someone replies to my topic or post',
  mention: 'Someone mentions me',
  like: 'Someone likes my post',
};

function select<T extends string>(name: string, label: string, labels: Record<T, string>, value: T): SafeHtml {
  const options = (Object.keys(labels) as T[]).map(
    (option) => html`<option value="${option}"${option === value ? html` selected` : ''}>${labels[option]}</option>`,
  );
  return html`<div><label for="mail-${name}">${label}</label>\
<select id="mail-${name}" name="${name}">${options}</select></div>`;
}

/** Which notifications the member gets by mail, and the digest (docs/decisions/0098-notification-mail.md). */
export function mailSettingsView(
  ui: UiContext,
  settings: MailSettings,
  mailEnabled: boolean,
  message?: { kind: 'ok' | 'error'; text: string },
): SafeHtml {
  return html`<h1>Mail settings</h1>${message ? notice(message.kind, message.text) : ''}
${mailEnabled ? '' : notice('warn', 'This server sends no mail at the moment; your choices apply once it does.')}
<p>You see every notification in \
<a href="/notifications">your notifications</a>. Choose which of them we also mail to you, and when.
Mail only ever tells of what you may read.</p>
<form class="stack" method="post" action="/account/notifications">${csrfField(ui)}
<fieldset class="stack"><legend>Mail me when</legend>
${NOTIFICATION_KINDS.map((kind) => select(kind, KIND_LABELS[kind], DELIVERY_LABELS, settings[kind]))}
</fieldset>
${select(
  'digest',
  'Digest: your unread notifications that wait for it, and popular new topics',
  DIGEST_LABELS,
  settings.digest,
)}
<p class="muted">\
A digest comes only when there is something in it. Every mail has a link that stops that kind of mail in one click.</p>
<div><button type="submit">Save</button></div></form>
<p><a href="/account">Back to your profile</a></p>`;
}
