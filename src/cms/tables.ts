// Content API data of community sites: content types (the model) and entries. Entry fields live in
// one JSONB `data` column; each filterable field of a type gets its own partial expression index,
// made by the type service when the type is created or changed (docs/decisions/0042-cms-storage.md).
import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { sites } from '../core/sites/tables.js';
import { forumMembers } from '../forum/tables.js';
import type { FieldDefinition, RemovedField } from './fields.js';

export const cmsContentTypes = pgTable(
  'cms_content_types',
  {
    id: text('id').primaryKey(),
    siteId: text('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    slug: text('slug').notNull(),
    name: text('name').notNull(),
    /** `articles` is made by Blume and cannot be changed or deleted. */
    builtin: text('builtin', { enum: ['articles'] }),
    fields: jsonb('fields').$type<FieldDefinition[]>().notNull(),
    /** Fields taken out of the type; their values stay in the entries and come back if the field does. */
    removedFields: jsonb('removed_fields')
      .$type<RemovedField[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('cms_content_types_slug_key').on(t.siteId, t.slug)],
);

export const cmsEntries = pgTable(
  'cms_entries',
  {
    id: text('id').primaryKey(),
    siteId: text('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    typeId: text('type_id')
      .notNull()
      .references(() => cmsContentTypes.id, { onDelete: 'cascade' }),
    slug: text('slug'),
    status: text('status', { enum: ['draft', 'published'] }).notNull(),
    data: jsonb('data').$type<Record<string, unknown>>().notNull(),
    /** Sanitized HTML of the Markdown fields, rendered once on write. */
    html: jsonb('html')
      .$type<Record<string, string>>()
      .notNull()
      .default(sql`'{}'::jsonb`),
    /** Plain text of the text and Markdown fields, for `q=` full-text search. */
    searchText: text('search_text').notNull().default(''),
    /** Bumped by every write: the entry's ETag. */
    version: integer('version').notNull().default(1),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    /** Set when first published; a time in the future schedules the entry. */
    publishedAt: timestamp('published_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('cms_entries_slug_key').on(t.typeId, t.slug),
    index('cms_entries_published_idx').on(t.typeId, t.status, t.publishedAt, t.id),
    index('cms_entries_created_idx').on(t.typeId, t.createdAt, t.id),
    index('cms_entries_updated_idx').on(t.typeId, t.updatedAt, t.id),
    index('cms_entries_search_idx').using('gin', sql`to_tsvector('english', ${t.searchText})`),
  ],
);

/**
 * Every save of an entry as it was saved: its field values, slug and state, who saved it and when
 * (docs/decisions/0139-cms-revisions-and-preview-links.md). The entry's `version` numbers them; the
 * last MAX_REVISIONS of each entry are kept, and they go with the entry.
 */
export const cmsEntryRevisions = pgTable(
  'cms_entry_revisions',
  {
    entryId: text('entry_id')
      .notNull()
      .references(() => cmsEntries.id, { onDelete: 'cascade' }),
    siteId: text('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    slug: text('slug'),
    status: text('status', { enum: ['draft', 'published'] }).notNull(),
    publishedAt: timestamp('published_at', { withTimezone: true }),
    data: jsonb('data').$type<Record<string, unknown>>().notNull(),
    /** Who saved: a member in the editor, an account's session or an API key. */
    authorKind: text('author_kind', { enum: ['member', 'account', 'api_key'] }).notNull(),
    authorId: text('author_id').notNull(),
    /** The author's name when they saved (a member's username, an account's e-mail, a key's name). */
    authorName: text('author_name').notNull(),
    /** The revision this one restored, if it was a restore. */
    restoredFrom: integer('restored_from'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.entryId, t.version] })],
);

export type EntryRevisionRow = typeof cmsEntryRevisions.$inferSelect;

export type ContentTypeRow = typeof cmsContentTypes.$inferSelect;
export type EntryRow = typeof cmsEntries.$inferSelect;

export const WEBHOOK_EVENTS = ['entry.published', 'entry.updated', 'entry.deleted'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** Per-site subscriptions to entry events; the signing secret is stored sealed with SECRET_KEY. */
export const cmsWebhooks = pgTable(
  'cms_webhooks',
  {
    id: text('id').primaryKey(),
    siteId: text('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    events: text('events').array().notNull(),
    secret: text('secret').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('cms_webhooks_site_idx').on(t.siteId)],
);

/**
 * One event sent to one subscription: written with the entry write that causes it, sent by a
 * `cms.webhook` job, kept as the delivery log admins read.
 */
export const cmsWebhookDeliveries = pgTable(
  'cms_webhook_deliveries',
  {
    id: text('id').primaryKey(),
    siteId: text('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    webhookId: text('webhook_id')
      .notNull()
      .references(() => cmsWebhooks.id, { onDelete: 'cascade' }),
    event: text('event', { enum: WEBHOOK_EVENTS }).notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    status: text('status', { enum: ['pending', 'delivered', 'failed'] })
      .notNull()
      .default('pending'),
    attempts: integer('attempts').notNull().default(0),
    /** The receiver's HTTP status of the last attempt, null when it could not be reached. */
    lastStatus: integer('last_status'),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
  },
  (t) => [index('cms_webhook_deliveries_hook_idx').on(t.webhookId, t.createdAt)],
);

export type WebhookRow = typeof cmsWebhooks.$inferSelect;
export type WebhookDeliveryRow = typeof cmsWebhookDeliveries.$inferSelect;

/** Files uploaded through `POST /media`, served by the site at `/media/{id}`; bytes in the blob store at `cms-media/{id}`. */
export const cmsMedia = pgTable(
  'cms_media',
  {
    id: text('id').primaryKey(),
    siteId: text('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    /** Hex SHA-256 of the bytes (the served ETag). */
    sha256: text('sha256').notNull(),
    filename: text('filename').notNull(),
    contentType: text('content_type').notNull(),
    size: integer('size').notNull(),
    /** Text that stands for an image where it cannot be seen ('' until an editor writes it). */
    alt: text('alt').notNull().default(''),
    /** Pixel size read from an image's bytes at upload; null for PDF (and uploads from before 0051). */
    width: integer('width'),
    height: integer('height'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('cms_media_site_idx').on(t.siteId, t.createdAt, t.id)],
);

export type MediaRow = typeof cmsMedia.$inferSelect;

/** Members who write content in the editor without being admins (docs/decisions/0048-cms-editor.md). */
export const cmsEditors = pgTable(
  'cms_editors',
  {
    memberId: text('member_id')
      .primaryKey()
      .references(() => forumMembers.id, { onDelete: 'cascade' }),
    siteId: text('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('cms_editors_site_idx').on(t.siteId)],
);

export type CmsEditorRow = typeof cmsEditors.$inferSelect;

/** The columns a member chose for a type's entry list in the editor (field names, in order). */
export const cmsListColumns = pgTable(
  'cms_list_columns',
  {
    siteId: text('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    memberId: text('member_id')
      .notNull()
      .references(() => forumMembers.id, { onDelete: 'cascade' }),
    typeSlug: text('type_slug').notNull(),
    columns: jsonb('columns').$type<string[]>().notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.memberId, t.typeSlug] }), index('cms_list_columns_site_idx').on(t.siteId)],
);
