import { Type, type Static } from 'typebox';

export const API_KEY_SCOPES = ['cms-read', 'cms-write', 'admin', 'helpdesk-read', 'helpdesk-write'] as const;

const CredentialName = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '\\S',
  description: 'A label to recognise the credential by.',
});

export const NameBody = Type.Object({ name: CredentialName }, { additionalProperties: false });
export type NameBody = Static<typeof NameBody>;

export const ApiKeyBody = Type.Object(
  {
    name: CredentialName,
    scopes: Type.Array(Type.Union(API_KEY_SCOPES.map((s) => Type.Literal(s))), {
      minItems: 1,
      maxItems: 5,
      uniqueItems: true,
    }),
  },
  { additionalProperties: false },
);
export type ApiKeyBody = Static<typeof ApiKeyBody>;

const common = {
  id: Type.String(),
  name: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
};

export const TokenOut = Type.Object(common);
export const TokenCreatedOut = Type.Object({
  ...common,
  token: Type.String({ description: 'Shown only in this response.' }),
});
export const ApiKeyOut = Type.Object({ ...common, scopes: Type.Array(Type.String()) });
export const ApiKeyCreatedOut = Type.Object({
  ...common,
  scopes: Type.Array(Type.String()),
  key: Type.String({ description: 'Shown only in this response.' }),
});

export type TokenOut = Static<typeof TokenOut>;
export type ApiKeyOut = Static<typeof ApiKeyOut>;
