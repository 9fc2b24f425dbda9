// Each node's copy of the plan matrix, which every site API request consults, on the cache seam
// (src/adapters/cache/epochs.ts): trusted while the scope `plans` stays put, which a trigger moves
// with every write of `plan_features` (`blume plan-feature`, SQL).
import type { Cached, CacheEpochs } from '../../adapters/cache/epochs.js';
import type { Executor } from '../../db/client.js';
import { AppError } from '../../http/errors.js';
import type { SiteRow } from '../sites/tables.js';
import { loadFeaturePlans, type Feature } from './service.js';

const SCOPE = 'plans';

export class PlanMatrix {
  private readonly matrix: Cached<ReadonlyMap<Feature, readonly string[]>>;

  constructor(
    private readonly db: Executor,
    epochs: CacheEpochs,
  ) {
    this.matrix = epochs.cache({ name: 'plans', kind: 'directory', maxBytes: 64 * 1024, weigh: () => 4096 });
  }

  async includes(plan: SiteRow['plan'], feature: Feature): Promise<boolean> {
    return (await this.load()).get(feature)!.includes(plan);
  }

  async require(site: SiteRow, feature: Feature): Promise<void> {
    const plans = (await this.load()).get(feature)!;
    if (plans.includes(site.plan)) return;
    throw new AppError('plan_required', planRequiredDetail(site, feature, plans), { feature, plans });
  }

  private load() {
    return this.matrix.cached(SCOPE, SCOPE, () => loadFeaturePlans(this.db));
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
