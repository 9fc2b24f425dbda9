// Pages of the mail-backed flows: forgotten password, the reset form, the confirmation and
// unsubscribe links. Answers never say whether an account exists.
import type { UiContext } from './context.js';
import { input } from './form-views.js';
import { html, type SafeHtml } from '../../lib/html.js';
import type { UnsubscribeScope } from '../mail/settings.js';
import { csrfField, notice } from './layout.js';

export function forgotView(ui: UiContext, values: { login?: string }, error?: string): SafeHtml {
  return html`<h1>Forgot your password?</h1>${error ? notice('error', error) : ''}
<p>Enter your username or e-mail address. If it belongs to an account, we mail a link to choose a new password.</p>
<form class="stack" method="post" action="/password/forgot">${csrfField(ui)}
${input('login', 'Username or e-mail', 'text', values.login ?? '', { autocomplete: 'username', maxlength: 254 })}
<div><button type="submit">Send the link</button></div></form>
<p><a href="/login">Back to log in</a></p>`;
}

export function forgotSentView(): SafeHtml {
  return html`<h1>Check your mail</h1>${notice(
    'ok',
    'If an account matches, we sent a link to its e-mail address. It works for one hour, once.',
  )}
<p class="muted">Nothing arrived? Look in the spam folder, or ask again in a few minutes.</p><p>\
<a href="/login">Back to log in</a></p>`;
}

export function resetView(ui: UiContext, token: string, error?: string): SafeHtml {
  return html`<h1>Choose a new password</h1>${error ? notice('error', error) : ''}
<form class="stack" method="post" action="/password/reset/${token}">${csrfField(ui)}
${input('new_password', 'New password', 'password', '', {
  autocomplete: 'new-password',
  minlength: 10,
  maxlength: 200,
  hint: 'At least 10 characters. You will be logged out everywhere else.',
})}
<div><button type="submit">Set password</button></div></form>`;
}

/** A confirmation or reset link that is unknown, expired or already used. */
export function deadLinkView(what: 'confirm' | 'reset'): SafeHtml {
  return html`<h1>This link no longer works</h1>${notice(
    'warn',
    'The link is expired, was already used, or was replaced by a newer mail.',
  )}
<p>${
    what === 'reset'
      ? html`<a href="/password/forgot">Ask for a new reset link</a>`
      : html`Log in and ask for a new confirmation mail from <a href="/account">your profile</a>.`
  }</p>`;
}

export function confirmedView(): SafeHtml {
  return html`<h1>E-mail address confirmed</h1>${notice(
    'ok',
    'Thank you: your address is confirmed and you can post now.',
  )}<p><a href="/">Go to the forum</a></p>`;
}

/** What an unsubscribe link stops, in words: the mails, and when they came. */
const STOPS: Record<UnsubscribeScope, [string, string]> = {
  reply: ['mails about replies', 'when someone replies to your topics or posts'],
  mention: ['mails about mentions', 'when someone mentions you'],
  like: ['mails about likes', 'when someone likes your post'],
  digest: ['the digest', 'with a summary of what happened'],
  replies: ['mails about replies and mentions', 'when someone replies to you or mentions you'],
};

export function unsubscribeView(ui: UiContext, token: string, scope: UnsubscribeScope, done: boolean): SafeHtml {
  const [what, when] = STOPS[scope];
  if (done)
    return html`<h1>Unsubscribed</h1>${notice(
      'ok',
      `You will get no more ${what}. Turn them back on in your mail settings at any time.`,
    )}<p><a href="/account/notifications">Your mail settings</a></p>`;
  return html`<h1>Stop ${what}?</h1><p>You will no longer get a mail ${when}.</p>
<form method="post" action="/unsubscribe/${token}">${csrfField(ui)}<button type="submit">Unsubscribe</button></form>`;
}
