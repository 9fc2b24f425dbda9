// Each node's copy of which static site a custom domain serves (decision 0142), on the cache seam:
// an entry is trusted while its scope `domain:<name>` stays put, which triggers on site_domains move
// with every write, so a removed domain stops serving within the poll bound on every node.
import { eq } from 'drizzle-orm';
import type { Cached, CacheEpochs } from '../../adapters/cache/epochs.js';
import type { Executor } from '../../db/client.js';
import { siteDomains } from './tables.js';

const MAX_BYTES = 4 * 1024 * 1024;

const domainScope = (domain: string): string => `domain:${domain}`;

/** Each node's copy of which site a host name serves (null: none), trusted while `domain:<name>` stays put. */
export class DomainDirectory {
  private readonly domains: Cached<string | null>;

  constructor(
    private readonly db: Executor,
    epochs: CacheEpochs,
  ) {
    this.domains = epochs.cache({ name: 'domains', kind: 'directory', maxBytes: MAX_BYTES, weigh: () => 256 });
  }

  /** The site id, null when the name is no site's, undefined when this node must load it. */
  peek(domain: string): string | null | undefined {
    return this.domains.peek(domainScope(domain), domain);
  }

  get(domain: string): Promise<string | null> {
    return this.domains.cached(domainScope(domain), domain, async () => {
      const [row] = await this.db
        .select({ siteId: siteDomains.siteId })
        .from(siteDomains)
        .where(eq(siteDomains.domain, domain));
      return row?.siteId ?? null;
    });
  }
}
