// Each node's copy of the plan matrix, which every site API request consults. The matrix is a few
// rows that change when an operator says so: `setFeaturePlans` writes a row and broadcasts, and every
// node reloads on its next request. An edit made with SQL behind the app's back shows within
// MATRIX_TTL_MS.
import { BroadcastMap } from '../../adapters/cache/broadcast-map.js';
import type { PubSub } from '../../adapters/cache/index.js';
import type { Executor } from '../../db/client.js';
import { AppError } from '../../http/errors.js';
import type { SiteRow } from '../sites/tables.js';
import { loadFeaturePlans, writeFeaturePlans, type Feature } from './service.js';

const KEY = 'matrix';
const MATRIX_TTL_MS = 60_000;

interface Entry {
  /** Stored before it resolves, so a broadcast heard during the read drops it with the rest. */
  plans: Promise<ReadonlyMap<Feature, readonly string[]>>;
  loadedAt: number;
}

export class PlanMatrix {
  private readonly entries: BroadcastMap<Entry>;

  constructor(
    private readonly db: Executor,
    pubsub: PubSub,
  ) {
    this.entries = new BroadcastMap(pubsub, 'plans:changed', 1);
  }

  start(): Promise<void> {
    return this.entries.start();
  }

  stop(): Promise<void> {
    return this.entries.stop();
  }

  async includes(plan: SiteRow['plan'], feature: Feature): Promise<boolean> {
    return (await this.load()).get(feature)!.includes(plan);
  }

  async require(site: SiteRow, feature: Feature): Promise<void> {
    const plans = (await this.load()).get(feature)!;
    if (plans.includes(site.plan)) return;
    throw new AppError('plan_required', planRequiredDetail(site, feature, plans), { feature, plans });
  }

  /** Sets which plans include a feature; every node uses the new matrix from its next request on. */
  async setFeaturePlans(feature: Feature, plans: SiteRow['plan'][]): Promise<void> {
    await writeFeaturePlans(this.db, feature, plans);
    await this.entries.changed(KEY);
  }

  private load(): Promise<ReadonlyMap<Feature, readonly string[]>> {
    const cached = this.entries.get(KEY);
    if (cached && Date.now() - cached.loadedAt < MATRIX_TTL_MS) return cached.plans;
    const plans = loadFeaturePlans(this.db);
    const entry = { plans, loadedAt: Date.now() };
    this.entries.set(KEY, entry);
    // A failed read is not kept: the next request tries again.
    plans.catch(() => {
      if (this.entries.get(KEY) === entry) this.entries.delete(KEY);
    });
    return plans;
  }
}

/** What a refused request is told: which plans include the feature, and who moves a site to one and where. */
function planRequiredDetail(site: SiteRow, feature: Feature, plans: readonly string[]): string {
  const name = feature.replace('_', ' ');
  const target = plans[0];
  if (target === undefined)
    return `The "${site.plan}" plan of site "${site.id}" does not include ${name}, and no plan does: a platform administrator turns it on with \`blume plan-feature ${feature} <plan>...\` (docs/plans.md).`;
  return `The "${site.plan}" plan of site "${site.id}" does not include ${name}; upgrade the plan: ${name} is on ${plans.join(', ')}. A platform administrator changes a site's plan in the console (/admin/sites), with \`blume plan set ${site.id} ${target}\`, or through the purchase API (docs/plans.md).`;
}
