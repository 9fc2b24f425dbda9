import { integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { sites } from '../sites/tables.js';

/**
 * Instance settings of a site: `desired` is what the owner last saved (PUT /env); `applied` is what
 * the running instance uses, copied from `desired` by POST /restart. `generation` counts restarts.
 */
export const siteSettings = pgTable('site_settings', {
  siteId: text('site_id')
    .primaryKey()
    .references(() => sites.id, { onDelete: 'cascade' }),
  desired: jsonb('desired').$type<Record<string, string>>().notNull().default({}),
  applied: jsonb('applied').$type<Record<string, string>>().notNull().default({}),
  generation: integer('generation').notNull().default(0),
  desiredAt: timestamp('desired_at', { withTimezone: true }).notNull().defaultNow(),
  appliedAt: timestamp('applied_at', { withTimezone: true }),
});

export type SiteSettingsRow = typeof siteSettings.$inferSelect;
