// A per-node cache of the credential rows behind verified tokens, so the APIs hot paths (Content API
// reads, the help desk) do not read the row on every request. The secret is still checked on every
// request, against the cached hash; what is cached is the row, for at most TTL_MS. A revocation
// through `revoke` is broadcast: every node drops its copy at once, and a node that missed the
// message drops it when the TTL runs out (docs/decisions/0084-verified-credential-cache.md).
import { BroadcastMap } from '../../adapters/cache/broadcast-map.js';
import type { PubSub } from '../../adapters/cache/index.js';
import type { Executor } from '../../db/client.js';
import {
  acceptSecret,
  parseCredential,
  revokeCredential,
  verifyCredential,
  type CredentialFilter,
  type CredentialKind,
} from './service.js';
import type { CredentialRow } from './tables.js';

/** How long a node trusts a cached row when no revocation message reaches it. */
export const TTL_MS = 5_000;

interface Entry {
  row: CredentialRow;
  loadedAt: number;
}

export class VerifiedCredentials {
  private readonly rows: BroadcastMap<Entry>;

  constructor(
    private readonly db: Executor,
    pubsub: PubSub,
  ) {
    this.rows = new BroadcastMap(pubsub, 'credentials:revoked');
  }

  start(): Promise<void> {
    return this.rows.start();
  }

  stop(): Promise<void> {
    return this.rows.stop();
  }

  /** The live credential of `kind` the presented token proves, or undefined. */
  async verify(presented: string, kind: CredentialKind): Promise<CredentialRow | undefined> {
    const parsed = parseCredential(presented);
    if (!parsed || parsed.kind !== kind) return undefined;
    const cached = this.rows.get(parsed.id);
    if (cached && Date.now() - cached.loadedAt < TTL_MS)
      return (await acceptSecret(this.db, cached.row, parsed.secret)) ? cached.row : undefined;
    // Only a proven token's row is kept: a guess cannot fill the cache.
    const row = await verifyCredential(this.db, presented, kind);
    if (row) this.rows.set(parsed.id, { row, loadedAt: Date.now() });
    return row;
  }

  /** Revokes one live credential matching the filter, and every node forgets it; answers whether one was revoked. */
  async revoke(id: string, filter: CredentialFilter): Promise<boolean> {
    const revoked = await revokeCredential(this.db, id, filter);
    if (revoked) await this.rows.changed(id);
    return revoked;
  }
}
