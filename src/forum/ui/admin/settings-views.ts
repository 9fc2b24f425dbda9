// The instance settings page: one typed control per allowlisted setting, grouped; secrets are
// password fields that never carry the stored value; pending changes (desired vs applied) with the
// button that applies them on every node.
import { parseBoolean } from '../../../config/index.js';
import {
  SECRET_MASK,
  SETTINGS,
  settingGroups,
  type SettingDefinition,
  type SettingName,
} from '../../../core/settings/allowlist.js';
import type { MailInForce } from '../../../core/settings/mail.js';
import type { SettingChange } from '../../../core/settings/service.js';
import type { UiContext } from '../context.js';
import { html, type SafeHtml } from '../../../lib/html.js';
import { csrfField, time } from '../layout.js';
import { checkbox, selectField, textField } from './fields.js';
import type { FieldErrors } from './structure-views.js';
import { adminFrame, type Flash } from './views.js';

export function isSecret(name: SettingName): boolean {
  const definition: SettingDefinition = SETTINGS[name];
  return definition.secret === true;
}

export interface SettingsPage {
  /** What the form shows: the desired values, or what was just submitted. Secrets are never here. */
  values: Record<string, string>;
  /** Names of secrets with a stored desired value. */
  storedSecrets: ReadonlySet<string>;
  pending: SettingChange[];
  desired: Record<string, string>;
  applied: Record<string, string>;
  generation: number;
  appliedAt: Date | null;
  errors: FieldErrors;
  /** Owner settings the viewer sees but may not change (on a platform, decision 0116). */
  ownerOnly: ReadonlySet<string>;
  /** Which SMTP server the running instance's mail goes through. */
  mail: MailInForce;
  flash?: Flash;
}

/** An owner setting shown to an admin who is not the site's owner: its value, never a secret's. */
function lockedControl(name: SettingName, page: SettingsPage): SafeHtml {
  const value = page.desired[name];
  const shown =
    value === undefined
      ? html`<span class="muted">not set</span>`
      : isSecret(name)
        ? 'set (never shown)'
        : html`<code>${value}</code>`;
  return html`<p class="locked"><strong>${name}</strong>: ${shown}</p>`;
}

function mailSummary(mail: MailInForce): SafeHtml {
  const text =
    mail.source === 'instance'
      ? html`In force: this community's own SMTP server, \
<code>${mail.server}:${String(mail.port)}</code>, sending from <code>${mail.sender}</code>.`
      : mail.source === 'server'
        ? html`In force: the server's mail settings (<code>BLUME_MAIL_*</code>), sending from \
<code>${mail.sender}</code>. Set MAIL_SERVER to send through this community's own server.`
        : html`In force: no mail. Neither this community (MAIL_SERVER) nor the server (BLUME_MAIL_SERVER) has an SMTP \
server, so nothing is mailed.`;
  return html`<p class="hint" id="mail-in-force">${text}</p>`;
}

function control(name: SettingName, value: string, page: SettingsPage): SafeHtml {
  const definition: SettingDefinition = SETTINGS[name];
  // The docs are written for env files and the CLI, with Markdown code spans.
  const doc = definition.doc.replaceAll('`', '');
  const options = { id: name, hint: doc, error: page.errors[name] };
  if (definition.secret) {
    const stored = page.storedSecrets.has(name);
    return html`${textField(name, name, '', 'password', {
      ...options,
      autocomplete: 'new-password',
      maxlength: 2000,
      hint: `${doc} ${stored ? 'A value is stored and never shown; leave empty to keep it.' : 'Not set.'}`,
    })}${stored ? checkbox(`clear_${name}`, `Remove the stored ${name}`, false) : ''}`;
  }
  switch (definition.type) {
    case 'boolean': {
      const parsed = parseBoolean(value);
      const shown = parsed === undefined ? value : String(parsed);
      return selectField(
        name,
        name,
        shown,
        [
          ['', 'Not set (default)'],
          ['true', 'On'],
          ['false', 'Off'],
        ],
        options,
      );
    }
    case 'enum':
      return selectField(
        name,
        name,
        value,
        [['', 'Not set'], ...(definition.values ?? []).map((v) => [v, v] as const)],
        options,
      );
    case 'port':
      return textField(name, name, value, 'number', { ...options, maxlength: 5 });
    case 'bytes':
      return textField(name, name, value, 'number', { ...options, maxlength: 12 });
    case 'count':
      return textField(name, name, value, 'number', { ...options, maxlength: 6 });
    case 'url':
      return textField(name, name, value, 'url', { ...options, maxlength: 2000 });
    case 'email':
      return textField(name, name, value, 'email', { ...options, maxlength: 254 });
    default:
      return textField(name, name, value, 'text', { ...options, maxlength: 2000 });
  }
}

function displayValue(name: string, values: Record<string, string>): SafeHtml | string {
  if (!(name in values)) return html`<span class="muted">not set</span>`;
  return name in SETTINGS && isSecret(name as SettingName) ? SECRET_MASK : values[name]!;
}

function pendingSection(ui: UiContext, page: SettingsPage): SafeHtml {
  const applied = page.appliedAt
    ? html`Last applied ${time(page.appliedAt)} (generation ${page.generation}).`
    : 'Never applied yet.';
  if (page.pending.length === 0)
    return html`<section aria-labelledby="pending-heading" class="panel"><h2 id="pending-heading">Pending changes</h2>\
<p class="muted">None: the instance runs the saved settings. ${applied}</p></section>`;
  return html`<section aria-labelledby="pending-heading" class="panel pending">\
<h2 id="pending-heading">Pending changes</h2>
<p>${page.pending.length} saved change${
    page.pending.length === 1 ? '' : 's'
  } wait${page.pending.length === 1 ? 's' : ''} for a restart. <span class="muted">${applied}</span></p>
<table class="list admin"><thead><tr><th scope="col">Setting</th><th scope="col">Running</th>\
<th scope="col">Saved</th></tr></thead><tbody>${page.pending.map(
    (change) =>
      html`<tr><th scope="row"><code>${change.name}</code></th>\
<td class="value">${displayValue(change.name, page.applied)}</td>\
<td class="value">${displayValue(change.name, page.desired)}</td></tr>`,
  )}</tbody></table>
<form method="post" action="/admin/settings/restart">${csrfField(ui)}<div class="actions">\
<button type="submit">Apply and restart</button>\
<span class="hint">Every node of the instance switches to the saved settings.</span></div></form></section>`;
}

export function settingsView(ui: UiContext, page: SettingsPage): SafeHtml {
  return adminFrame(
    ui,
    'settings',
    'Settings',
    html`${pendingSection(ui, page)}
<form class="stack settings" method="post" action="/admin/settings" novalidate>${csrfField(ui)}
${settingGroups().map(([title, names]) => {
  const locked = names.some((name) => page.ownerOnly.has(name));
  return html`<fieldset><legend>${title}</legend>${title === 'Mail' ? mailSummary(page.mail) : ''}${
    locked ? html`<p class="hint">Settings shown without a field are the site owner's to change.</p>` : ''
  }${names.map((name) =>
    page.ownerOnly.has(name) ? lockedControl(name, page) : control(name, page.values[name] ?? '', page),
  )}</fieldset>`;
})}
<div class="actions"><button type="submit">Save settings</button>\
<span class="hint">Saved settings take effect when you apply them.</span></div></form>`,
    page.flash,
  );
}
