// New tickets in one statement: their numbers taken from the site's counter, the tickets, their
// history (created, and assigned when an agent was chosen), their first entries and the agents' turn
// in the round robin, as data-modifying CTEs. The counter's upsert locks the site's row until the
// transaction ends, so concurrent statements take turns; openings with no agent to choose commit on
// their own and go together, one batch per statement (decision 0102).
import { eq, inArray, is, sql } from 'drizzle-orm';
import { PgTransaction } from 'drizzle-orm/pg-core';
import type { Executor } from '../db/client.js';
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
  ticket: Omit<typeof helpdeskTickets.$inferInsert, 'id' | 'number' | 'siteId'> & { requesterId: string; channel: TicketRow['channel'] };
  entry: { authorId: string; bodySource: string; bodyHtml: string; bodyText: string; messageId: string | null; attachments: AttachmentRef[] };
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
  const queues = batchQueues.get(db) ?? new Map<string, Opening[]>();
  batchQueues.set(db, queues);
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
      const rows = await insertNumberedTickets(db, siteId, batch.map((opening) => opening.input));
      batch.forEach((opening, i) => opening.resolve(rows[i]!));
    } catch (error) {
      if (batch.length === 1) batch[0]!.reject(error);
      else for (const opening of batch) await insertNumberedTickets(db, siteId, [opening.input]).then((rows) => opening.resolve(rows[0]!), opening.reject);
    }
  }
  queues.delete(siteId);
}

/** One statement: the tickets numbered in order from the site's counter, with their history and entries. */
async function insertNumberedTickets(db: Executor, siteId: string, inputs: NumberedTicket[]): Promise<NumberedRow[]> {
  const ids = inputs.map(() => newId());
  const counter = db.$with('counter').as(
    db
      .insert(helpdeskCounters)
      .values({ siteId, lastNumber: inputs.length })
      .onConflictDoUpdate({ target: helpdeskCounters.siteId, set: { lastNumber: sql`${helpdeskCounters.lastNumber} + ${inputs.length}` } })
      .returning({ number: helpdeskCounters.lastNumber }),
  );
  // The counter answers the last number taken; the tickets have the ones before it, in order.
  const numberOf = (i: number) => sql`((select last_number from counter) - ${sql.raw(String(inputs.length - 1 - i))})`;
  const ticket = db.$with('ticket').as(
    db
      .insert(helpdeskTickets)
      .values(inputs.map((input, i) => ({ ...input.ticket, id: ids[i]!, siteId, number: numberOf(i), assigneeId: input.assigneeId })))
      .returning(),
  );
  const history = db.$with('history').as(
    // One multi-row insert: the rows take their ids in this order, each ticket's creation first.
    db.insert(helpdeskHistory).values(
      inputs.flatMap((input, i) => {
        const { tags, channel, priority, categoryId } = input.ticket;
        const created = { number: 0, channel, priority: priority ?? 'normal', category_id: categoryId ?? null, tags: tags ?? [] };
        return [
          { siteId, ticketId: ids[i]!, actorKind: input.actor.kind, actorId: input.actor.id, event: 'created' as const, fromValue: input.from, toValue: sql`${JSON.stringify(created)}::jsonb || jsonb_build_object('number', ${numberOf(i)})` },
          ...(input.assigneeId ? [{ siteId, ticketId: ids[i]!, actorKind: SYSTEM.kind, actorId: SYSTEM.id, event: 'assignee' as const, fromValue: null, toValue: input.assigneeId }] : []),
        ];
      }),
    ),
  );
  const entry = db.$with('entry').as(
    db
      .insert(helpdeskEntries)
      .values(inputs.map((input, i) => ({ id: newId(), siteId, ticketId: ids[i]!, authorKind: 'requester' as const, internal: false, ...input.entry })))
      .returning(),
  );
  const assignees = inputs.flatMap((input) => (input.assigneeId ? [input.assigneeId] : []));
  const turn = db.$with('turn').as(db.update(helpdeskAgents).set({ lastAssignedAt: sql`clock_timestamp()` }).where(inArray(helpdeskAgents.memberId, assignees)));
  const rows = await db
    .with(counter, ticket, history, entry, ...(assignees.length > 0 ? [turn] : []))
    .select()
    .from(ticket)
    .innerJoin(entry, eq(entry.ticketId, ticket.id));
  const byTicket = new Map(rows.map((row) => [row.ticket.id, row]));
  return ids.map((id) => byTicket.get(id)!);
}
