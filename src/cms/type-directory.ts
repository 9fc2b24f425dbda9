// Each node's copy of the content types the Content API serves, so a read of one entry is one query
// (the entry), as the bare SQL of it is. Types are cached on the cache seam
// (src/adapters/cache/epochs.ts) under the scope `cms-types:<site>`, which triggers move with every
// write of the site's types, whoever writes (the API, the editor, SQL)
// (docs/decisions/0052-content-api-read-path.md, 0111-cache-seam.md).
import type { Cached, CacheEpochs } from '../adapters/cache/epochs.js';
import type { Database } from '../db/client.js';
import { readStoredType } from './content-types.js';
import type { ContentTypeRow } from './tables.js';

/** Types a node keeps at most, about in bytes. */
const MAX_BYTES = 16 * 1024 * 1024;

export class ContentTypeDirectory {
  private readonly types: Cached<ContentTypeRow | undefined>;

  constructor(
    private readonly db: Database,
    epochs: CacheEpochs,
  ) {
    this.types = epochs.cache({ name: 'cms types', kind: 'directory', maxBytes: MAX_BYTES });
  }

  /** The site's stored type `slug`, or undefined. Only types that exist are cached. */
  get(siteId: string, slug: string): Promise<ContentTypeRow | undefined> {
    return this.types.cached(
      `cms-types:${siteId}`,
      slug,
      () => readStoredType(this.db, siteId, slug),
      (row) => row !== undefined,
    );
  }
}
