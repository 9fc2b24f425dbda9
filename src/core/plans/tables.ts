import { pgTable, text } from 'drizzle-orm/pg-core';

/** Which plans include which feature. Seeded by `blume seed-features`; operators may edit rows. */
export const planFeatures = pgTable('plan_features', {
  feature: text('feature').primaryKey(),
  plans: text('plans').array().notNull(),
  description: text('description').notNull(),
});
