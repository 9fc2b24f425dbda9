import { bigint, boolean, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { sites } from '../../core/sites/tables.js';
import { releases, type GitCommit } from '../tables.js';

export const BUILD_STATES = ['queued', 'running', 'succeeded', 'failed', 'canceled'] as const;
export type BuildState = (typeof BUILD_STATES)[number];

/**
 * The durable build queue. A worker claims a queued row (`for update skip locked`), holds a lease it
 * renews while the build runs, and finishes the row; a running row whose lease lapsed belongs to a
 * dead worker and is failed by whichever worker notices (see queue.ts). A queued row is canceled at
 * once; a running one records the request and its worker stops it.
 */
export const builds = pgTable(
  'deploy_builds',
  {
    id: text('id').primaryKey(),
    siteId: text('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    state: text('state', { enum: BUILD_STATES }).notNull().default('queued'),
    trigger: text('trigger', { enum: ['upload', 'push'] }).notNull(),
    /** markdown: run the docs builder; static: ingest the folder as is. */
    kind: text('kind', { enum: ['markdown', 'static'] }).notNull(),
    git: jsonb('git').$type<GitCommit | null>(),
    /** Folder inside the repository (push builds); '' is the root. */
    path: text('path').notNull().default(''),
    /** Blob key of the uploaded source (upload builds); removed when the build ends. */
    inputKey: text('input_key'),
    promotable: boolean('promotable').notNull().default(true),
    releaseId: text('release_id').references(() => releases.id, { onDelete: 'set null' }),
    error: text('error'),
    attempts: integer('attempts').notNull().default(0),
    leaseOwner: text('lease_owner'),
    leaseExpiresAt: timestamp('lease_expires_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    /** Set by the cancel call on a running build; its worker stops it when it notices (queue.ts). */
    cancelRequestedAt: timestamp('cancel_requested_at', { withTimezone: true }),
    /** Who asked to cancel, for the log line (e.g. `deploy token "ci"`). */
    cancelRequestedBy: text('cancel_requested_by'),
  },
  (t) => [index('deploy_builds_site_idx').on(t.siteId, t.createdAt), index('deploy_builds_state_idx').on(t.state, t.createdAt)],
);

/** Build logs, one row per line, readable while the build runs. */
export const buildLogs = pgTable(
  'deploy_build_logs',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    buildId: text('build_id')
      .notNull()
      .references(() => builds.id, { onDelete: 'cascade' }),
    at: timestamp('at', { withTimezone: true }).notNull(),
    stream: text('stream', { enum: ['stdout', 'stderr', 'sandbox', 'blume'] }).notNull(),
    line: text('line').notNull(),
  },
  (t) => [index('deploy_build_logs_build_idx').on(t.buildId, t.id)],
);

export type BuildRow = typeof builds.$inferSelect;
export type BuildLogRow = typeof buildLogs.$inferSelect;
