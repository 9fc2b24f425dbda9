// Each node's copy of the site facts routing needs on every request (does the site exist, what kind
// is it, is it active), on the cache seam (src/adapters/cache/epochs.ts): a site's entry is trusted
// while its scope `site:<id>` stays put, which triggers move with every write of its row, whoever
// writes (a request, the purchase API, a job, the CLI, SQL). An unknown id is kept too: creating
// the site moves its scope.
import type { Cached, CacheEpochs } from '../../adapters/cache/epochs.js';
import type { Executor } from '../../db/client.js';
import { findSite } from './service.js';
import type { SiteRow } from './tables.js';

/** Sites a node keeps at most, about in bytes (a row is a few hundred). */
const MAX_BYTES = 8 * 1024 * 1024;

export const siteScope = (id: string): string => `site:${id}`;

export class SiteDirectory {
  private readonly sites: Cached<SiteRow | undefined>;

  constructor(
    private readonly db: Executor,
    epochs: CacheEpochs,
  ) {
    this.sites = epochs.cache({ name: 'sites', kind: 'directory', maxBytes: MAX_BYTES, weigh: () => 512 });
  }

  /** The site as this node holds it, without I/O; undefined when it holds none (or knows there is none). */
  peek(id: string): SiteRow | undefined {
    return this.sites.peek(siteScope(id), id);
  }

  get(id: string): Promise<SiteRow | undefined> {
    return this.sites.cached(siteScope(id), id, () => findSite(this.db, id));
  }
}
