import { index, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
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

/**
 * People who work on a site besides its owner of record (`sites.owner_id`, always an owner): each
 * with a role. The owner of record and every `owner` row manage the team (decision 0142).
 */
export const siteMembers = pgTable(
  'site_members',
  {
    siteId: text('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role', { enum: ['owner', 'developer', 'viewer'] }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.siteId, t.userId] }), index('site_members_user_id_idx').on(t.userId)],
);

export type SiteMemberRow = typeof siteMembers.$inferSelect;
export type SiteRole = SiteMemberRow['role'];

/** An invitation mailed to an address: the link carries `<id>.<secret>`; only the secret's hash is kept. */
export const siteInvitations = pgTable(
  'site_invitations',
  {
    id: text('id').primaryKey(),
    siteId: text('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    role: text('role', { enum: ['owner', 'developer', 'viewer'] }).notNull(),
    secretHash: text('secret_hash').notNull(),
    invitedBy: text('invited_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [uniqueIndex('site_invitations_site_email_idx').on(t.siteId, t.email)],
);

export type SiteInvitationRow = typeof siteInvitations.$inferSelect;

/** Custom domains: each host name serves one static site's live release on the edge. */
export const siteDomains = pgTable(
  'site_domains',
  {
    domain: text('domain').primaryKey(),
    siteId: text('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('site_domains_site_id_idx').on(t.siteId)],
);

export type SiteDomainRow = typeof siteDomains.$inferSelect;
