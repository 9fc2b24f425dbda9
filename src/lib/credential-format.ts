// The shape of every credential: `<prefix><id>.<secret>`, the prefix naming its kind. Parsing needs
// no database, so request plumbing (rate-limit keys) reads it without reaching into core.

export const CREDENTIAL_KINDS = ['deploy_token', 'api_key', 'forum_token', 'purchase_key'] as const;
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number];

export const credentialPrefixes: Record<CredentialKind, string> = {
  deploy_token: 'dpl_',
  api_key: 'blu_sk_',
  forum_token: 'blu_ft_',
  purchase_key: 'pk_',
};

const TOKEN = /^([a-z_]+_)([0-9a-z]{16})\.([A-Za-z0-9_-]{43})$/;

export interface ParsedCredential {
  kind: CredentialKind;
  id: string;
  secret: string;
}

export function parseCredential(presented: string): ParsedCredential | undefined {
  const match = TOKEN.exec(presented.trim());
  if (!match) return undefined;
  const kind = CREDENTIAL_KINDS.find((k) => credentialPrefixes[k] === match[1]);
  return kind ? { kind, id: match[2]!, secret: match[3]! } : undefined;
}
