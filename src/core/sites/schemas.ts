import { Type, type Static } from 'typebox';

export const SiteId = Type.String({
  pattern: '^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$',
  description: 'Lower-case host label: letters, digits and single hyphens, 1 to 40 characters.',
});
export const SiteKind = Type.Union([Type.Literal('static'), Type.Literal('community')]);
export const SitePlan = Type.Union([Type.Literal('free'), Type.Literal('pro'), Type.Literal('business')]);

export const CreateSiteBody = Type.Object(
  { id: SiteId, kind: SiteKind, plan: Type.Optional(SitePlan) },
  { additionalProperties: false },
);
export type CreateSiteBody = Static<typeof CreateSiteBody>;

export const SiteParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

export const SiteOut = Type.Object({
  id: Type.String(),
  kind: SiteKind,
  plan: SitePlan,
  owner_id: Type.Union([Type.String(), Type.Null()]),
  url: Type.String({ description: 'Production origin of the site.' }),
  created_at: Type.String({ format: 'date-time' }),
});
export type SiteOut = Static<typeof SiteOut>;

const SiteRoleSchema = Type.Union([Type.Literal('owner'), Type.Literal('developer'), Type.Literal('viewer')], {
  description:
    'owner: everything, the team and deleting the site included; developer: deploys, builds, variables, domains and deploy tokens; viewer: reads.',
});

export const MemberOut = Type.Object({
  user_id: Type.String(),
  username: Type.String(),
  email: Type.String(),
  role: SiteRoleSchema,
  owner_of_record: Type.Boolean({
    description: 'The account the site belongs to; removing it hands that to another owner.',
  }),
  since: Type.String({ format: 'date-time' }),
});
export type MemberOut = Static<typeof MemberOut>;

export const MemberParams = Type.Object({
  id: Type.String({ maxLength: 64 }),
  user_id: Type.String({ maxLength: 64 }),
});

export const InvitationBody = Type.Object(
  { email: Type.String({ format: 'email', maxLength: 254 }), role: SiteRoleSchema },
  { additionalProperties: false },
);

export const InvitationOut = Type.Object({
  id: Type.String(),
  email: Type.String(),
  role: SiteRoleSchema,
  created_at: Type.String({ format: 'date-time' }),
  expires_at: Type.String({ format: 'date-time' }),
});
export type InvitationOut = Static<typeof InvitationOut>;

export const InvitationCreatedOut = Type.Object({
  ...InvitationOut.properties,
  mailed: Type.Boolean({ description: 'Whether the invitation went out by mail.' }),
  accept_url: Type.Union([Type.String(), Type.Null()], {
    description: 'Only when this server sends no mail: the link to pass on yourself, shown this once.',
  }),
});

export const InvitationParams = Type.Object({
  id: Type.String({ maxLength: 64 }),
  invitation_id: Type.String({ maxLength: 64 }),
});

export const AcceptInvitationBody = Type.Object(
  { token: Type.String({ maxLength: 200, description: 'The token of the mailed link, `<id>.<secret>`.' }) },
  { additionalProperties: false },
);

export const AcceptedOut = Type.Object({ site: Type.String(), role: SiteRoleSchema });
