// Each node's copy of the applied settings of the sites it serves. POST /restart broadcasts the
// site id after applying; every node drops its copy and reloads on the next request, which is how
// a restart converges the whole stack without restarting processes.
import type { PubSub } from '../../adapters/cache/index.js';
import type { Executor } from '../../db/client.js';
import { parseInstanceSettings, type InstanceSettings } from './allowlist.js';
import { loadSettings } from './service.js';

const CHANNEL = 'settings:applied';
const MAX_ENTRIES = 10_000;

export class SettingsDirectory {
  private readonly entries = new Map<string, InstanceSettings>();
  private unsubscribe: (() => Promise<void>) | undefined;

  constructor(
    private readonly db: Executor,
    private readonly pubsub: PubSub,
  ) {}

  async start(): Promise<void> {
    this.unsubscribe = await this.pubsub.subscribe(CHANNEL, (siteId) => this.entries.delete(siteId));
  }

  async stop(): Promise<void> {
    await this.unsubscribe?.();
  }

  /** The applied settings of a site, as this node runs them. */
  async applied(siteId: string): Promise<InstanceSettings> {
    const cached = this.entries.get(siteId);
    if (cached) return cached;
    const settings = parseInstanceSettings((await loadSettings(this.db, siteId)).applied);
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(siteId, settings);
    return settings;
  }

  /** Tells every node, this one included, to reload the site's applied settings. */
  async changed(siteId: string): Promise<void> {
    this.entries.delete(siteId);
    await this.pubsub.publish(CHANNEL, siteId);
  }
}
