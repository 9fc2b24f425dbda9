// The mail that invites someone onto a site's team, written in the caller's transaction (the outbox
// sends after commit). The link points at BLUME_PUBLIC_URL, never at a Host a request named.
import { automatedMail, mailLink, mailParagraphs } from '../../adapters/mail/compose.js';
import type { Executor } from '../../db/client.js';
import { enqueueMail } from '../../jobs/mail-outbox.js';
import { escapeHtml } from '../../lib/html.js';
import type { UserRow } from '../accounts/tables.js';
import type { SiteInvitationRow } from './tables.js';

/** The console page where an invitation is accepted. */
export function invitationUrl(portalOrigin: string, token: string): string {
  return `${portalOrigin}/invitations/${token}`;
}

export async function sendTeamInvitation(
  db: Executor,
  portalOrigin: string,
  invitation: SiteInvitationRow,
  token: string,
  invitedBy: UserRow,
): Promise<void> {
  const url = invitationUrl(portalOrigin, token);
  const text = `Hello,

${invitedBy.username} invites you to work on the Blume site ${invitation.siteId} as ${invitation.role}.
Accept with a Blume account of this address (${invitation.email}); sign up first if you have none:

${url}

The link works for 7 days, once. Not expecting this? Ignore this mail and nothing changes.
`;
  const html = mailParagraphs([
    'Hello,',
    `${escapeHtml(invitedBy.username)} invites you to work on the Blume site <strong>${escapeHtml(invitation.siteId)}</strong> as <strong>${invitation.role}</strong>.`,
    `Accept with a Blume account of this address (${escapeHtml(invitation.email)}); sign up first if you have none.`,
    mailLink(url, 'Accept the invitation'),
    'The link works for 7 days, once. Not expecting this? Ignore this mail and nothing changes.',
  ]);
  // The platform's mail, sent through its own server even when a community site has one of its own.
  await enqueueMail(
    db,
    null,
    'team_invite',
    automatedMail({ to: invitation.email, subject: `Join the site ${invitation.siteId} on Blume`, text, html }),
  );
}
