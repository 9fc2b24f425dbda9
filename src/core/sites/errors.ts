// Error codes of a site's team (decision 0142). Data only: src/http/errors.ts merges this table into
// the one typed map that AppError accepts.

export const siteErrorCodes = {
  site_role_required: { status: 403, title: 'Your role on the site does not allow this' },
  invitation_email_mismatch: { status: 403, title: 'The invitation is for another e-mail address' },
  invitation_not_found: { status: 404, title: 'Invitation not found, used or expired' },
  team_member_not_found: { status: 404, title: 'The account is not on the team' },
  already_member: { status: 409, title: 'The account is already on the team' },
  last_owner: { status: 409, title: 'The last owner of a site cannot be removed' },
} as const satisfies Record<string, { status: number; title: string }>;
