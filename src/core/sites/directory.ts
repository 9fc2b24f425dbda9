// A per-node cache of site facts that routing needs on every request (does the site exist, what
// kind is it). Changes are broadcast over pub/sub so every node drops its copy at once.
import type { PubSub } from '../../adapters/cache/index.js';
import type { Executor } from '../../db/client.js';
import { findSite } from './service.js';
import type { SiteRow } from './tables.js';

const CHANNEL = 'sites:changed';
const MAX_ENTRIES = 10_000;
const MISS_TTL_MS = 5_000;

interface Entry {
  site: SiteRow | undefined;
  loadedAt: number;
}

export class SiteDirectory {
  private readonly entries = new Map<string, Entry>();
  private unsubscribe: (() => Promise<void>) | undefined;

  constructor(
    private readonly db: Executor,
    private readonly pubsub: PubSub,
  ) {}

  async start(): Promise<void> {
    this.unsubscribe = await this.pubsub.subscribe(CHANNEL, (id) => this.entries.delete(id));
  }

  async stop(): Promise<void> {
    await this.unsubscribe?.();
  }

  /** The cached site if known, without I/O. */
  peek(id: string): SiteRow | undefined {
    return this.fresh(id)?.site;
  }

  async get(id: string): Promise<SiteRow | undefined> {
    const cached = this.fresh(id);
    if (cached) return cached.site;
    const site = await findSite(this.db, id);
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(id, { site, loadedAt: Date.now() });
    return site;
  }

  /** Call after a site changes or is deleted: every node forgets its copy. */
  async changed(id: string): Promise<void> {
    this.entries.delete(id);
    await this.pubsub.publish(CHANNEL, id);
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
