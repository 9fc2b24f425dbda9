// New tickets in one statement: their numbers taken from the site's counter, the tickets, their
// history (created, and assigned when an agent was chosen), their first entries and the agents' turn
// in the round robin, as data-modifying CTEs. The counter's upsert locks the site's row until the
// transaction ends, so concurrent statements take turns; openings with no agent to choose commit on
// their own and go together, one batch per statement (decision 0102). The tickets come as one JSON
// array, so the text is the same for a batch of any size and is prepared once.
import { eq, getTableColumns, is, sql } from 'drizzle-orm';
import { PgTransaction } from 'drizzle-orm/pg-core';
import type { Database, Executor } from '../db/client.js';
import { preparedStatement } from '../db/prepared.js';
import { newId } from '../lib/ids.js';
import { SYSTEM, type Actor } from './history.js';
import {
  helpdeskAgents,
  helpdeskCounters,
  helpdeskEntries,
  helpdeskHistory,
  helpdeskTickets,
  type AttachmentRef,
  type ThreadEntryRow,
  type TicketRow,
} from './tables.js';

export interface NumberedTicket {
  /** The ticket's columns but its number and id (made here). */
  ticket: Pick<
    TicketRow,
    | 'subject'
    | 'priority'
    | 'categoryId'
    | 'requesterId'
    | 'channel'
    | 'tags'
    | 'followUpOf'
    | 'createdAt'
    | 'updatedAt'
  > &
    Partial<Pick<TicketRow, 'firstResponseMinutes' | 'resolutionMinutes' | 'firstResponseDueAt' | 'resolutionDueAt'>>;
  entry: {
    authorId: string;
    bodySource: string;
    bodyHtml: string;
    bodyText: string;
    messageId: string | null;
    attachments: AttachmentRef[];
  };
  /** Who opened it, for the `created` history row. */
  actor: Actor;
  /** The `created` row's from value (the ticket a follow-up follows). */
  from: unknown;
  /** The agent chosen under the site's assignment lock (assignment.ts), or null. */
  assigneeId: string | null;
}

interface NumberedRow {
  ticket: TicketRow;
  entry: ThreadEntryRow;
}

/**
 * Inserts a new ticket. In a transaction it is a statement of that transaction. On the database it
 * commits on its own, and openings of one site on this node that arrive while its statement runs
 * wait for the next, which numbers them together: the counter's row lock is then taken, and a commit
 * waited for, once per batch instead of once per ticket. A batch that fails is retried one ticket at
 * a time, so each opening gets its own answer (a repeated Message-ID's refusal, say).
 */
export function insertNumberedTicket(db: Executor, siteId: string, input: NumberedTicket): Promise<NumberedRow> {
  if (is(db, PgTransaction)) return insertNumberedTickets(db, siteId, [input]).then((rows) => rows[0]!);
  let queues = batchQueues.get(db);
  if (!queues) batchQueues.set(db, (queues = new Map()));
  return new Promise((resolve, reject) => {
    const queue = queues.get(siteId);
    if (queue) {
      queue.push({ input, resolve, reject });
      return;
    }
    queues.set(siteId, [{ input, resolve, reject }]);
    void drain(db, siteId, queues);
  });
}

interface Opening {
  input: NumberedTicket;
  resolve(row: NumberedRow): void;
  reject(error: unknown): void;
}

/** Per database, each site's openings waiting for its next statement (the one running is not here). */
const batchQueues = new WeakMap<Executor, Map<string, Opening[]>>();
/** At most this many tickets per statement (about 20 parameters each). */
const MAX_BATCH = 100;

/** Runs a site's queued openings batch after batch until none waits, then forgets the queue. */
async function drain(db: Executor, siteId: string, queues: Map<string, Opening[]>): Promise<void> {
  const queue = queues.get(siteId)!;
  while (queue.length > 0) {
    const batch = queue.splice(0, MAX_BATCH);
    try {
      const rows = await insertNumberedTickets(
        db,
        siteId,
        batch.map((opening) => opening.input),
      );
      batch.forEach((opening, i) => opening.resolve(rows[i]!));
    } catch (error) {
      if (batch.length === 1) batch[0]!.reject(error);
      else
        for (const opening of batch)
          await insertNumberedTickets(db, siteId, [opening.input]).then(
            (rows) => opening.resolve(rows[0]!),
            opening.reject,
          );
    }
  }
  queues.delete(siteId);
}

/** A ticket's fields as the statement reads them from its JSON array of rows. */
const ROW_COLUMNS = `i integer, id text, entry_id text, subject text, priority text, category_id text, assignee_id text, requester_id text,
  channel text, tags text[], follow_up_of text, created_at timestamptz, updated_at timestamptz,
  first_response_minutes integer, resolution_minutes integer, first_response_due_at timestamptz, resolution_due_at timestamptz,
  actor_kind text, actor_id text, from_value jsonb, created_value jsonb,
  author_id text, body_source text, body_html text, body_text text, message_id text, attachments jsonb`;

/**
 * One statement of fixed text for any number of tickets, which come as one JSON array: the counter
 * moves by their count and they take the numbers before its new value in order; each gets its
 * history (created, then assigned when an agent was chosen) and its first entry.
 */
function numberedInsert(db: Executor) {
  const siteId = sql.placeholder('siteId');
  const rows = sql.placeholder('rows');
  const numbered = db.$with('numbered', {}).as(
    sql`select r.*, (select last_number from counter) - count(*) over () + r.i as number
      from jsonb_to_recordset(${rows}::jsonb) as r(${sql.raw(ROW_COLUMNS)})`,
  );
  const counter = db.$with('counter', {}).as(
    sql`insert into ${helpdeskCounters} (site_id, last_number) values (${siteId}, jsonb_array_length(${rows}::jsonb))
      on conflict (site_id) do update set last_number = ${helpdeskCounters.lastNumber} + excluded.last_number returning last_number`,
  );
  const ticket = db.$with('ticket', getTableColumns(helpdeskTickets)).as(
    sql`insert into ${helpdeskTickets} (id, site_id, number, subject, priority, category_id, assignee_id, requester_id, channel, tags, follow_up_of,
        created_at, updated_at, first_response_minutes, resolution_minutes, first_response_due_at, resolution_due_at)
      select id, ${siteId}, number, subject, priority, category_id, assignee_id, requester_id, channel, coalesce(tags, '{}'), follow_up_of,
        created_at, updated_at, first_response_minutes, resolution_minutes, first_response_due_at, resolution_due_at
      from numbered order by i returning *`,
  );
  // The history rows take their ids in this order: each ticket's creation, then its assignment.
  const history = db.$with('history', {}).as(
    sql`insert into ${helpdeskHistory} (site_id, ticket_id, actor_kind, actor_id, event, from_value, to_value)
      select ${siteId}, id, kind, actor, event, from_value, to_value from (
        select i, 0 as step, id, actor_kind as kind, actor_id as actor, 'created' as event, from_value, created_value || jsonb_build_object('number', number) as to_value from numbered
        union all
        select i, 1, id, ${SYSTEM.kind}, ${SYSTEM.id}, 'assignee', null, to_jsonb(assignee_id) from numbered where assignee_id is not null
      ) events order by i, step`,
  );
  const entry = db.$with('entry', getTableColumns(helpdeskEntries)).as(
    sql`insert into ${helpdeskEntries} (id, site_id, ticket_id, author_kind, author_id, internal, body_source, body_html, body_text, message_id, attachments)
      select entry_id, ${siteId}, id, 'requester', author_id, false, body_source, body_html, body_text, message_id, attachments from numbered order by i
      returning *`,
  );
  const turn = db
    .$with('turn', {})
    .as(
      sql`update ${helpdeskAgents} set last_assigned_at = clock_timestamp() where member_id in (select assignee_id from numbered where assignee_id is not null)`,
    );
  return db
    .with(counter, numbered, ticket, history, entry, turn)
    .select()
    .from(ticket)
    .innerJoin(entry, eq(entry.ticketId, ticket.id));
}

/** The statement on the database, prepared once (src/db/prepared.ts); in a transaction it is built there. */
const numberedStatement = preparedStatement('helpdesk_numbered_insert', (db: Database) => numberedInsert(db));

/** One statement: the tickets numbered in order from the site's counter, with their history and entries. */
async function insertNumberedTickets(db: Executor, siteId: string, inputs: NumberedTicket[]): Promise<NumberedRow[]> {
  const rows = inputs.map(({ ticket, entry, actor, from, assigneeId }, i) => ({
    i: i + 1,
    id: newId(),
    entry_id: newId(),
    subject: ticket.subject,
    priority: ticket.priority,
    category_id: ticket.categoryId,
    assignee_id: assigneeId,
    requester_id: ticket.requesterId,
    channel: ticket.channel,
    tags: ticket.tags,
    follow_up_of: ticket.followUpOf,
    created_at: ticket.createdAt,
    updated_at: ticket.updatedAt,
    first_response_minutes: ticket.firstResponseMinutes ?? null,
    resolution_minutes: ticket.resolutionMinutes ?? null,
    first_response_due_at: ticket.firstResponseDueAt ?? null,
    resolution_due_at: ticket.resolutionDueAt ?? null,
    actor_kind: actor.kind,
    actor_id: actor.id,
    from_value: from,
    created_value: {
      channel: ticket.channel,
      priority: ticket.priority,
      category_id: ticket.categoryId,
      tags: ticket.tags,
    },
    author_id: entry.authorId,
    body_source: entry.bodySource,
    body_html: entry.bodyHtml,
    body_text: entry.bodyText,
    message_id: entry.messageId,
    attachments: entry.attachments,
  }));
  const values = { siteId, rows: JSON.stringify(rows) };
  const found = await (is(db, PgTransaction)
    ? numberedInsert(db).execute(values)
    : numberedStatement(db as Database, undefined).execute(values));
  const byTicket = new Map(found.map((row) => [row.ticket.id, row]));
  return rows.map(({ id }) => byTicket.get(id)!);
}
