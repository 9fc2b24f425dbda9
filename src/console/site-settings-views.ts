// The console pages of a site's team, build environment variables and custom domains (decision
// 0142), each its own page linked from the site's page. Forms post and come back; what a role may
// not do is not offered.
import type { SiteOut } from '../core/sites/schemas.js';
import type { SiteInvitationRow, SiteRole } from '../core/sites/tables.js';
import type { TeamMember } from '../core/sites/team.js';
import type { EnvVarOut, DomainOut } from '../deploy/schemas.js';
import { html, type SafeHtml } from '../lib/html.js';
import type { ConsoleContext } from './context.js';
import { csrfField, notice, time } from './views.js';

export interface PageMessage {
  kind: 'ok' | 'error';
  text: string;
}

const ROLE_HELP: Record<SiteRole, string> = {
  owner: 'everything, the team and deleting the site included',
  developer: 'deploys, builds, environment variables, domains and deploy tokens',
  viewer: 'sees the site, its releases and builds; changes nothing',
};

function header(site: SiteOut, title: string, message: PageMessage | undefined): SafeHtml {
  return html`<p><a href="/sites/${site.id}">← ${site.id}</a></p><h1>${title}</h1>${
    message ? notice(message.kind, message.text) : ''
  }`;
}

function roleSelect(id: string): SafeHtml {
  return html`<select id="${id}" name="role" aria-describedby="${id}-doc">${(
    ['viewer', 'developer', 'owner'] as const
  ).map(
    (role) => html`<option value="${role}"${role === 'developer' ? html` selected` : ''}>${role}</option>`,
  )}</select><ul class="hint" id="${id}-doc">${(['owner', 'developer', 'viewer'] as const).map(
    (role) => html`<li><strong>${role}</strong>: ${ROLE_HELP[role]}</li>`,
  )}</ul>`;
}

interface TeamPageData {
  team: TeamMember[];
  invitations: SiteInvitationRow[];
  role: SiteRole;
  /** An accept link to pass on by hand, when this server sends no mail. */
  acceptUrl?: string;
}

export function teamView(ui: ConsoleContext, site: SiteOut, data: TeamPageData, message?: PageMessage): SafeHtml {
  const owner = data.role === 'owner';
  const rows = data.team.map(
    (member) =>
      html`<tr><th scope="row">${member.user.username}</th><td>${member.user.email}</td><td>${member.role}${
        member.ownerOfRecord ? ' (owner of record)' : ''
      }</td><td>${time(member.since)}</td>${
        owner
          ? html`<td><form class="inline" method="post" action="/sites/${site.id}/team/${member.user.id}/remove">\
${csrfField(ui)}<button type="submit" class="secondary">Remove<span class="sr-only"> ${member.user.username}</span>\
</button></form></td>`
          : ''
      }</tr>`,
  );
  const invitations = owner
    ? html`<section aria-labelledby="invitations-h"><h2 id="invitations-h">Invitations</h2>${
        data.acceptUrl
          ? html`<div class="notice ok" role="status"><p>This server sends no mail: pass this link on yourself. \
It is not shown again.</p><p><code class="secret">${data.acceptUrl}</code></p></div>`
          : ''
      }${
        data.invitations.length
          ? html`<ul>${data.invitations.map(
              (invitation) => html`<li>${invitation.email} as ${invitation.role}, until ${time(invitation.expiresAt)} \
<form class="inline" method="post" action="/sites/${site.id}/team/invitations/${invitation.id}/withdraw">${csrfField(ui)}\
<button type="submit" class="secondary">Withdraw<span class="sr-only"> the invitation of ${invitation.email}</span>\
</button></form></li>`,
            )}</ul>`
          : html`<p class="hint">No invitation is waiting.</p>`
      }
<form class="stack" method="post" action="/sites/${site.id}/team/invite">${csrfField(ui)}
<div><label for="invite-email">E-mail address</label><input id="invite-email" name="email" type="email" required \
maxlength="254" autocomplete="off"></div>
<div><label for="invite-role">Role</label>${roleSelect('invite-role')}</div>
<div><button type="submit">Send the invitation</button></div>
</form></section>`
    : html`<p class="hint">Your role is ${data.role}: only owners invite and remove people.</p>`;
  return html`${header(site, `Team of ${site.id}`, message)}
<section aria-labelledby="members-h"><h2 id="members-h">Members</h2>
<div class="table"><table><thead><tr><th scope="col">Account</th><th scope="col">E-mail</th><th scope="col">Role</th>\
<th scope="col">Since</th>${owner ? html`<th scope="col">Actions</th>` : ''}</tr></thead><tbody>${rows}</tbody></table></div>
<p class="hint">A site always keeps an owner: the last one cannot be removed.</p></section>
${invitations}`;
}

export function invitationView(
  ui: ConsoleContext,
  invitation: { siteId: string; role: SiteRole; email: string } | undefined,
  token: string,
  error?: string,
): SafeHtml {
  if (!invitation)
    return html`<h1>Invitation</h1>${notice('error', 'This invitation was used, withdrawn or has expired. Ask for a new one.')}`;
  const intro = html`<p>You are invited to work on <strong>${invitation.siteId}</strong> as ${invitation.role} \
(${ROLE_HELP[invitation.role]}).</p>`;
  if (!ui.user)
    return html`<h1>Join ${invitation.siteId}</h1>${intro}<p>Log in with the account of ${invitation.email} to accept, \
or sign up with that address first.</p><p><a href="/login?next=${encodeURIComponent(`/invitations/${token}`)}">Log in to accept</a> · \
<a href="/signup">Sign up</a></p>`;
  return html`<h1>Join ${invitation.siteId}</h1>${error ? notice('error', error) : ''}${intro}
<form method="post" action="/invitations/${token}">${csrfField(ui)}<button type="submit">Accept the invitation</button></form>`;
}

export function envView(
  ui: ConsoleContext,
  site: SiteOut,
  variables: EnvVarOut[],
  canWrite: boolean,
  message?: PageMessage,
): SafeHtml {
  const rows = variables.map(
    (variable) =>
      html`<tr><th scope="row"><code>${variable.name}</code></th><td>${variable.context}</td><td>${
        variable.secret ? html`<span class="hint">secret, not shown</span>` : html`<code>${variable.value ?? ''}</code>`
      }</td>${
        canWrite
          ? html`<td><form class="inline" method="post" action="/sites/${site.id}/env/${variable.name}/${variable.context}/delete">\
${csrfField(ui)}<button type="submit" class="secondary">Delete<span class="sr-only"> ${variable.name} (${variable.context})</span>\
</button></form></td>`
          : ''
      }</tr>`,
  );
  const form = canWrite
    ? html`<section aria-labelledby="env-add-h"><h2 id="env-add-h">Set a variable</h2>
<form class="stack" method="post" action="/sites/${site.id}/env">${csrfField(ui)}
<div><label for="env-name">Name</label><input id="env-name" name="name" required maxlength="128" pattern="[A-Za-z_][A-Za-z0-9_]*" \
autocomplete="off" aria-describedby="env-name-doc"><p class="hint" id="env-name-doc">Letters, digits and underscores. \
Names Node or the build sandbox read (NODE_*, PATH, ...) are refused.</p></div>
<div><label for="env-context">Builds that get it</label><select id="env-context" name="context" aria-describedby="env-context-doc">\
<option value="all">all</option><option value="production">production</option><option value="preview">preview</option></select>\
<p class="hint" id="env-context-doc">Production: builds of releases that can be promoted. Preview: builds of other branches. \
A production or preview value overrides the one for all.</p></div>
<div><label for="env-value">Value</label><textarea id="env-value" name="value" rows="2" maxlength="16384"></textarea></div>
<div><label class="choice"><input type="checkbox" name="secret" value="1"> Secret: never shown again, masked in build logs</label></div>
<div><button type="submit">Save the variable</button></div>
</form></section>`
    : '';
  return html`${header(site, `Environment variables of ${site.id}`, message)}
<p>Docs builds get these variables in their environment; a page's Markdown uses one as <code>{{ env.NAME }}</code>.</p>
<section aria-labelledby="env-h"><h2 id="env-h">Variables</h2>${
    variables.length
      ? html`<div class="table"><table><thead><tr><th scope="col">Name</th><th scope="col">Context</th>\
<th scope="col">Value</th>${canWrite ? html`<th scope="col">Actions</th>` : ''}</tr></thead><tbody>${rows}</tbody></table></div>`
      : html`<p class="hint">No variable yet.</p>`
  }</section>${form}`;
}

export function domainsView(
  ui: ConsoleContext,
  site: SiteOut,
  domains: DomainOut[],
  checkUrl: string,
  canWrite: boolean,
  message?: PageMessage,
): SafeHtml {
  const items = domains.map(
    (domain) =>
      html`<li><a href="${domain.url}">${domain.domain}</a>${
        canWrite
          ? html` <form class="inline" method="post" action="/sites/${site.id}/domains/${domain.domain}/remove">${csrfField(ui)}\
<button type="submit" class="secondary">Remove<span class="sr-only"> ${domain.domain}</span></button></form>`
          : ''
      }</li>`,
  );
  const form = canWrite
    ? html`<form class="stack" method="post" action="/sites/${site.id}/domains">${csrfField(ui)}
<div><label for="domain">Domain</label><input id="domain" name="domain" required maxlength="254" autocomplete="off" \
placeholder="docs.example.com" aria-describedby="domain-doc"><p class="hint" id="domain-doc">A host name you control. \
It cannot be this platform's own host or one under its sites domain, nor another site's domain.</p></div>
<div><button type="submit">Add the domain</button></div>
</form>`
    : '';
  return html`${header(site, `Domains of ${site.id}`, message)}
<section aria-labelledby="domains-h"><h2 id="domains-h">Custom domains</h2>${
    domains.length ? html`<ul>${items}</ul>` : html`<p class="hint">No custom domain yet.</p>`
  }${form}</section>
<section aria-labelledby="dns-h"><h2 id="dns-h">Pointing a domain here</h2>
<p>Point the domain's DNS at the proxy in front of this platform. The proxy terminates TLS: before it gets a \
certificate for a name, it can ask <code>${checkUrl}?domain=NAME</code>, which answers 200 only for a domain that \
serves a site (Caddy's on-demand TLS <code>ask</code>).</p></section>`;
}
