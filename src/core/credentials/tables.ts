import { sql } from 'drizzle-orm';
import { index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { sites } from '../sites/tables.js';
import { CREDENTIAL_KINDS } from '../../lib/credential-format.js';

/**
 * Every credential type in one table: deploy tokens, API keys, forum tokens and purchase keys.
 * `subject_id` is the account (platform user) or forum member the credential acts as, by kind.
 */
export const credentials = pgTable(
  'credentials',
  {
    id: text('id').primaryKey(),
    kind: text('kind', { enum: CREDENTIAL_KINDS }).notNull(),
    siteId: text('site_id').references(() => sites.id, { onDelete: 'cascade' }),
    subjectId: text('subject_id'),
    name: text('name').notNull(),
    secretHash: text('secret_hash').notNull(),
    scopes: text('scopes')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [index('credentials_site_kind_idx').on(t.siteId, t.kind), index('credentials_subject_idx').on(t.subjectId)],
);

export type CredentialRow = typeof credentials.$inferSelect;
