import { integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * What this installation is, recorded once at install: a platform, or one community instance and
 * its site id. Every later command and server start must agree with it (decision 0025). One row.
 */
export const installation = pgTable('installation', {
  id: integer('id').primaryKey().default(1),
  mode: text('mode', { enum: ['platform', 'single'] }).notNull(),
  /** The community instance's site id in single mode; null on a platform. */
  instanceId: text('instance_id'),
  installedAt: timestamp('installed_at', { withTimezone: true }).notNull().defaultNow(),
});

export type InstallationRow = typeof installation.$inferSelect;
