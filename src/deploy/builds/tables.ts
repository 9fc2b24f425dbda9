import { bigint, boolean, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { sites } from '../../core/sites/tables.js';
import { releases, type GitCommit } from '../tables.js';

export const BUILD_STATES = ['queued', 'running', 'succeeded', 'failed', 'canceled'] as const;
export type BuildState = (typeof BUILD_STATES)[number];

/**
 * Builds and their outcome. Each queued or running build has a job of kind `deploy.build` under the
 * same id (src/jobs/): the job runner claims it, holds its lease and hears cancels; this row is the
 * build's record (see queue.ts). A queued build is canceled at once; a running one records the
 * request and its worker stops it.
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
    /** Who asked for the build, in words; its release carries it on as `created_by`. */
    requestedBy: text('requested_by'),
    releaseId: text('release_id').references(() => releases.id, { onDelete: 'set null' }),
    error: text('error'),
    attempts: integer('attempts').notNull().default(0),
    /** The worker running the build; its lease lives on the build's job (src/jobs/). */
    leaseOwner: text('lease_owner'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    /** Set by the cancel call on a running build; its worker stops it when it notices (queue.ts). */
    cancelRequestedAt: timestamp('cancel_requested_at', { withTimezone: true }),
    /** Who asked to cancel, for the log line (e.g. `deploy token "ci"`). */
    cancelRequestedBy: text('cancel_requested_by'),
  },
  (t) => [
    index('deploy_builds_site_idx').on(t.siteId, t.createdAt),
    index('deploy_builds_state_idx').on(t.state, t.createdAt),
  ],
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
