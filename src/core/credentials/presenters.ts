// What leaves the server about credentials. Secrets leave only through the `*Created` presenters,
// used once, in the response to minting.
import type { Minted } from './service.js';
import type { CredentialRow } from './tables.js';
import type { ApiKeyOut, TokenOut } from './schemas.js';

export function presentToken(row: CredentialRow): TokenOut {
  return {
    id: row.id,
    name: row.name,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
  };
}

export function presentTokenCreated(minted: Minted): TokenOut & { token: string } {
  return { ...presentToken(minted.row), token: minted.token };
}

export function presentApiKey(row: CredentialRow): ApiKeyOut {
  return { ...presentToken(row), scopes: row.scopes };
}

export function presentApiKeyCreated(minted: Minted): ApiKeyOut & { key: string } {
  return { ...presentApiKey(minted.row), key: minted.token };
}
