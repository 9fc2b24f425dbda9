// Triage (`PATCH /tickets/{id}`): status, priority, category, assignee and tags, each change one
// history event, all in one transaction. A priority change takes the SLA targets of the new
// priority; a status change moves the SLA clock (sla.ts). Agents triage only into categories they
// serve; the assignee must be an agent of the site.
import { eq, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { AppError } from '../http/errors.js';
import { findAgent } from './agents.js';
import { recordHistory } from './history.js';
import { actorOf, authorizeCategory, canSeeTicket, type HelpdeskCaller } from './policy.js';
import { retarget, slaTargets, statusChange } from './sla.js';
import { helpdeskTickets, type TicketPriority, type TicketRow, type TicketStatus } from './tables.js';
import { normalizeTags, requireCategory } from './tickets.js';

export interface TicketChange {
  status?: TicketStatus | undefined;
  priority?: TicketPriority | undefined;
  categoryId?: string | null | undefined;
  assigneeId?: string | null | undefined;
  tags?: string[] | undefined;
}

const sameTags = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((tag, i) => tag === b[i]);

export async function triageTicket(
  db: Database,
  siteId: string,
  ticketId: string,
  caller: HelpdeskCaller,
  change: TicketChange,
): Promise<TicketRow> {
  return db.transaction(async (tx) => {
    const [ticket] = await tx.select().from(helpdeskTickets).where(eq(helpdeskTickets.id, ticketId)).for('update');
    if (!ticket || ticket.siteId !== siteId || !canSeeTicket(caller, ticket))
      throw new AppError('ticket_not_found', `No ticket "${ticketId}".`);
    const actor = actorOf(caller);
    const now = new Date();
    let next: Partial<TicketRow> = {};
    if (change.categoryId !== undefined && change.categoryId !== ticket.categoryId) {
      authorizeCategory(caller, change.categoryId);
      if (change.categoryId !== null) await requireCategory(tx, siteId, change.categoryId);
      next.categoryId = change.categoryId;
      await recordHistory(tx, ticket, actor, 'category', ticket.categoryId, change.categoryId);
    }
    if (change.assigneeId !== undefined && change.assigneeId !== ticket.assigneeId) {
      if (change.assigneeId !== null && !(await findAgent(tx, siteId, change.assigneeId))) {
        throw new AppError('invalid_ticket', `"${change.assigneeId}" is not an agent of this help desk.`, {
          errors: [{ field: 'assignee_id', message: 'not an agent' }],
        });
      }
      next.assigneeId = change.assigneeId;
      await recordHistory(tx, ticket, actor, 'assignee', ticket.assigneeId, change.assigneeId);
    }
    if (change.priority !== undefined && change.priority !== ticket.priority) {
      next = { ...next, priority: change.priority, ...retarget(ticket, await slaTargets(tx, siteId, change.priority)) };
      await recordHistory(tx, ticket, actor, 'priority', ticket.priority, change.priority);
    }
    if (change.tags !== undefined) {
      const tags = normalizeTags(change.tags);
      if (!sameTags(tags, ticket.tags)) {
        next.tags = tags;
        await recordHistory(tx, ticket, actor, 'tags', ticket.tags, tags);
      }
    }
    if (change.status !== undefined && change.status !== ticket.status) {
      next = { ...next, ...statusChange({ ...ticket, ...next }, change.status, now) };
      await recordHistory(tx, ticket, actor, 'status', ticket.status, change.status);
    }
    if (Object.keys(next).length === 0) return ticket;
    const [updated] = await tx
      .update(helpdeskTickets)
      .set({ ...next, updatedAt: sql`now()` })
      .where(eq(helpdeskTickets.id, ticket.id))
      .returning();
    return updated!;
  });
}
