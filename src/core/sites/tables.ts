import { index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { users } from '../accounts/tables.js';

export const sites = pgTable(
  'sites',
  {
    id: text('id').primaryKey(),
    kind: text('kind', { enum: ['static', 'community'] }).notNull(),
    plan: text('plan', { enum: ['free', 'pro', 'business'] })
      .notNull()
      .default('free'),
    /** Set by the purchase API: a suspended or canceled site answers 503 `site_suspended`, its data kept. */
    status: text('status', { enum: ['active', 'suspended', 'canceled'] })
      .notNull()
      .default('active'),
    /** When a canceled site's grace period started; the purge job deletes it after the grace period. */
    canceledAt: timestamp('canceled_at', { withTimezone: true }),
    ownerId: text('owner_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('sites_owner_id_idx').on(t.ownerId)],
);

export type SiteRow = typeof sites.$inferSelect;
