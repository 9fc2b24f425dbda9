// Pages of the password links (docs/decisions/0086): choosing a password through an invitation or
// reset link, a link that no longer works, and asking for a link. None says whether an account exists.
import type { PasswordLinkPurpose } from '../core/accounts/password-links.js';
import { html, type SafeHtml } from '../lib/html.js';
import type { ConsoleContext } from './context.js';
import { csrfField, notice } from './views.js';

const NO_MAIL = 'Password links by e-mail are not available: this server sends no mail. Ask a platform administrator.';

export function setPasswordView(
  ui: ConsoleContext,
  link: { purpose: PasswordLinkPurpose; username: string },
  token: string,
  error?: string,
): SafeHtml {
  const invited = link.purpose === 'invite';
  return html`<h1>${invited ? 'Welcome to Blume' : 'Choose a new password'}</h1>
${error ? notice('error', error) : ''}
<p>${
    invited
      ? html`An account was made for you: <strong>${link.username}</strong>. Choose its password, and you are in.`
      : html`For the account \
<strong>${link.username}</strong>. Every session of the account ends; this browser is logged in afresh.`
  }</p>
<form class="stack" method="post" action="/password/set/${token}">${csrfField(ui)}
<input type="hidden" name="username" autocomplete="username" value="${link.username}">
<div><label for="new-password">${invited ? 'Password' : 'New password'}</label>\
<input id="new-password" name="password" type="password" autocomplete="new-password" required minlength="10" \
maxlength="200" aria-describedby="new-hint">\
<p class="hint" id="new-hint">At least 10 characters; common passwords are refused.</p></div>
<div><button type="submit">Set password</button></div>
</form>`;
}

/** An unknown, expired or used link (410). */
export function deadLinkView(): SafeHtml {
  return html`<h1>This link no longer works</h1>
${notice(
  'error',
  'The link has expired, was already used, or a newer mail replaced it. Invitation links work for 7 days and ' +
    'reset links for one hour, once each.',
)}
<p><a href="/password/forgot">Ask for a new link</a> or <a href="/login">log in</a>.</p>`;
}

export function forgotView(
  ui: ConsoleContext,
  mailEnabled: boolean,
  values: { login?: string; error?: string },
): SafeHtml {
  if (!mailEnabled)
    return html`<h1>Forgot your password?</h1>${notice('error', NO_MAIL)}<p><a href="/login">Back to log in</a></p>`;
  return html`<h1>Forgot your password?</h1>
${values.error ? notice('error', values.error) : ''}
<p>\
Enter your username or e-mail address. If an account has it, we mail that account a link to choose a new password.</p>
<form class="stack" method="post" action="/password/forgot">${csrfField(ui)}
<div><label for="login">Username or e-mail</label>\
<input id="login" name="login" autocomplete="username" required maxlength="254" value="${values.login ?? ''}"></div>
<div><button type="submit">Mail me a link</button></div>
</form>
<p><a href="/login">Back to log in</a></p>`;
}

export function forgotSentView(): SafeHtml {
  return html`<h1>Check your mail</h1>
${notice(
  'ok',
  'If an account has that username or address, a link is on its way to the account’s e-mail address. It ' +
    'works for one hour, once.',
)}
<p class="muted">Nothing after a few minutes? Look in the spam folder, or ask again.</p>
<p><a href="/login">Back to log in</a></p>`;
}
