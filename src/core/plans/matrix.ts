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
    const matrix = await this.matrix.cached(SCOPE, SCOPE, () => loadFeaturePlans(this.db));
    return matrix.get(feature)!.includes(plan);
  }

  async require(site: SiteRow, feature: Feature): Promise<void> {
    if (!(await this.includes(site.plan, feature))) {
      throw new AppError(
        'plan_required',
        `The "${site.plan}" plan of site "${site.id}" does not include ${feature.replace('_', ' ')}; upgrade the plan.`,
      );
    }
  }
}
