// Pages with forms: log in, sign up, the member's own profile (password and forum tokens), another
// member's profile (with the ban switch for staff). New topics, replies and edits of posts are
// written in the composer (composer-views.ts).
import type { CredentialRow } from '../../core/credentials/tables.js';
import { isStaff, type Role } from '../policy.js';
import type { ForumMemberRow } from '../tables.js';
import type { UiContext } from './context.js';
import { HONEYPOT_FIELD, STAMP_FIELD } from './signup-trap.js';
import { html, type SafeHtml } from '../../lib/html.js';
import { csrfField, notice, postButton, relativeTime, time } from './layout.js';
import { avatar, avatarSection } from './avatar-views.js';
import { memberStanding } from './moderation-views.js';
import { topicRows } from './read-views.js';
import type { TopicView } from '../topics.js';
import type { MemberActivity, RecentPost } from '../member-activity.js';

export function input(
  id: string,
  label: string,
  type: string,
  value: string,
  extra: { autocomplete?: string; hint?: string; maxlength?: number; minlength?: number } = {},
): SafeHtml {
  return html`<div><label for="${id}">${label}</label>\
<input type="${type}" id="${id}" name="${id}" value="${value}" required${
    extra.autocomplete ? html` autocomplete="${extra.autocomplete}"` : ''
  }${
    extra.maxlength ? html` maxlength="${extra.maxlength}"` : ''
  }${extra.minlength ? html` minlength="${extra.minlength}"` : ''}${
    extra.hint
      ? html` \
aria-describedby="${id}-hint"`
      : ''
  }>${extra.hint ? html`<span class="hint" id="${id}-hint">${extra.hint}</span>` : ''}</div>`;
}

export function loginView(ui: UiContext, values: { login?: string; next?: string }, error?: string): SafeHtml {
  return html`<h1>Log in</h1>${error ? notice('error', error) : ''}
<form class="stack" method="post" action="/login">\
${csrfField(ui)}<input type="hidden" name="next" value="${values.next ?? ''}">
${input('login', 'Username or e-mail', 'text', values.login ?? '', { autocomplete: 'username', maxlength: 254 })}
${input('password', 'Password', 'password', '', { autocomplete: 'current-password', maxlength: 200 })}
<div><button type="submit">Log in</button></div></form>
<p><a href="/password/forgot">Forgot your password?</a></p>
${ui.registrationOpen ? html`<p>New here? <a href="/signup">Create an account</a>.</p>` : ''}`;
}

export function signupView(
  ui: UiContext,
  values: { username?: string; email?: string; stamp: string },
  error?: string,
): SafeHtml {
  if (!ui.registrationOpen)
    return html`<h1>Sign up</h1>${notice(
      'warn',
      'Sign-up is closed in this community; ask an administrator for an account.',
    )}`;
  return html`<h1>Create an account</h1>${error ? notice('error', error) : ''}
<form class="stack" method="post" action="/signup">\
${csrfField(ui)}<input type="hidden" name="${STAMP_FIELD}" value="${values.stamp}">
<div class="trap" aria-hidden="true"><label for="${HONEYPOT_FIELD}">Leave this field empty</label>\
<input type="text" id="${HONEYPOT_FIELD}" name="${HONEYPOT_FIELD}" value="" tabindex="-1" autocomplete="off"></div>
${input('username', 'Username', 'text', values.username ?? '', {
  autocomplete: 'username',
  maxlength: 39,
  minlength: 2,
  hint: '2 to 39 letters, digits, _, . or -',
})}
${input('email', 'E-mail', 'email', values.email ?? '', { autocomplete: 'email', maxlength: 254 })}
${input('password', 'Password', 'password', '', {
  autocomplete: 'new-password',
  minlength: 10,
  maxlength: 200,
  hint: 'At least 10 characters.',
})}
<div><button type="submit">Sign up</button></div></form>
<p>Have an account? <a href="/login">Log in</a>.</p>`;
}

export interface AccountPage {
  member: ForumMemberRow;
  role: Role;
  tokens: CredentialRow[];
  /** Whether the site's plan includes the Forum API, which tokens are for. */
  apiAvailable: boolean;
  /** Whether this server sends mail (confirmation and reply notifications). */
  mailEnabled: boolean;
  minted?: { name: string; token: string };
  message?: { kind: 'ok' | 'error'; text: string };
}

export function accountView(ui: UiContext, page: AccountPage): SafeHtml {
  const { member } = page;
  return html`<h1>Your profile</h1>${page.message ? notice(page.message.kind, page.message.text) : ''}
<p><strong>${member.username}</strong> · ${member.email} · ${page.role} · joined ${time(member.createdAt)} · \
<a href="/u/${encodeURIComponent(member.username)}">public profile</a></p>
${avatarSection(ui, member)}
<section aria-labelledby="mail-heading"><h2 id="mail-heading">E-mail</h2>
<p>${member.email} · ${member.emailConfirmed ? 'confirmed' : html`<strong>not confirmed yet</strong>`}</p>
${
  !member.emailConfirmed && page.mailEnabled
    ? postButton(ui, '/account/confirm/resend', 'Send the confirmation link again', {}, 'secondary')
    : ''
}
${
  page.mailEnabled
    ? html`<p>\
<a href="/account/notifications">Choose which notifications we mail you</a>\
: replies, mentions and likes, at once or in a digest.</p>`
    : html`<p class="muted">This server sends no mail.</p>`
}
</section>
<section aria-labelledby="tokens-heading"><h2 id="tokens-heading">Forum API tokens</h2>
${
  page.minted
    ? html`<div class="notice ok" role="status">\
<p>New token “${page.minted.name}”. Copy it now: it is shown only once.</p>\
<code class="token" id="new-token">${page.minted.token}</code></div>`
    : ''
}
<p class="muted">Tokens let programs use the Forum API as you (header <code>Authentication-Token</code>).</p>
${
  page.tokens.length === 0
    ? html`<p class="muted">You have no tokens.</p>`
    : html`<table class="list"><thead><tr><th scope="col">Name</th><th scope="col">Created</th>\
<th scope="col">Last used</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>\
<tbody>${page.tokens.map(
        (token) =>
          html`<tr><td>${token.name}</td><td>${time(token.createdAt)}</td><td>${
            token.lastUsedAt ? time(token.lastUsedAt) : 'never'
          }</td><td>${postButton(ui, `/account/tokens/${token.id}/revoke`, `Revoke`, {}, 'danger')}</td></tr>`,
      )}</tbody></table>`
}
${
  page.apiAvailable
    ? html`<form class="stack" method="post" action="/account/tokens">${csrfField(ui)}${input(
        'name',
        'Token name',
        'text',
        '',
        { maxlength: 100, hint: 'What will use it, e.g. “backup script”.' },
      )}<div><button type="submit">Create token</button></div></form>`
    : notice('warn', "This community's plan does not include the Forum API, so tokens cannot be created.")
}
</section>
${
  member.userId
    ? html`<p class="muted">You log in with your platform account; change its password in the portal.</p>`
    : html`<section aria-labelledby="password-heading"><h2 id="password-heading">Change password</h2>
<form class="stack" method="post" action="/account/password">${csrfField(ui)}
${input('current_password', 'Current password', 'password', '', { autocomplete: 'current-password', maxlength: 200 })}
${input('new_password', 'New password', 'password', '', {
  autocomplete: 'new-password',
  minlength: 10,
  maxlength: 200,
  hint: 'At least 10 characters. Your other sessions end.',
})}
<div><button type="submit">Change password</button></div></form></section>`
}`;
}

/** What a profile shows of a member's activity, counted where the viewer may read. */
interface ProfileActivity extends MemberActivity {
  topics: TopicView[];
  topicCount: number;
}

function recentPosts(posts: RecentPost[]): SafeHtml {
  if (posts.length === 0) return html`<p class="muted">None you can see.</p>`;
  return html`<ol class="recent-posts">${posts.map(
    (post) => html`<li class="panel"><a href="/p/${post.id}">${post.topicTitle}</a>
<p class="excerpt">${post.excerpt}</p>
<p class="meta muted">${relativeTime(post.createdAt)}${post.likeCount > 0 ? ` · ${count(post.likeCount, 'like')}` : ''}</p></li>`,
  )}</ol>`;
}

const count = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

export function memberView(
  ui: UiContext,
  member: ForumMemberRow,
  role: Role,
  activity: ProfileActivity,
  canBan: boolean,
): SafeHtml {
  const stats: Array<readonly [string, number]> = [
    ['Topics', activity.topicCount],
    ['Posts', activity.posts],
    ['Likes received', activity.likesReceived],
    ['Likes given', activity.likesGiven],
  ];
  return html`<p class="crumbs"><a href="/">${ui.title}</a></p><h1>${avatar(
    { username: member.username, avatar: member.avatarUploadId },
    'large',
  )} ${member.username}${member.banned ? html`<span class="badge">Banned</span>` : ''}</h1>
<p class="muted">${role} · joined ${relativeTime(member.createdAt)}</p>
<dl class="stats">${stats.map(([label, n]) => html`<div><dt>${label}</dt><dd>${n}</dd></div>`)}</dl>
${
  canBan
    ? html`<div class="actions" role="group" aria-label="Moderation">${postButton(
        ui,
        `/u/${encodeURIComponent(member.username)}/ban`,
        member.banned ? 'Lift ban' : 'Ban member',
        { banned: member.banned ? 'false' : 'true' },
        'danger',
      )}</div>`
    : ''
}
${isStaff(ui.viewer) && !member.userId ? memberStanding(ui, member, canBan) : ''}
<h2>Recent topics</h2>${activity.topics.length === 0 ? html`<p class="muted">None you can see.</p>` : topicRows(activity.topics)}
<h2>Recent posts</h2>${recentPosts(activity.recent)}`;
}
