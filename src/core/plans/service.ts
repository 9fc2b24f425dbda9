// Plan gates (spec section 1): deploy tokens on every plan; forum, content and help desk APIs from
// Pro; shared inbox and AI from Business. The matrix lives in the database so operators can change
// it; requests read it through each node's PlanMatrix (matrix.ts).
import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
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

export function isFeature(name: string): name is Feature {
  return DEFAULT_FEATURES.some((f) => f.feature === name);
}

/** Inserts missing features; keeps rows an operator changed. Answers how many were added. */
export async function seedFeatures(db: Executor): Promise<number> {
  const added = await db
    .insert(planFeatures)
    .values(DEFAULT_FEATURES.map((f) => ({ ...f, plans: [...f.plans] })))
    .onConflictDoNothing()
    .returning();
  return added.length;
}

/** Which plans include each feature; a feature without a row has its default plans. */
export async function loadFeaturePlans(db: Executor): Promise<Map<Feature, readonly string[]>> {
  const plans = new Map<Feature, readonly string[]>(DEFAULT_FEATURES.map((f) => [f.feature, f.plans]));
  for (const row of await db.select({ feature: planFeatures.feature, plans: planFeatures.plans }).from(planFeatures)) {
    if (isFeature(row.feature)) plans.set(row.feature, row.plans);
  }
  return plans;
}

/** Writes which plans include a feature; a trigger tells every node (their PlanMatrix, matrix.ts). */
export async function writeFeaturePlans(db: Executor, feature: Feature, plans: SiteRow['plan'][]): Promise<void> {
  const description = DEFAULT_FEATURES.find((f) => f.feature === feature)!.description;
  await db
    .insert(planFeatures)
    .values({ feature, plans, description })
    .onConflictDoUpdate({ target: planFeatures.feature, set: { plans: sql`excluded.plans` } });
}
