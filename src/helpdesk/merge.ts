// Merging tickets into one (`POST /tickets/{id}/merge`, the inbox's bulk "Merge"), as Zammad does:
// every entry of each merged ticket moves into the target's thread, which stays in time order; the
// merged ticket is closed with a public note and a `merged` history event naming the target, and
// the target's history names what came in. Nothing is mailed: requesters learn of it on the merged
// ticket's page, not by a mail per ticket (docs/decisions/0138-helpdesk-portal-and-merge.md).
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Database, Executor } from '../db/client.js';
import { AppError } from '../http/errors.js';
import { recordHistory } from './history.js';
import { actorOf, canSeeTicket, type HelpdeskCaller } from './policy.js';
import { statusChange } from './sla.js';
import { helpdeskEntries, helpdeskHistory, helpdeskTickets, type TicketRow } from './tables.js';
import { findTicket, insertEntry } from './tickets.js';

/** Tickets one merge takes at most (the inbox's bulk changes take as many). */
const MAX_MERGE = 100;

export interface MergeResult {
  target: TicketRow;
  merged: TicketRow[];
  /** Entries that moved into the target's thread. */
  movedEntries: number;
}

/** The ticket a ticket was merged into, from its `merged` history event; undefined if it never was. */
export async function mergedInto(
  db: Executor,
  ticket: Pick<TicketRow, 'id'>,
): Promise<{ id: string; number: number } | undefined> {
  const [row] = await db
    .select({ to: helpdeskHistory.toValue })
    .from(helpdeskHistory)
    .where(and(eq(helpdeskHistory.ticketId, ticket.id), eq(helpdeskHistory.event, 'merged')))
    .limit(1);
  return row?.to as { id: string; number: number } | undefined;
}

/** Of tickets (ids or numbers), the one opened first: the inbox's target when the agent names none. */
export async function oldestTicket(
  db: Executor,
  siteId: string,
  caller: HelpdeskCaller,
  refs: readonly string[],
): Promise<TicketRow | undefined> {
  const found = await Promise.all(refs.map((ref) => findTicket(db, siteId, ref)));
  return found
    .filter((ticket): ticket is TicketRow => ticket !== undefined && canSeeTicket(caller, ticket))
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.number - b.number)[0];
}

function notFound(ref: string): AppError {
  return new AppError('ticket_not_found', `No ticket "${ref}".`);
}

/**
 * Merges the `sources` (ids or numbers of tickets of the site) into `target`. Refused as a whole:
 * a ticket the caller may not see or of another site (404, as a missing one), the target among the
 * sources, a ticket already merged, or a closed target.
 */
export async function mergeTickets(
  db: Database,
  siteId: string,
  caller: HelpdeskCaller,
  target: string,
  sources: readonly string[],
): Promise<MergeResult> {
  if (sources.length === 0) throw new AppError('invalid_ticket', 'Name at least one ticket to merge.');
  if (sources.length > MAX_MERGE) throw new AppError('invalid_ticket', `Merge at most ${MAX_MERGE} tickets at once.`);
  return db.transaction(async (tx) => {
    const resolve = async (ref: string): Promise<TicketRow> => {
      const ticket = await findTicket(tx, siteId, ref);
      if (!ticket || !canSeeTicket(caller, ticket)) throw notFound(ref);
      return ticket;
    };
    const into = await resolve(target);
    const from = new Map<string, TicketRow>();
    for (const ref of sources) {
      const ticket = await resolve(ref);
      if (ticket.id === into.id)
        throw new AppError('merge_into_itself', `Ticket #${into.number} cannot be merged into itself.`);
      from.set(ticket.id, ticket);
    }
    // Row locks in one order, whoever merges: two merges of the same tickets wait, never deadlock.
    const ids = [into.id, ...from.keys()].sort();
    const locked = await tx
      .select()
      .from(helpdeskTickets)
      .where(inArray(helpdeskTickets.id, ids))
      .orderBy(asc(helpdeskTickets.id))
      .for('update');
    const current = new Map(locked.map((ticket) => [ticket.id, ticket]));
    const already = await tx
      .select({ ticketId: helpdeskHistory.ticketId })
      .from(helpdeskHistory)
      .where(and(inArray(helpdeskHistory.ticketId, ids), eq(helpdeskHistory.event, 'merged')));
    const merged = already.map((row) => current.get(row.ticketId)!);
    if (merged.length > 0) {
      const numbers = merged.map((ticket) => `#${ticket.number}`).join(', ');
      throw new AppError('ticket_merged', `Ticket ${numbers} was merged already; merge what it was merged into.`, {
        tickets: merged.map((ticket) => ticket.number),
      });
    }
    const targetRow = current.get(into.id)!;
    if (targetRow.status === 'closed')
      throw new AppError(
        'merge_target_closed',
        `Ticket #${targetRow.number} is closed; merge into an open or solved ticket.`,
      );
    const actor = actorOf(caller);
    const author = caller.kind === 'member' ? caller.id : null;
    const now = new Date();
    let movedEntries = 0;
    const done: TicketRow[] = [];
    for (const id of from.keys()) {
      const source = current.get(id)!;
      const moved = await tx
        .update(helpdeskEntries)
        .set({ ticketId: targetRow.id })
        .where(eq(helpdeskEntries.ticketId, source.id))
        .returning({ id: helpdeskEntries.id });
      movedEntries += moved.length;
      const note = await insertEntry(tx, source, {
        authorKind: 'agent',
        authorId: author,
        internal: false,
        body: `This request was merged into ticket #${targetRow.number}; the conversation continues there.`,
        messageId: null,
        attachments: [],
      });
      await recordHistory(tx, source, actor, 'merged', null, {
        id: targetRow.id,
        number: targetRow.number,
        entries: moved.length,
      });
      let change: Partial<TicketRow> = {};
      if (source.status !== 'closed') {
        change = statusChange(source, 'closed', now);
        await recordHistory(tx, source, actor, 'status', source.status, 'closed');
      }
      const [updated] = await tx
        .update(helpdeskTickets)
        .set({ ...change, updatedAt: note.createdAt })
        .where(eq(helpdeskTickets.id, source.id))
        .returning();
      done.push(updated!);
    }
    await recordHistory(tx, targetRow, actor, 'merged_in', null, {
      tickets: done.map((ticket) => ({ id: ticket.id, number: ticket.number })),
      entries: movedEntries,
    });
    const [updatedTarget] = await tx
      .update(helpdeskTickets)
      .set({ updatedAt: sql`now()` })
      .where(eq(helpdeskTickets.id, targetRow.id))
      .returning();
    return { target: updatedTarget!, merged: done, movedEntries };
  });
}
