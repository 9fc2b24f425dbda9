// Members in the admin area: search, one card per member with its role, ban, password-reset mail
// and delete controls, and the form that adds (invites) a member.
import type { Role } from '../../policy.js';
import type { MemberSummary } from '../../member-activity.js';
import type { ForumMemberRow } from '../../tables.js';
import type { UiContext } from '../context.js';
import { html, type SafeHtml } from '../../../lib/html.js';
import { csrfField, pager, postButton, relativeTime, time } from '../layout.js';
import { selectField, textField } from './fields.js';
import type { FieldErrors } from './structure-views.js';
import { adminFrame, type Flash } from './views.js';

interface ListedMember {
  member: ForumMemberRow;
  role: Role;
  summary: MemberSummary | undefined;
}

export interface NewMemberValues {
  username: string;
  email: string;
  role: Role;
}

export interface MembersPage {
  members: ListedMember[];
  total: number;
  query: string;
  page: number;
  totalPages: number;
  mailEnabled: boolean;
  add?: { values: NewMemberValues; errors: FieldErrors };
  flash?: Flash;
}

const ROLES: ReadonlyArray<readonly [Role, string]> = [
  ['member', 'Member'],
  ['moderator', 'Moderator'],
  ['admin', 'Admin'],
];

function memberCard(ui: UiContext, listed: ListedMember, mailEnabled: boolean): SafeHtml {
  const { member, role, summary } = listed;
  const base = `/admin/members/${member.id}`;
  // Nobody bans themselves (policy.ts); an admin may still step down or leave while another admin stays.
  const self = ui.viewer.kind === 'member' && ui.viewer.member.id === member.id;
  const controls = member.userId
    ? html`<p class="muted">The site owner’s account: an admin for as long as it owns the site.</p>`
    : html`<div class="actions">
<form class="inline" method="post" action="${base}/role">${csrfField(ui)}${selectField(
        'role',
        `Role of ${member.username}`,
        member.role,
        ROLES,
        { id: `role-${member.id}`, hiddenLabel: true },
      )}<button type="submit" class="secondary small">Change role</button></form>
${
  self
    ? ''
    : postButton(
        ui,
        `${base}/ban`,
        member.banned ? 'Lift ban' : 'Ban',
        { banned: member.banned ? 'false' : 'true' },
        member.banned ? 'secondary small' : 'danger small',
      )
}
${
  mailEnabled && !member.banned && member.passwordHash
    ? postButton(ui, `${base}/reset`, 'Send password reset mail', {}, 'secondary small')
    : ''
}
<a class="danger" href="${base}/delete">Delete<span class="sr-only"> ${member.username}</span></a>
</div>`;
  return html`<li class="card" aria-labelledby="m-${member.id}"><div class="card-head">\
<a id="m-${member.id}" class="title" href="/u/${encodeURIComponent(member.username)}">${member.username}</a>\
<span class="badge">${role}</span>${
    member.banned ? html`<span class="badge ban">Banned</span>` : ''
  }${member.emailConfirmed ? '' : html`<span class="badge">Unconfirmed</span>`}</div>
<div class="meta">${member.email} · joined ${time(member.createdAt)}</div>
<div class="meta">${summary?.posts === 1 ? '1 post' : `${summary?.posts ?? 0} posts`} · ${
    summary?.lastActive ? html`last active ${relativeTime(summary.lastActive)}` : 'never active'
  }</div>
${controls}</li>`;
}

export function membersView(ui: UiContext, page: MembersPage): SafeHtml {
  const add = page.add ?? { values: { username: '', email: '', role: 'moderator' as Role }, errors: {} };
  const href = (n: number) =>
    `/admin/members?${new URLSearchParams({ ...(page.query ? { q: page.query } : {}), page: String(n) }).toString()}`;
  return adminFrame(
    ui,
    'members',
    'Members',
    html`<form class="search-members" role="search" method="get" action="/admin/members">\
<label for="member-search">Search members</label><div class="row">\
<input type="search" id="member-search" name="q" value="${page.query}" maxlength="100" placeholder="Username or \
e-mail"><button type="submit" class="secondary">Search</button></div></form>
<p class="muted" role="status">${
      page.query
        ? `${page.total} member${page.total === 1 ? '' : 's'} match “${page.query}”.`
        : `${page.total} member${page.total === 1 ? '' : 's'}.`
    }</p>
${
  page.members.length === 0
    ? ''
    : html`<ul class="cards">${page.members.map((listed) => memberCard(ui, listed, page.mailEnabled))}</ul>`
}
${pager(page.page, page.totalPages, href)}
<details class="panel" id="add-member"${page.add ? html` open` : ''}><summary>Add a member</summary>
<form class="stack" method="post" action="/admin/members">${csrfField(ui)}
${textField('username', 'Username', add.values.username, 'text', {
  id: 'new-username',
  required: true,
  maxlength: 39,
  autocomplete: 'off',
  hint: '2 to 39 letters, digits, _, . or -',
  error: add.errors.username,
})}
${textField('email', 'E-mail', add.values.email, 'email', {
  id: 'new-email',
  required: true,
  maxlength: 254,
  autocomplete: 'off',
  error: add.errors.email,
})}
${selectField('role', 'Role', add.values.role, ROLES, { id: 'new-role' })}
${textField('password', 'Password', '', 'password', {
  id: 'new-password',
  required: true,
  maxlength: 200,
  autocomplete: 'new-password',
  hint: page.mailEnabled
    ? 'At least 10 characters. Give it to them, or send them a reset mail afterwards to choose their own.'
    : 'At least 10 characters; give it to them yourself.',
  error: add.errors.password,
})}
<div><button type="submit">Add member</button></div></form></details>`,
    page.flash,
  );
}
