// A new ticket in one statement: its number taken from the site's counter, the ticket, its history
// (created, and assigned when an agent was chosen), its first entry and the agent's turn in the round
// robin, as data-modifying CTEs. The counter's upsert locks the site's row until the transaction
// ends, so concurrent openings take turns; in one statement the lock lasts one round trip and the
// commit, which bounds how many tickets a site opens per second (inbound mail above all).
import { eq, sql } from 'drizzle-orm';
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

interface NumberedTicket {
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

export async function insertNumberedTicket(db: Executor, siteId: string, input: NumberedTicket): Promise<{ ticket: TicketRow; entry: ThreadEntryRow }> {
  const id = newId();
  const counter = db.$with('counter').as(
    db
      .insert(helpdeskCounters)
      .values({ siteId, lastNumber: 1 })
      .onConflictDoUpdate({ target: helpdeskCounters.siteId, set: { lastNumber: sql`${helpdeskCounters.lastNumber} + 1` } })
      .returning({ number: helpdeskCounters.lastNumber }),
  );
  const number = sql`(select last_number from counter)`;
  const ticket = db.$with('ticket').as(db.insert(helpdeskTickets).values({ ...input.ticket, id, siteId, number, assigneeId: input.assigneeId }).returning());
  const { tags, channel, priority, categoryId } = input.ticket;
  const created = { number: 0, channel, priority: priority ?? 'normal', category_id: categoryId ?? null, tags: tags ?? [] };
  const history = db.$with('history').as(
    // One multi-row insert: the rows take their ids in this order, the creation first.
    db.insert(helpdeskHistory).values([
      { siteId, ticketId: id, actorKind: input.actor.kind, actorId: input.actor.id, event: 'created', fromValue: input.from, toValue: sql`${JSON.stringify(created)}::jsonb || jsonb_build_object('number', ${number})` },
      ...(input.assigneeId ? [{ siteId, ticketId: id, actorKind: SYSTEM.kind, actorId: SYSTEM.id, event: 'assignee' as const, fromValue: null, toValue: input.assigneeId }] : []),
    ]),
  );
  const entry = db.$with('entry').as(
    db
      .insert(helpdeskEntries)
      .values({ id: newId(), siteId, ticketId: id, authorKind: 'requester', internal: false, ...input.entry })
      .returning(),
  );
  const turn = db.$with('turn').as(db.update(helpdeskAgents).set({ lastAssignedAt: sql`clock_timestamp()` }).where(eq(helpdeskAgents.memberId, input.assigneeId ?? '')));
  const [row] = await db
    .with(counter, ticket, history, entry, ...(input.assigneeId ? [turn] : []))
    .select()
    .from(ticket)
    .crossJoin(entry);
  return row!;
}
