// The mails with a password link for portal accounts: the invitation a new workspace owner gets and
// the forgotten-password mail. Each writes its link and mail in the caller's transaction (the outbox
// sends after commit; the caller nudges it). Links always point at BLUME_PUBLIC_URL, never at the
// Host a request named: a forged Host must not turn a reset mail into a link to someone else's server.
import { automatedMail, mailLink, mailParagraphs } from '../../adapters/mail/compose.js';
import type { Executor } from '../../db/client.js';
import { enqueueMail } from '../../jobs/mail-outbox.js';
import { escapeHtml } from '../../lib/html.js';
import { issuePasswordLink } from './password-links.js';
import type { UserRow } from './tables.js';

/** The console page a password link opens. */
function passwordLinkUrl(portalOrigin: string, token: string): string {
  return `${portalOrigin}/password/set/${token}`;
}

interface InvitedWorkspace {
  siteId: string;
  /** The site's production origin. */
  url: string;
}

/** Queues the invitation of an account made for someone else, with a link to choose its first password. */
export async function sendInvitation(
  db: Executor,
  portalOrigin: string,
  user: UserRow,
  workspace: InvitedWorkspace,
): Promise<void> {
  const url = passwordLinkUrl(portalOrigin, await issuePasswordLink(db, user, 'invite'));
  const text = `Hello ${user.username},

a Blume workspace was set up for you: ${workspace.siteId} (${workspace.url}).
Your account is ready; its username is ${user.username}. Choose its password to log in:

${url}

The link works for 7 days, once. Later, ask for a new link at ${portalOrigin}/password/forgot.
`;
  const html = mailParagraphs([
    `Hello ${escapeHtml(user.username)},`,
    `a Blume workspace was set up for you: <strong>${escapeHtml(workspace.siteId)}</strong> (${mailLink(workspace.url, workspace.url)}).`,
    `Your account is ready; its username is <strong>${escapeHtml(user.username)}</strong>.`,
    mailLink(url, 'Choose your password'),
    `The link works for 7 days, once. Later, ${mailLink(`${portalOrigin}/password/forgot`, 'ask for a new link')}.`,
  ]);
  await enqueueMail(
    db,
    null,
    'account_invite',
    automatedMail({
      to: user.email,
      subject: `Your workspace ${workspace.siteId} is ready: choose your password`,
      text,
      html,
    }),
  );
}

/** Queues a link to choose a new password for an account whose owner forgot it. */
export async function sendPasswordLink(db: Executor, portalOrigin: string, user: UserRow): Promise<void> {
  await db.transaction(async (tx) => {
    const url = passwordLinkUrl(portalOrigin, await issuePasswordLink(tx, user, 'reset'));
    const text = `Hello ${user.username},

a new password was asked for your Blume account. If it was you, choose it here:

${url}

This link works for one hour and only once; using it logs the account out everywhere.
Not you? Then nothing changes: ignore this mail.
`;
    const html = mailParagraphs([
      `Hello ${escapeHtml(user.username)},`,
      'a new password was asked for your Blume account. If it was you, choose it here:',
      mailLink(url, 'Choose a new password'),
      'This link works for one hour and only once; using it logs the account out everywhere.',
      'Not you? Then nothing changes: ignore this mail.',
    ]);
    await enqueueMail(
      tx,
      null,
      'account_reset',
      automatedMail({ to: user.email, subject: 'A new password for your Blume account', text, html }),
    );
  });
}
