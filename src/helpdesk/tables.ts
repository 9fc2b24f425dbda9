// Help desk data of community sites: tickets with their thread, requesters (contacts), categories,
// agents (forum members marked as agents), SLA policies per priority and the append-only history.
// Every row carries its site id and every query filters on it.
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import {
  bigint,
  boolean,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { sites } from '../core/sites/tables.js';
import { forumMembers } from '../forum/tables.js';

const siteRef = () =>
  text('site_id')
    .notNull()
    .references(() => sites.id, { onDelete: 'cascade' });

export const TICKET_STATUSES = ['new', 'open', 'pending', 'on_hold', 'solved', 'closed'] as const;
export const TICKET_PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
export const TICKET_CHANNELS = ['web', 'email', 'api'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];
export type TicketPriority = (typeof TICKET_PRIORITIES)[number];
export type TicketChannel = (typeof TICKET_CHANNELS)[number];

/** The last ticket number given out per site: the row lock of its upsert orders concurrent openings. */
export const helpdeskCounters = pgTable('helpdesk_counters', {
  siteId: text('site_id')
    .primaryKey()
    .references(() => sites.id, { onDelete: 'cascade' }),
  lastNumber: integer('last_number').notNull(),
});

export const helpdeskCategories = pgTable(
  'helpdesk_categories',
  {
    id: text('id').primaryKey(),
    siteId: siteRef(),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    /** Archived: no longer offered for new triage; its tickets keep it. */
    archivedAt: timestamp('archived_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('helpdesk_categories_name_key').on(t.siteId, sql`lower(${t.name})`)],
);

/** Whoever asks for help: an e-mail address, linked to a forum member when one has that address. */
export const helpdeskContacts = pgTable(
  'helpdesk_contacts',
  {
    id: text('id').primaryKey(),
    siteId: siteRef(),
    /** Lower case: one contact per address. */
    email: text('email').notNull(),
    name: text('name'),
    memberId: text('member_id').references(() => forumMembers.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('helpdesk_contacts_email_key').on(t.siteId, t.email),
    index('helpdesk_contacts_member_idx').on(t.memberId),
  ],
);

/** Forum members marked as agents; the agent's id is the member's id. */
export const helpdeskAgents = pgTable(
  'helpdesk_agents',
  {
    memberId: text('member_id')
      .primaryKey()
      .references(() => forumMembers.id, { onDelete: 'cascade' }),
    siteId: siteRef(),
    /** Open tickets (new, open, pending, on_hold) auto-assignment gives the agent at most. */
    capacity: integer('capacity').notNull().default(10),
    available: boolean('available').notNull().default(true),
    /** Round robin: the agent given a ticket longest ago (or never) is next. */
    lastAssignedAt: timestamp('last_assigned_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('helpdesk_agents_site_idx').on(t.siteId)],
);

/** The categories an agent serves. */
export const helpdeskAgentCategories = pgTable(
  'helpdesk_agent_categories',
  {
    agentId: text('agent_id')
      .notNull()
      .references(() => helpdeskAgents.memberId, { onDelete: 'cascade' }),
    categoryId: text('category_id')
      .notNull()
      .references(() => helpdeskCategories.id, { onDelete: 'cascade' }),
  },
  (t) => [
    primaryKey({ columns: [t.agentId, t.categoryId] }),
    index('helpdesk_agent_categories_category_idx').on(t.categoryId),
  ],
);

/** Targets per priority, in minutes of calendar time (docs/decisions/0050-helpdesk-sla.md). */
export const helpdeskSlaPolicies = pgTable(
  'helpdesk_sla_policies',
  {
    siteId: siteRef(),
    priority: text('priority', { enum: TICKET_PRIORITIES }).notNull(),
    firstResponseMinutes: integer('first_response_minutes').notNull(),
    resolutionMinutes: integer('resolution_minutes').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.siteId, t.priority] })],
);

/**
 * A ticket's next SLA due time while it is unsolved: the first response's until it came, then the
 * resolution's; null once solved. The list's `sort=sla_due` and its index say it alike.
 */
export const slaDueAt = (t: {
  solvedAt: SQLWrapper;
  firstResponseAt: SQLWrapper;
  firstResponseDueAt: SQLWrapper;
  resolutionDueAt: SQLWrapper;
}): SQL =>
  sql`(case when ${t.solvedAt} is null then least(case when ${t.firstResponseAt} is null then ${t.firstResponseDueAt} end, ${t.resolutionDueAt}) end)`;

export const helpdeskTickets = pgTable(
  'helpdesk_tickets',
  {
    id: text('id').primaryKey(),
    siteId: siteRef(),
    /** Sequential per site, from helpdesk_counters. */
    number: integer('number').notNull(),
    subject: text('subject').notNull(),
    status: text('status', { enum: TICKET_STATUSES }).notNull().default('new'),
    priority: text('priority', { enum: TICKET_PRIORITIES }).notNull().default('normal'),
    categoryId: text('category_id').references(() => helpdeskCategories.id, { onDelete: 'set null' }),
    assigneeId: text('assignee_id').references(() => helpdeskAgents.memberId, { onDelete: 'set null' }),
    requesterId: text('requester_id')
      .notNull()
      .references(() => helpdeskContacts.id, { onDelete: 'cascade' }),
    channel: text('channel', { enum: TICKET_CHANNELS }).notNull(),
    tags: text('tags')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** The closed ticket a requester's late reply followed up (docs/decisions/0049-helpdesk-closed-replies.md). */
    followUpOf: text('follow_up_of'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    firstResponseAt: timestamp('first_response_at', { withTimezone: true }),
    solvedAt: timestamp('solved_at', { withTimezone: true }),
    closedAt: timestamp('closed_at', { withTimezone: true }),
    /** SLA targets copied from the policy of the ticket's priority, and the due times they give. */
    firstResponseMinutes: integer('first_response_minutes'),
    resolutionMinutes: integer('resolution_minutes'),
    firstResponseDueAt: timestamp('first_response_due_at', { withTimezone: true }),
    resolutionDueAt: timestamp('resolution_due_at', { withTimezone: true }),
    /** Set while pending or on hold: the SLA clock stopped then; due times move on by the pause when it resumes. */
    slaPausedAt: timestamp('sla_paused_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('helpdesk_tickets_number_key').on(t.siteId, t.number),
    index('helpdesk_tickets_site_updated_idx').on(t.siteId, t.updatedAt, t.id),
    index('helpdesk_tickets_site_status_idx').on(t.siteId, t.status, t.updatedAt, t.id),
    index('helpdesk_tickets_assignee_idx').on(t.assigneeId, t.status),
    index('helpdesk_tickets_requester_idx').on(t.requesterId),
    index('helpdesk_tickets_category_idx').on(t.categoryId),
    // A category's tickets by status and priority: the filtered lists and their counts, from the index.
    index('helpdesk_tickets_site_category_idx').on(t.siteId, t.categoryId, t.status, t.priority),
    index('helpdesk_tickets_site_created_idx').on(t.siteId, t.createdAt),
    index('helpdesk_tickets_tags_idx').using('gin', t.tags),
    // `sort=sla_due` reads this in order: unsolved tickets by their next due time, solved ones (null) last.
    index('helpdesk_tickets_site_sla_due_idx').on(t.siteId, slaDueAt(t), t.id),
    // `q=` searches the subject here and each entry in helpdesk_entries_search_idx (ticket-list.ts).
    index('helpdesk_tickets_subject_search_idx').using('gin', sql`to_tsvector('english', ${t.subject})`),
  ],
);

/**
 * The characters of an entry's text that full-text search indexes: an entry's own index stays far
 * below PostgreSQL's 1 MiB tsvector limit, whatever the thread grows to (docs/decisions/0114-helpdesk-inbound-limits.md).
 */
export const SEARCH_CHARS_PER_ENTRY = 100_000;

/** What `q=` matches an entry against; the index and the query must say it alike. */
export const entrySearchVector = (bodyText: SQLWrapper): SQL =>
  sql`to_tsvector('english', left(${bodyText}, ${sql.raw(String(SEARCH_CHARS_PER_ENTRY))}))`;

export interface AttachmentRef {
  /** Key in the blob store. */
  key: string;
  filename: string;
  content_type: string;
  size: number;
  /** An inline part's Content-ID (no angle brackets): the mail's HTML shows it where it says `cid:`. */
  content_id?: string;
  /**
   * A file the desk made of the mail itself: its HTML body (`html_body`, shown to agents sanitized)
   * or the whole text of a reply whose quote was cut (`original_text`).
   */
  role?: 'html_body' | 'original_text';
}

/** The thread: public replies and internal notes, oldest first. */
export const helpdeskEntries = pgTable(
  'helpdesk_entries',
  {
    id: text('id').primaryKey(),
    siteId: siteRef(),
    ticketId: text('ticket_id')
      .notNull()
      .references(() => helpdeskTickets.id, { onDelete: 'cascade' }),
    authorKind: text('author_kind', { enum: ['requester', 'agent'] }).notNull(),
    /** The contact (requester entries) or the agent's member id (agent entries). */
    authorId: text('author_id'),
    internal: boolean('internal').notNull().default(false),
    bodySource: text('body_source').notNull(),
    /** Sanitized HTML rendered once on write, as forum posts. */
    bodyHtml: text('body_html').notNull(),
    bodyText: text('body_text').notNull(),
    /** The e-mail Message-ID (with its angle brackets) the entry came in or went out with. */
    messageId: text('message_id'),
    attachments: jsonb('attachments')
      .$type<AttachmentRef[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('helpdesk_entries_ticket_idx').on(t.ticketId, t.createdAt, t.id),
    index('helpdesk_entries_search_idx').using('gin', entrySearchVector(t.bodyText)),
    // A delivery of a message already on file finds it instead of adding it twice.
    uniqueIndex('helpdesk_entries_message_key')
      .on(t.siteId, t.messageId)
      .where(sql`${t.messageId} is not null`),
  ],
);

export const HISTORY_EVENTS = [
  'created',
  'status',
  'priority',
  'category',
  'assignee',
  'tags',
  'reply',
  'note',
  'draft',
  'reopened',
  'follow_up',
  'undelivered',
  /** Merged into another ticket (to: its id and number); `merged_in` on that ticket names what came in. */
  'merged',
  'merged_in',
] as const;
export type HistoryEvent = (typeof HISTORY_EVENTS)[number];
export const ACTOR_KINDS = ['member', 'account', 'api_key', 'requester', 'system'] as const;
export type ActorKind = (typeof ACTOR_KINDS)[number];

/** Every change of a ticket, appended in the transaction of the change; a trigger refuses updates. */
export const helpdeskHistory = pgTable(
  'helpdesk_history',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    siteId: siteRef(),
    ticketId: text('ticket_id')
      .notNull()
      .references(() => helpdeskTickets.id, { onDelete: 'cascade' }),
    actorKind: text('actor_kind', { enum: ACTOR_KINDS }).notNull(),
    actorId: text('actor_id'),
    event: text('event', { enum: HISTORY_EVENTS }).notNull(),
    fromValue: jsonb('from_value'),
    toValue: jsonb('to_value'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('helpdesk_history_ticket_idx').on(t.ticketId, t.id),
    index('helpdesk_history_site_idx').on(t.siteId, t.createdAt, t.event),
  ],
);

/**
 * The tickets report's counts of one closed UTC day, summed from the history once the day is over
 * (reports.ts, docs/decisions/0100-helpdesk-at-size.md). `events` counts every history row of the day.
 */
export const helpdeskReportDays = pgTable(
  'helpdesk_report_days',
  {
    siteId: siteRef(),
    day: date('day', { mode: 'string' }).notNull(),
    events: integer('events').notNull(),
    created: integer('created').notNull(),
    solved: integer('solved').notNull(),
    reopened: integer('reopened').notNull(),
    agentReplies: integer('agent_replies').notNull(),
    requesterReplies: integer('requester_replies').notNull(),
  },
  (t) => [primaryKey({ columns: [t.siteId, t.day] })],
);

/**
 * Mailgun signature tokens already taken, per site, while their signature is fresh: Mailgun signs a
 * token and a timestamp, not the content, so a token carries one request body only (inbound-signatures.ts).
 */
export const helpdeskInboundTokens = pgTable(
  'helpdesk_inbound_tokens',
  {
    siteId: siteRef(),
    token: text('token').notNull(),
    /** SHA-256 of the request body first signed with the token: the same body again is a retry. */
    bodyDigest: text('body_digest').notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.siteId, t.token] }),
    index('helpdesk_inbound_tokens_received_idx').on(t.siteId, t.receivedAt),
  ],
);

/** AI reply drafts kept on the ticket for an agent to edit and send; never sent by Blume. */
export const helpdeskDrafts = pgTable(
  'helpdesk_drafts',
  {
    id: text('id').primaryKey(),
    siteId: siteRef(),
    ticketId: text('ticket_id')
      .notNull()
      .references(() => helpdeskTickets.id, { onDelete: 'cascade' }),
    body: text('body').notNull(),
    model: text('model').notNull(),
    createdBy: text('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('helpdesk_drafts_ticket_idx').on(t.ticketId, t.createdAt)],
);

/** An agent's saved ticket lists in the inbox: a name and the list's filters and sort (ui/saved-views.ts). */
export const helpdeskSavedViews = pgTable(
  'helpdesk_saved_views',
  {
    id: text('id').primaryKey(),
    siteId: siteRef(),
    memberId: text('member_id')
      .notNull()
      .references(() => forumMembers.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** The ticket list's query: filter and sort parameters as the API's list takes them. */
    query: jsonb('query').$type<Record<string, string>>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('helpdesk_saved_views_name_key').on(t.memberId, sql`lower(${t.name})`)],
);

/** The desk's snippet library: replies an agent inserts into the reply box, placeholders filled for the ticket. */
export const helpdeskCannedReplies = pgTable(
  'helpdesk_canned_replies',
  {
    id: text('id').primaryKey(),
    siteId: siteRef(),
    name: text('name').notNull(),
    /** Markdown with placeholders such as {{requester.name}} (canned-replies.ts). */
    body: text('body').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('helpdesk_canned_replies_name_key').on(t.siteId, sql`lower(${t.name})`)],
);

export type CannedReplyRow = typeof helpdeskCannedReplies.$inferSelect;
export type TicketRow = typeof helpdeskTickets.$inferSelect;
/** A ticket as lists read it. */
export type ListedTicketRow = TicketRow;
export type ThreadEntryRow = typeof helpdeskEntries.$inferSelect;
export type ContactRow = typeof helpdeskContacts.$inferSelect;
/** A row of a ticket list: the ticket and the requester's name and address. */
export interface ListedTicket {
  ticket: ListedTicketRow;
  requester: Pick<ContactRow, 'id' | 'email' | 'name'>;
}
export type CategoryRow = typeof helpdeskCategories.$inferSelect;
export type AgentRow = typeof helpdeskAgents.$inferSelect;
export type HistoryRow = typeof helpdeskHistory.$inferSelect;
export type DraftRow = typeof helpdeskDrafts.$inferSelect;
export type SavedViewRow = typeof helpdeskSavedViews.$inferSelect;
