// Moderation pages and controls: the warn / suspend form (flag queue and profiles), the moderation
// log at /mod/log, the tabs of the /mod pages and the warning banner members see until they
// acknowledge it.
import { html, trustedHtml, type SafeHtml } from '../../lib/html.js';
import type { HeldPostView } from '../held-posts.js';
import { renderBody } from '../markdown.js';
import { activeSuspension, MAX_REASON_LENGTH, type ModAction } from '../moderation.js';
import type { ForumMemberRow, ForumModActionRow } from '../tables.js';
import type { UiContext } from './context.js';
import { csrfField, pager, postButton, relativeTime, time } from './layout.js';

/** Suspension lengths the forms offer, by field value; `indefinite` has no end. */
export const SUSPENSION_LENGTHS = { '1d': 1, '7d': 7, '30d': 30, indefinite: null } as const;
export type SuspensionLength = keyof typeof SUSPENSION_LENGTHS;
const LENGTH_WORDS: Record<SuspensionLength, string> = {
  '1d': '1 day',
  '7d': '7 days',
  '30d': '30 days',
  indefinite: 'until lifted',
};

export function suspensionEnd(length: SuspensionLength, now = new Date()): Date | null {
  const days = SUSPENSION_LENGTHS[length];
  return days === null ? null : new Date(now.getTime() + days * 86_400_000);
}

/** The tabs of the moderators' pages. */
export function modTabs(current: 'flags' | 'held' | 'log'): SafeHtml {
  const tabs = [
    ['flags', '/mod/flags', 'Flags'],
    ['held', '/held', 'Held posts'],
    ['log', '/mod/log', 'Moderation log'],
  ] as const;
  return html`<nav class="admin-tabs" aria-label="Moderation"><ul>${tabs.map(
    ([key, href, label]) =>
      html`<li><a href="${href}"${key === current ? html` aria-current="page"` : ''}>${label}</a></li>`,
  )}</ul></nav>`;
}

/**
 * The form that warns or suspends a member, folded away: `action` posts `sanction` (warn|suspend),
 * `reason` and `length` (of a suspension).
 */
export function sanctionForm(ui: UiContext, action: string, id: string, summary: string): SafeHtml {
  return html`<details class="reply sanction"><summary>${summary}</summary>
<form class="stack" method="post" action="${action}">${csrfField(ui)}
<fieldset><legend>What to do</legend>
<label><input type="radio" name="sanction" value="warn" checked> Warn</label>
<label><input type="radio" name="sanction" value="suspend"> Suspend for \
<select name="length" aria-label="Suspension length">${Object.entries(LENGTH_WORDS).map(
    ([value, words]) => html`<option value="${value}">${words}</option>`,
  )}</select></label>
</fieldset>
<div class="field"><label for="reason-${id}">Reason (the member reads it)</label>\
<textarea id="reason-${id}" name="reason" rows="3" required maxlength="${MAX_REASON_LENGTH}"></textarea></div>
<div><button type="submit" class="danger">Send</button></div>
</form></details>`;
}

/** What staff see of a member's standing on its profile: trust level, suspension, and the controls. */
export function memberStanding(ui: UiContext, member: ForumMemberRow, canModerate: boolean): SafeHtml {
  const suspension = activeSuspension(member);
  const path = `/u/${encodeURIComponent(member.username)}`;
  return html`<section class="standing" aria-labelledby="standing-heading"><h2 id="standing-heading">Standing</h2>
<p>Trust level ${member.trustLevel}${
    member.trustLevel === 0 ? ' (new member: links shown as text, no uploads, fewer posts)' : ''
  }.${
    suspension
      ? html` <strong>Suspended ${
          suspension.until ? html`until ${time(suspension.until)}` : 'until lifted'
        }</strong>${suspension.reason ? html`: ${suspension.reason}` : ''}.`
      : ''
  } <a href="/mod/log?member=${member.id}">Moderation history</a></p>
${
  canModerate
    ? html`<div class="actions" role="group" aria-label="Standing">${
        suspension ? postButton(ui, `${path}/unsuspend`, 'Lift suspension', {}, 'secondary') : ''
      }${sanctionForm(ui, `${path}/sanction`, member.id, 'Warn or suspend…')}</div>`
    : ''
}
</section>`;
}

const ACTION_WORDS: Record<ModAction, string> = {
  hide: 'hid a post of',
  dismiss: 'dismissed a flag on a post of',
  warn: 'warned',
  suspend: 'suspended',
  unsuspend: 'lifted the suspension of',
  approve: 'approved a held post of',
  reject: 'rejected a held post of',
};

function who(name: string | null): SafeHtml {
  return name ? html`<a href="/u/${encodeURIComponent(name)}">${name}</a>` : html`a former member`;
}

function logRow(row: ForumModActionRow): SafeHtml {
  const until = row.action === 'suspend' ? (row.until ? html` until ${time(row.until)}` : html` until lifted`) : '';
  return html`<li class="card"><p>${who(row.actorName)} ${ACTION_WORDS[row.action]} ${who(row.targetName)}${until} \
<span class="meta">${relativeTime(row.createdAt)}</span></p>${
    row.reason ? html`<p class="flag-note">“${row.reason}”</p>` : ''
  }${
    row.postId && row.action !== 'reject' ? html`<p class="meta"><a href="/p/${row.postId}">the post</a></p>` : ''
  }</li>`;
}

interface ModLogPage {
  rows: ForumModActionRow[];
  member: ForumMemberRow | undefined;
  page: number;
  totalPages: number;
}

export function modLogView(data: ModLogPage): SafeHtml {
  return html`<h1>Moderation log${data.member ? html`: ${data.member.username}` : ''}</h1>${modTabs('log')}
${
  data.rows.length === 0
    ? html`<p class="muted">No moderation yet.</p>`
    : html`<ul class="cards">${data.rows.map(logRow)}</ul>`
}
${pager(data.page, data.totalPages, (n) => `/mod/log?page=${n}${data.member ? `&member=${data.member.id}` : ''}`)}`;
}

interface HeldPage {
  rows: HeldPostView[];
  staff: boolean;
  page: number;
  totalPages: number;
  /** The member just posted into the hold, or a moderator just decided. */
  done: 'posted' | 'approved' | 'rejected' | undefined;
}

const HELD_DONE = {
  posted:
    'Thanks! Your first post waits for a moderator; once approved it appears for everyone, and your next ' +
    'posts appear at once.',
  approved: 'The post is published.',
  rejected: 'The post was rejected and deleted.',
} as const;

function heldCard(ui: UiContext, { held, author }: HeldPostView, staff: boolean): SafeHtml {
  // Rendered for this page only, as the author's post would be: a held post is a first post, so its links stay held.
  const body = renderBody(held.bodySource, { links: false });
  const where =
    held.title !== null
      ? html`New topic <strong>${held.title}</strong>`
      : html`Reply in <a href="/t/${held.topicId ?? ''}">a topic</a>`;
  return html`<li class="card" id="held-${held.id}"><div class="card-head"><span>${where}</span>\
<span class="meta">· by ${who(author.username)} ${relativeTime(held.createdAt)}</span></div>
<div class="body">${trustedHtml(body.html)}</div>
${
  staff
    ? html`<div class="actions" role="group" aria-label="Decide on this post">${postButton(
        ui,
        `/held/${held.id}`,
        'Approve',
        { action: 'approve' },
        'small',
      )}${postButton(ui, `/held/${held.id}`, 'Reject', { action: 'reject' }, 'danger small')}</div>`
    : html`<p class="meta">Waiting for a moderator.</p>`
}</li>`;
}

export function heldView(ui: UiContext, data: HeldPage): SafeHtml {
  return html`<h1>Held posts</h1>${data.staff ? modTabs('held') : ''}
${data.done ? html`<p class="notice ok" role="status">${HELD_DONE[data.done]}</p>` : ''}
${
  data.rows.length === 0
    ? html`<p class="muted">${
        data.staff ? 'No post waits for approval.' : 'None of your posts waits for a moderator.'
      }</p>`
    : html`<ul class="cards">${data.rows.map((row) => heldCard(ui, row, data.staff))}</ul>`
}
${
  data.staff
    ? html`<p class="muted">First posts of members wait here while the community holds them (FORUM_HOLD_FIRST_POSTS); \
only their authors and moderators can read them.</p>`
    : ''
}
${pager(data.page, data.totalPages, (n) => `/held?page=${n}`)}`;
}
