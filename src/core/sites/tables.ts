import { index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { users } from '../accounts/tables.js';

export const sites = pgTable(
  'sites',
  {
    id: text('id').primaryKey(),
    kind: text('kind', { enum: ['static', 'community'] }).notNull(),
    plan: text('plan', { enum: ['free', 'pro', 'business'] }).notNull().default('free'),
    ownerId: text('owner_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('sites_owner_id_idx').on(t.ownerId)],
);

export type SiteRow = typeof sites.$inferSelect;
