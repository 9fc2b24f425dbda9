import { index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { sites } from '../core/sites/tables.js';

export const JOB_STATES = ['queued', 'running', 'failed'] as const;
export type JobState = (typeof JOB_STATES)[number];

/**
 * The one durable job queue (docs/decisions/0039-job-runner.md). A worker claims a due queued row
 * (`for update skip locked`), holds a lease it renews while the handler runs, and deletes the row
 * when the handler ends or the job is canceled. A failed attempt waits `run_at` and is tried again
 * until `max_attempts`; then the row stays `failed` with its last error for the operator, for 30 days.
 */
export const jobs = pgTable(
  'jobs',
  {
    id: text('id').primaryKey(),
    /** `<domain>.<what>`, e.g. `deploy.build`; a handler registered by that domain runs it. */
    kind: text('kind').notNull(),
    payload: jsonb('payload').$type<unknown>().notNull(),
    /** The site the job works for, so deleting a site drops its pending work. */
    siteId: text('site_id').references(() => sites.id, { onDelete: 'cascade' }),
    state: text('state', { enum: JOB_STATES }).notNull().default('queued'),
    attempts: integer('attempts').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull().default(1),
    /** Not claimed before this time (scheduled work, or the back-off after a failed attempt); on a failed job, when it failed. */
    runAt: timestamp('run_at', { withTimezone: true }).notNull().defaultNow(),
    leaseOwner: text('lease_owner'),
    leaseExpiresAt: timestamp('lease_expires_at', { withTimezone: true }),
    /** Set on a running job; its worker aborts the handler when it hears of it. */
    cancelRequestedAt: timestamp('cancel_requested_at', { withTimezone: true }),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('jobs_due_idx').on(t.kind, t.state, t.runAt), index('jobs_lease_idx').on(t.state, t.leaseExpiresAt)],
);

export type JobRow = typeof jobs.$inferSelect;
