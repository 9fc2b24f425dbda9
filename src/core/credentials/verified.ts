// Each node's copy of the credential rows behind verified tokens, so the APIs' hot paths (Content API
// reads, the help desk) do not read the row on every request. The secret is still checked on every
// request, against the cached hash; what is cached is the row, on the cache seam
// (src/adapters/cache/epochs.ts): trusted while the scope `credential:<id>` stays put, which a
// trigger moves when the row is revoked, changed or deleted, whoever writes.
import type { Cached, CacheEpochs } from '../../adapters/cache/epochs.js';
import type { Executor } from '../../db/client.js';
import {
  acceptSecret,
  findLiveCredential,
  parseCredential,
  revokeCredential,
  type CredentialFilter,
  type CredentialKind,
} from './service.js';
import type { CredentialRow } from './tables.js';

/** Rows a node keeps at most, about in bytes. */
const MAX_BYTES = 8 * 1024 * 1024;

export class VerifiedCredentials {
  private readonly rows: Cached<CredentialRow | undefined>;

  constructor(
    private readonly db: Executor,
    private readonly epochs: CacheEpochs,
  ) {
    this.rows = epochs.cache({ name: 'credentials', kind: 'directory', maxBytes: MAX_BYTES, weigh: () => 1024 });
  }

  /** The live credential of `kind` the presented token proves, or undefined. */
  async verify(presented: string, kind: CredentialKind): Promise<CredentialRow | undefined> {
    const parsed = parseCredential(presented);
    if (!parsed || parsed.kind !== kind) return undefined;
    // Only live rows are cached (a guessed id fills nothing); the secret is checked on every request.
    const row = await this.rows.cached(
      `credential:${parsed.id}`,
      `${kind}:${parsed.id}`,
      () => findLiveCredential(this.db, parsed.id, kind),
      (found) => found !== undefined,
    );
    return row && (await acceptSecret(this.db, row, parsed.secret)) ? row : undefined;
  }

  /** Revokes one live credential matching the filter, and every node forgets it; answers whether one was revoked. */
  async revoke(id: string, filter: CredentialFilter): Promise<boolean> {
    const revoked = await revokeCredential(this.db, id, filter);
    // A trigger moved the credential's epoch; the other nodes hear of it now rather than at their next poll.
    if (revoked) await this.epochs.announce();
    return revoked;
  }
}
