// The append-only ticket history: every change is one row, written in the transaction of the change
// (a trigger refuses updates). Reports read it.
import { asc, eq } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { helpdeskHistory, type ActorKind, type HistoryEvent, type HistoryRow, type TicketRow } from './tables.js';

/** Who made a change: a member (agent or admin), the owner's account, an API key, the requester, or Blume. */
export interface Actor {
  kind: ActorKind;
  id: string | null;
}

export const SYSTEM: Actor = { kind: 'system', id: null };

export async function recordHistory(
  db: Executor,
  ticket: Pick<TicketRow, 'id' | 'siteId'>,
  actor: Actor,
  event: HistoryEvent,
  from: unknown = null,
  to: unknown = null,
): Promise<void> {
  await db.insert(helpdeskHistory).values({
    siteId: ticket.siteId,
    ticketId: ticket.id,
    actorKind: actor.kind,
    actorId: actor.id,
    event,
    fromValue: from,
    toValue: to,
  });
}

export function ticketHistory(db: Executor, ticketId: string): Promise<HistoryRow[]> {
  return db
    .select()
    .from(helpdeskHistory)
    .where(eq(helpdeskHistory.ticketId, ticketId))
    .orderBy(asc(helpdeskHistory.id));
}
