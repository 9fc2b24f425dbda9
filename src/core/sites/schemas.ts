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
