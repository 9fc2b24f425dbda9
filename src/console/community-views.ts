// A community site's sections of the console: links into the instance, the instance settings editor
// (typed inputs, secrets masked, the pending changes and the restart that applies them) and API keys
// with their scopes.
import { API_KEY_SCOPES } from '../core/credentials/schemas.js';
import type { CredentialRow } from '../core/credentials/tables.js';
import { SETTINGS, settingGroups, type SettingDefinition, type SettingName } from '../core/settings/allowlist.js';
import type { SettingChange } from '../core/settings/service.js';
import type { SiteOut } from '../core/sites/schemas.js';
import { html, type SafeHtml } from '../lib/html.js';
import type { ConsoleContext } from './context.js';
import { csrfField, time, type SiteSection } from './views.js';

export interface CommunitySiteData {
  /** The saved settings, secrets still sealed (only whether one is set is shown). */
  desired: Record<string, string>;
  pending: SettingChange[];
  apiKeys: CredentialRow[];
}

const SCOPE_DOCS: Record<(typeof API_KEY_SCOPES)[number], string> = {
  'cms-read': 'read published content',
  'cms-write': 'create, change and publish content',
  admin: 'content types, webhooks and settings through the APIs',
  'helpdesk-read': 'read tickets',
  'helpdesk-write': 'create and answer tickets',
};

export const isSecret = (name: SettingName): boolean => 'secret' in SETTINGS[name];

function settingInput(name: SettingName, definition: SettingDefinition, value: string | undefined): SafeHtml {
  const id = `setting-${name}`;
  const described = html` aria-describedby="${id}-doc"`;
  if (definition.secret) {
    return html`<input id="${id}" name="${name}" type="password" autocomplete="new-password" \
maxlength="2000"${described} placeholder="${value === undefined ? 'not set' : 'set; type to replace'}">
<label class="choice"><input type="checkbox" name="clear:${name}" value="1"${
      value === undefined ? html` disabled` : ''
    }> Remove the saved value</label>`;
  }
  if (definition.type === 'boolean' || definition.type === 'enum') {
    const options = definition.type === 'boolean' ? ['true', 'false'] : (definition.values ?? []);
    return html`<select id="${id}" name="${name}"${described}><option value="">(not set)</option>${options.map(
      (option) => html`<option${option === value ? html` selected` : ''}>${option}</option>`,
    )}</select>`;
  }
  const type = definition.type === 'port' ? 'number' : definition.type === 'url' ? 'url' : 'text';
  return html`<input id="${id}" name="${name}" type="${type}" maxlength="2000" value="${value ?? ''}"${described}${
    definition.type === 'port' ? html` min="1" max="65535"` : ''
  }>`;
}

function settingsBody(ui: ConsoleContext, site: SiteOut, data: CommunitySiteData): SafeHtml {
  const pending = data.pending.length
    ? html`<div class="notice warn" role="status"><p>Saved but not applied yet:</p><ul>${data.pending.map(
        (c) => html`<li><code>${c.name}</code> ${c.change}</li>`,
      )}</ul>
<form method="post" action="/sites/${site.id}/settings/restart">${csrfField(ui)}<button type="submit">\
Restart to apply ${data.pending.length === 1 ? '1 change' : `${data.pending.length} changes`}</button></form></div>`
    : html`<p class="hint">Every saved setting is applied.</p>`;
  return html`${pending}
<form class="stack settings" method="post" action="/sites/${site.id}/settings">${csrfField(ui)}
${settingGroups().map(
  ([title, names]) =>
    html`<fieldset><legend>${title}</legend>${names.map((name) => {
      const definition: SettingDefinition = SETTINGS[name];
      // The docs are written for env files and the CLI, with Markdown code spans.
      return html`<div><label for="setting-${name}">${definition.label}</label>${settingInput(
        name,
        definition,
        data.desired[name],
      )}<p class="hint" id="setting-${name}-doc">${definition.doc.replaceAll('`', '')} \
<span class="muted">(<code>${name}</code>)</span></p></div>`;
    })}</fieldset>`,
)}
<div><button type="submit">Save settings</button> \
<span class="hint">Saved settings apply at the next restart.</span></div>
</form>`;
}

function apiKeysBody(ui: ConsoleContext, site: SiteOut, keys: CredentialRow[]): SafeHtml {
  const list = keys.length
    ? html`<div class="table"><table><thead><tr><th scope="col">Name</th><th scope="col">Scopes</th>\
<th scope="col">Created</th><th scope="col">Last used</th><th scope="col">\
<span class="sr-only">Revoke</span></th></tr></thead><tbody>
${keys.map(
  (k) => html`<tr><td>${k.name}</td><td>${k.scopes.join(', ')}</td><td>${time(k.createdAt)}</td><td>${
    k.lastUsedAt ? time(k.lastUsedAt) : 'never'
  }</td>
<td>\
<form method="post" action="/sites/${site.id}/api-keys/${k.id}/revoke">\
${csrfField(ui)}<button type="submit" class="danger">Revoke\
<span class="sr-only"> ${k.name}</span></button></form></td></tr>`,
)}
</tbody></table></div>`
    : html`<p>No API keys. Mint one for an app that reads or writes content, or answers tickets.</p>`;
  return html`${list}
<form class="stack" method="post" action="/sites/${site.id}/api-keys">${csrfField(ui)}
<div><label for="key-name">Key name</label>\
<input id="key-name" name="name" required maxlength="100" placeholder="website"></div>
<fieldset><legend>Scopes</legend>${API_KEY_SCOPES.map(
    (scope) =>
      html`<label class="choice"><input type="checkbox" name="scope:${scope}" value="1"> \
<code>${scope}</code>: ${SCOPE_DOCS[scope]}</label>`,
  )}</fieldset>
<div><button type="submit">Mint an API key</button></div>
</form>`;
}

/** The sections of a community site's page; the danger zone follows them. */
/** A community site's summary and sections; `data` is undefined for a team member who is not an owner. */
export function communitySections(
  ui: ConsoleContext,
  site: SiteOut,
  data: CommunitySiteData | undefined,
): { summary: SafeHtml; sections: SiteSection[] } {
  const links = html`<ul class="links"><li><a href="${site.url}/">Forum</a></li><li>\
<a href="${site.url}/admin">Forum administration</a></li><li>\
<a href="${site.url}/admin/content">Content editor</a></li><li><a href="${site.url}/desk">Help desk inbox</a></li><li>\
<a href="${site.url}/support">Contact support page</a></li></ul>`;
  // The settings and API keys are the owners' (they hold the community's secrets).
  if (!data)
    return {
      summary: html`<dl class="summary"><div><dt>Address</dt><dd><a href="${site.url}/">${site.url}</a></dd></div></dl>`,
      sections: [
        {
          id: 'open',
          title: 'Open the community',
          body: html`${links}<p class="hint">Log in there with your account in the community. \
The settings and API keys are for the site's owners.</p>`,
        },
      ],
    };
  const summary = html`<dl class="summary">
<div><dt>Address</dt><dd><a href="${site.url}/">${site.url}</a></dd></div>
<div><dt>Settings</dt><dd>${
    data.pending.length
      ? html`<a href="#settings-h">${data.pending.length === 1 ? '1 change' : `${data.pending.length} changes`} \
waiting for a restart</a>`
      : 'all applied'
  }</dd></div>
<div><dt>API keys</dt><dd>${String(data.apiKeys.length)}</dd></div>
</dl>`;
  const open = html`${links}
<p class="hint">\
Log in there with this account's username and password: as the site's owner you are its administrator.</p>`;
  return {
    summary,
    sections: [
      { id: 'open', title: 'Open the community', body: open },
      { id: 'settings', title: 'Settings', body: settingsBody(ui, site, data) },
      { id: 'keys', title: 'API keys', body: apiKeysBody(ui, site, data.apiKeys) },
    ],
  };
}
