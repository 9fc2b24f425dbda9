import { pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { sites } from '../../core/sites/tables.js';

/** One connected repository per site; pushes to it build releases. */
export const githubConnections = pgTable('deploy_github_connections', {
  siteId: text('site_id')
    .primaryKey()
    .references(() => sites.id, { onDelete: 'cascade' }),
  /** `owner/name`, fetched from BLUME_GIT_BASE_URL. */
  repository: text('repository').notNull(),
  /** Pushes to this branch build promotable releases; other branches build previews. */
  branch: text('branch').notNull(),
  path: text('path').notNull().default(''),
  kind: text('kind', { enum: ['markdown', 'static'] }).notNull(),
  /** The webhook secret sealed with AES-256-GCM (lib/secrets.ts): verifying HMACs needs the plain key. */
  webhookSecret: text('webhook_secret').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Webhook deliveries already handled, so a redelivery does not build twice: neither one with the same
 * (unsigned) delivery id nor one whose signed body names the same push, i.e. the same ref moved from
 * the same commit to the same commit (decision 0035).
 */
export const githubDeliveries = pgTable(
  'deploy_github_deliveries',
  {
    deliveryId: text('delivery_id').primaryKey(),
    siteId: text('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    buildId: text('build_id'),
    /** The push as its signed body names it; null on rows from before these were kept. */
    ref: text('ref'),
    beforeCommit: text('before_commit'),
    afterCommit: text('after_commit'),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('deploy_github_deliveries_push_key').on(t.siteId, t.ref, t.beforeCommit, t.afterCommit)],
);

export type GithubConnectionRow = typeof githubConnections.$inferSelect;
