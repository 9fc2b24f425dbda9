import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { sites } from '../core/sites/tables.js';
import type { SiteOptions } from './site-options.js';

/** Rules read from `_headers` and `_redirects` at ingest, applied by the edge. */
export interface ReleaseRules {
  headers: { path: string; headers: [string, string][] }[];
  redirects: { from: string; to: string; status: number; force: boolean }[];
  /** From `_blume.json`; absent on releases made before it existed (the defaults apply). */
  options?: SiteOptions;
}

/** The commit a build came from (push builds). */
export interface GitCommit {
  repository: string;
  branch: string;
  commit: string;
}

/** An immutable release: a set of files, each a content-addressed blob. */
export const releases = pgTable(
  'deploy_releases',
  {
    id: text('id').primaryKey(),
    siteId: text('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    /** archive: uploaded as built; markdown: built by Blume from Markdown; static: a repository folder as is. */
    source: text('source', { enum: ['archive', 'markdown', 'static'] }).notNull(),
    fileCount: integer('file_count').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    newBlobs: integer('new_blobs').notNull(),
    /** Preview-only releases (branch builds) are refused by promote. */
    promotable: boolean('promotable').notNull().default(true),
    buildId: text('build_id'),
    git: jsonb('git').$type<GitCommit | null>(),
    /** Who made it, in words: `deploy token "ci"`, `console user "ada"`, `push by "ada"`; null before 0052. */
    createdBy: text('created_by'),
    /** Milliseconds from the build's start to this release (built releases). */
    buildMs: integer('build_ms'),
    rules: jsonb('rules').$type<ReleaseRules>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('deploy_releases_site_idx').on(t.siteId, t.createdAt)],
);

export const releaseFiles = pgTable(
  'deploy_release_files',
  {
    releaseId: text('release_id')
      .notNull()
      .references(() => releases.id, { onDelete: 'cascade' }),
    /** Path inside the site without the leading slash, e.g. `docs/index.html`. */
    path: text('path').notNull(),
    /** sha256 hex of the content; the blob key derives from it. */
    hash: text('hash').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    contentType: text('content_type').notNull(),
    /** Sizes of the precompressed variants made at ingest, null when none was worth keeping. */
    gzipSize: bigint('gzip_size', { mode: 'number' }),
    brotliSize: bigint('brotli_size', { mode: 'number' }),
  },
  (t) => [primaryKey({ columns: [t.releaseId, t.path] }), index('deploy_release_files_hash_idx').on(t.hash)],
);

/** One row per site: the live and stage pointers and the preview password. */
export const siteAliases = pgTable('deploy_site_aliases', {
  siteId: text('site_id')
    .primaryKey()
    .references(() => sites.id, { onDelete: 'cascade' }),
  liveReleaseId: text('live_release_id').references(() => releases.id, { onDelete: 'set null' }),
  /** The promotion-log row that made the live release live; rollback follows its `previous`. */
  livePromotionId: bigint('live_promotion_id', { mode: 'number' }),
  stageReleaseId: text('stage_release_id').references(() => releases.id, { onDelete: 'set null' }),
  /** Basic-auth password (user `preview`) of stage and preview hosts; shown to deploy-token holders. */
  previewPassword: text('preview_password').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * One row, counted up by every change of any site's aliases in the same transaction (under the
 * row's lock, so in commit order). Each node reads it every second and drops its cached pointers when
 * it moved: a lost pub/sub message cannot keep a node on an old release longer than that
 * (docs/decisions/0069-lost-invalidations.md).
 */
export const pointerEpoch = pgTable('deploy_pointer_epoch', {
  id: integer('id').primaryKey(),
  value: bigint('value', { mode: 'number' }).notNull(),
});

/**
 * Promotion log, a linked stack: each row names the row that was live before it. Promote pushes,
 * rollback makes the previous row's release live again with that row's own predecessor, so repeated
 * rollbacks walk further back.
 */
export const promotions = pgTable(
  'deploy_promotions',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    siteId: text('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    releaseId: text('release_id')
      .notNull()
      .references(() => releases.id, { onDelete: 'cascade' }),
    action: text('action', { enum: ['promote', 'rollback'] }).notNull(),
    previousId: bigint('previous_id', { mode: 'number' }),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [index('deploy_promotions_site_idx').on(t.siteId, t.id)],
);

/**
 * Blobs an upload is about to write, recorded (and committed) before the first lands and removed
 * with the release's (or build's) commit or the upload's own cleanup. A row whose upload died
 * (kill -9, a node lost) names what may lie unreferenced in the blob store; the sweep removes it
 * (decision 0055).
 */
export const blobIntents = pgTable('deploy_blob_intents', {
  id: text('id').primaryKey(),
  /** Content blobs, removed by the sweep unless a committed release references them. */
  hashes: jsonb('hashes').$type<string[]>().notNull(),
  /** Blobs under keys of their own (a build's uploaded source): nothing else references them. */
  keys: jsonb('keys').$type<string[]>().notNull().default([]),
  createdAt: timestamp('created_at', { withTimezone: true })
    .notNull()
    .default(sql`now()`),
});

export type ReleaseRow = typeof releases.$inferSelect;
export type ReleaseFileRow = typeof releaseFiles.$inferSelect;
export type SiteAliasRow = typeof siteAliases.$inferSelect;
export type PromotionRow = typeof promotions.$inferSelect;

/**
 * Environment variables of a site's builds, per deploy context (decision 0142): `all`, or
 * `production` / `preview`, which override `all` for builds of that context. Every value is sealed
 * with SECRET_KEY; a secret one is never read back by any API or page, only handed to builds.
 */
export const siteEnvVars = pgTable(
  'site_env_vars',
  {
    siteId: text('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    context: text('context', { enum: ['all', 'production', 'preview'] }).notNull(),
    valueSealed: text('value_sealed').notNull(),
    secret: boolean('secret').notNull().default(false),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.siteId, t.name, t.context] })],
);

export type SiteEnvVarRow = typeof siteEnvVars.$inferSelect;
export type DeployContext = Exclude<SiteEnvVarRow['context'], 'all'>;
