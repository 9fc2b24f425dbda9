// Each node's copy of the content types the Content API serves, so a read of one entry is one query
// (the entry), as the bare SQL of it is. A change of a type through the API or the editor broadcasts
// the type on the cache bus (`cms:types`), as sites and settings do, and every node drops its copy
// before the change answers; a node that misses the message drops it when TTL_MS runs out
// (docs/decisions/0052-content-api-read-path.md).
import { BroadcastMap } from '../adapters/cache/broadcast-map.js';
import type { PubSub } from '../adapters/cache/index.js';
import type { Database } from '../db/client.js';
import { readStoredType } from './content-types.js';
import type { ContentTypeRow } from './tables.js';

/** How long a node trusts its copy of a type when no change message reaches it. */
export const TTL_MS = 5_000;

interface Entry {
  row: ContentTypeRow;
  loadedAt: number;
}

const keyOf = (siteId: string, slug: string): string => `${siteId}/${slug}`;

export class ContentTypeDirectory {
  private readonly types: BroadcastMap<Entry>;

  constructor(
    private readonly db: Database,
    pubsub: PubSub,
  ) {
    this.types = new BroadcastMap(pubsub, 'cms:types');
  }

  start(): Promise<void> {
    return this.types.start();
  }

  stop(): Promise<void> {
    return this.types.stop();
  }

  /** The site's stored type `slug`, or undefined. Only types that exist are kept: a new one shows at once. */
  async get(siteId: string, slug: string): Promise<ContentTypeRow | undefined> {
    const key = keyOf(siteId, slug);
    const cached = this.types.get(key);
    if (cached && Date.now() - cached.loadedAt < TTL_MS) return cached.row;
    const row = await readStoredType(this.db, siteId, slug);
    if (row) this.types.set(key, { row, loadedAt: Date.now() });
    else this.types.delete(key);
    return row;
  }

  /** Every node, this one included, forgets the type; call it once a change of it has committed. */
  changed(siteId: string, slug: string): Promise<void> {
    return this.types.changed(keyOf(siteId, slug));
  }
}
