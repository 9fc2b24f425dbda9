// Which forum an id or a slug a client sent names, cached per node on the cache seam
// (src/adapters/cache/epochs.ts) under `forum-slugs:<site>`, which a trigger moves when a forum is
// created, deleted or its slug moves: what a node keeps per forum is keyed by the forum's id, never
// by what the client typed, so a slug moved and then reused for another forum names the new one.
import type { Cached, CacheEpochs } from '../adapters/cache/epochs.js';
import type { Executor } from '../db/client.js';
import { findForum } from './structure.js';

/** What a node keeps at most, about in bytes. */
const MAX_BYTES = 4 * 1024 * 1024;

export class ForumIds {
  private readonly ids: Cached<string | undefined>;

  constructor(
    private readonly db: Executor,
    epochs: CacheEpochs,
  ) {
    this.ids = epochs.cache({ name: 'forum ids', kind: 'directory', maxBytes: MAX_BYTES, weigh: () => 128 });
  }

  /** The id of the site's forum `idOrSlug` names (whoever may see it), or undefined when none does. */
  resolve(siteId: string, idOrSlug: string): Promise<string | undefined> {
    return this.ids.cached(
      `forum-slugs:${siteId}`,
      idOrSlug,
      async () => (await findForum(this.db, siteId, idOrSlug))?.id,
    );
  }
}
