// A per-node cache of site facts that routing needs on every request (does the site exist, what
// kind is it). Changes are broadcast over pub/sub so every node drops its copy at once.
import { BroadcastMap } from '../../adapters/cache/broadcast-map.js';
import type { PubSub } from '../../adapters/cache/index.js';
import type { Executor } from '../../db/client.js';
import { findSite } from './service.js';
import type { SiteRow } from './tables.js';

/** An unknown id is remembered this long, so a site created on another node shows up soon. */
const MISS_TTL_MS = 5_000;

interface Entry {
  site: SiteRow | undefined;
  loadedAt: number;
}

export class SiteDirectory {
  private readonly entries: BroadcastMap<Entry>;

  constructor(
    private readonly db: Executor,
    pubsub: PubSub,
  ) {
    this.entries = new BroadcastMap(pubsub, 'sites:changed');
  }

  start(): Promise<void> {
    return this.entries.start();
  }

  stop(): Promise<void> {
    return this.entries.stop();
  }

  /** The cached site if known, without I/O. */
  peek(id: string): SiteRow | undefined {
    return this.fresh(id)?.site;
  }

  async get(id: string): Promise<SiteRow | undefined> {
    const cached = this.fresh(id);
    if (cached) return cached.site;
    const site = await findSite(this.db, id);
    this.entries.set(id, { site, loadedAt: Date.now() });
    return site;
  }

  /** Call after a site changes or is deleted: every node forgets its copy. */
  changed(id: string): Promise<void> {
    return this.entries.changed(id);
  }

  private fresh(id: string): Entry | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (!entry.site && Date.now() - entry.loadedAt > MISS_TTL_MS) {
      this.entries.delete(id);
      return undefined;
    }
    return entry;
  }
}
