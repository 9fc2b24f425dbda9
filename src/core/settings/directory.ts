// Each node's copy of the applied settings of the sites it serves, on the cache seam
// (src/adapters/cache/epochs.ts): trusted while the scope `settings:<site>` stays put, which
// triggers move with every write of the site's settings row, whoever writes (POST /restart, the
// console, `blume settings apply` in another process, SQL).
import type { Cached, CacheEpochs } from '../../adapters/cache/epochs.js';
import type { Executor } from '../../db/client.js';
import { parseInstanceSettings, type InstanceSettings } from './allowlist.js';
import { loadSettings } from './service.js';

/** Settings a node keeps at most, about in bytes. */
const MAX_BYTES = 8 * 1024 * 1024;

export const settingsScope = (siteId: string): string => `settings:${siteId}`;

export class SettingsDirectory {
  private readonly settings: Cached<InstanceSettings>;

  constructor(
    private readonly db: Executor,
    epochs: CacheEpochs,
  ) {
    this.settings = epochs.cache({ name: 'settings', kind: 'directory', maxBytes: MAX_BYTES });
  }

  /** The applied settings of a site, as this node runs them. */
  applied(siteId: string): Promise<InstanceSettings> {
    return this.settings.cached(settingsScope(siteId), siteId, async () =>
      parseInstanceSettings((await loadSettings(this.db, siteId)).applied),
    );
  }
}
