// Plan gates (spec section 1): deploy tokens on every plan; forum, content and help desk APIs from
// Pro; shared inbox and AI from Business. The matrix lives in the database so operators can change it.
import { eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { AppError } from '../../http/errors.js';
import type { SiteRow } from '../sites/tables.js';
import { planFeatures } from './tables.js';

export const DEFAULT_FEATURES = [
  { feature: 'deploy', plans: ['free', 'pro', 'business'], description: 'Deploy API and deploy tokens' },
  { feature: 'forum_api', plans: ['pro', 'business'], description: 'Forum API access with forum tokens' },
  { feature: 'cms_api', plans: ['pro', 'business'], description: 'Content API access with API keys' },
  { feature: 'helpdesk_api', plans: ['pro', 'business'], description: 'Help desk API access' },
  { feature: 'shared_inbox', plans: ['business'], description: 'Help desk e-mail channel (shared inbox)' },
  { feature: 'ai', plans: ['business'], description: 'AI content drafting and AI reply drafts' },
] as const;

export type Feature = (typeof DEFAULT_FEATURES)[number]['feature'];

/** Inserts missing features; keeps rows an operator changed. Answers how many were added. */
export async function seedFeatures(db: Executor): Promise<number> {
  const added = await db.insert(planFeatures).values(DEFAULT_FEATURES.map((f) => ({ ...f, plans: [...f.plans] }))).onConflictDoNothing().returning();
  return added.length;
}

export async function planIncludes(db: Executor, plan: SiteRow['plan'], feature: Feature): Promise<boolean> {
  const [row] = await db.select({ plans: planFeatures.plans }).from(planFeatures).where(eq(planFeatures.feature, feature));
  const plans: readonly string[] = row?.plans ?? DEFAULT_FEATURES.find((f) => f.feature === feature)!.plans;
  return plans.includes(plan);
}

export async function requireFeature(db: Executor, site: SiteRow, feature: Feature): Promise<void> {
  if (!(await planIncludes(db, site.plan, feature))) {
    throw new AppError('plan_required', `The "${site.plan}" plan of site "${site.id}" does not include ${feature.replace('_', ' ')}; upgrade the plan.`);
  }
}
