// Each node's copy of the applied settings of the sites it serves. POST /restart broadcasts the
// site id after applying; every node drops its copy and reloads on the next request, which is how
// a restart converges the whole stack without restarting processes.
import { BroadcastMap } from '../../adapters/cache/broadcast-map.js';
import type { PubSub } from '../../adapters/cache/index.js';
import type { Executor } from '../../db/client.js';
import { parseInstanceSettings, type InstanceSettings } from './allowlist.js';
import { loadSettings } from './service.js';

export class SettingsDirectory {
  private readonly entries: BroadcastMap<InstanceSettings>;

  constructor(
    private readonly db: Executor,
    pubsub: PubSub,
  ) {
    this.entries = new BroadcastMap(pubsub, 'settings:applied');
  }

  start(): Promise<void> {
    return this.entries.start();
  }

  stop(): Promise<void> {
    return this.entries.stop();
  }

  /** The applied settings of a site, as this node runs them. */
  async applied(siteId: string): Promise<InstanceSettings> {
    const cached = this.entries.get(siteId);
    if (cached) return cached;
    const settings = parseInstanceSettings((await loadSettings(this.db, siteId)).applied);
    this.entries.set(siteId, settings);
    return settings;
  }

  /** Tells every node, this one included, to reload the site's applied settings. */
  changed(siteId: string): Promise<void> {
    return this.entries.changed(siteId);
  }
}
