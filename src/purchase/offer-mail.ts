// The mail to an existing account that a billing system provisioned a workspace for: the account
// owns it only once it accepts in the console (decision 0118). The link leads to the console page
// listing the account's offers; it carries no secret, since answering needs the account's session.
import { automatedMail, mailLink, mailParagraphs } from '../adapters/mail/compose.js';
import type { UserRow } from '../core/accounts/tables.js';
import type { Executor } from '../db/client.js';
import { enqueueMail } from '../jobs/mail-outbox.js';
import { escapeHtml } from '../lib/html.js';

interface OfferedWorkspace {
  siteId: string;
  /** The site's production origin. */
  url: string;
}

/** The console page where an account answers the workspaces offered to it. */
export const OFFERS_PATH = '/workspace-offers';

/** Queues the offer mail, in the provisioning transaction (the outbox sends after commit). */
export async function sendWorkspaceOffer(
  db: Executor,
  portalOrigin: string,
  user: UserRow,
  workspace: OfferedWorkspace,
): Promise<void> {
  const url = `${portalOrigin}${OFFERS_PATH}`;
  const text = `Hello ${user.username},

a Blume workspace was set up for this e-mail address: ${workspace.siteId} (${workspace.url}).
It joins your account only if you accept it. Log in and accept or decline it here:

${url}

Not expecting it? Decline it, or ignore this mail: nothing joins your account without you.
`;
  const html = mailParagraphs([
    `Hello ${escapeHtml(user.username)},`,
    `a Blume workspace was set up for this e-mail address: <strong>${escapeHtml(workspace.siteId)}</strong> (${mailLink(workspace.url, workspace.url)}).`,
    'It joins your account only if you accept it.',
    mailLink(url, 'Accept or decline the workspace'),
    'Not expecting it? Decline it, or ignore this mail: nothing joins your account without you.',
  ]);
  await enqueueMail(
    db,
    null,
    'account_invite',
    automatedMail({ to: user.email, subject: `A workspace is offered to you: ${workspace.siteId}`, text, html }),
  );
}
