import { integer, jsonb, pgTable, primaryKey, text, timestamp, index } from 'drizzle-orm/pg-core';
import { users } from '../core/accounts/tables.js';
import { sites } from '../core/sites/tables.js';

/**
 * The answers of `POST /workspaces` calls made with an `Idempotency-Key`, per purchase key: a retry
 * with the same key and body gets the stored answer; another body under the same key is refused.
 */
export const purchaseIdempotency = pgTable(
  'purchase_idempotency',
  {
    credentialId: text('credential_id').notNull(),
    key: text('key').notNull(),
    bodyHash: text('body_hash').notNull(),
    status: integer('status').notNull(),
    response: jsonb('response').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.credentialId, t.key] })],
);

/**
 * The workspaces a purchase key provisioned: the only ones that key may read or change
 * (docs/decisions/0118-purchase-keys-scoped-and-owner-consent.md). `pending_owner_id` names an
 * existing account the workspace is offered to; the site has no owner until that account accepts.
 */
export const purchaseWorkspaces = pgTable(
  'purchase_workspaces',
  {
    siteId: text('site_id')
      .primaryKey()
      .references(() => sites.id, { onDelete: 'cascade' }),
    credentialId: text('credential_id').notNull(),
    pendingOwnerId: text('pending_owner_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('purchase_workspaces_credential_idx').on(t.credentialId),
    index('purchase_workspaces_pending_idx').on(t.pendingOwnerId),
  ],
);

/**
 * Every call to the purchase API and every form a platform administrator posts on the console's admin
 * pages (decision 0087): which key or account, what, on which workspace, when, and the answer's status.
 */
export const auditLog = pgTable(
  'audit_log',
  {
    id: text('id').primaryKey(),
    /** The purchase key's id; null when the call carried no valid key. */
    credentialId: text('credential_id'),
    /** The platform administrator who posted a console admin form; null for purchase API calls. */
    accountId: text('account_id'),
    method: text('method').notNull(),
    path: text('path').notNull(),
    /** The workspace (site id) the call named, if any. */
    target: text('target'),
    status: integer('status').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('audit_log_created_idx').on(t.createdAt, t.id)],
);

export type AuditRow = typeof auditLog.$inferSelect;
