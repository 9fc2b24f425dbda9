// Auto-assignment (issue #16): round robin among the available agents who serve the ticket's
// category (every agent for a ticket without one), never above an agent's capacity of open tickets.
// One transaction-scoped advisory lock per site orders assignments, so two tickets opened at once
// cannot both take an agent's last free place.
import { and, eq, inArray, ne, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { preparedStatement } from '../db/prepared.js';
import { recordHistory, SYSTEM, type Actor } from './history.js';
import {
  helpdeskAgentCategories,
  helpdeskAgents,
  helpdeskTickets,
  type TicketRow,
  type TicketStatus,
} from './tables.js';

/** Statuses that count against an agent's capacity and move to another agent when theirs goes away. */
export const OPEN_STATUSES: TicketStatus[] = ['new', 'open', 'pending', 'on_hold'];

async function lockAssignments(db: Executor, siteId: string): Promise<void> {
  await db.execute(sql`select pg_advisory_xact_lock(hashtext(${`helpdesk-assign:${siteId}`}))`);
}

/** What the choice of an agent depends on besides its placeholders: a category to serve, an agent to pass over. */
interface AgentChoice {
  category: boolean;
  except: boolean;
}

/** Every opening asks for an agent: prepared per variant (src/db/prepared.ts). */
const agentChoice = preparedStatement(
  'helpdesk_next_agent',
  (db, choice: AgentChoice) => {
    const a = helpdeskAgents;
    const open = sql`(select count(*) from ${helpdeskTickets} where ${helpdeskTickets.assigneeId} = ${a.memberId} and ${inArray(helpdeskTickets.status, OPEN_STATUSES)})`;
    const serves = choice.category
      ? sql`exists (select 1 from ${helpdeskAgentCategories} where ${helpdeskAgentCategories.agentId} = ${a.memberId} and ${helpdeskAgentCategories.categoryId} = ${sql.placeholder('categoryId')})`
      : undefined;
    return db
      .select({ id: a.memberId })
      .from(a)
      .where(
        and(
          eq(a.siteId, sql.placeholder('siteId')),
          eq(a.available, true),
          choice.except ? ne(a.memberId, sql.placeholder('except')) : undefined,
          serves,
          sql`${open} < ${a.capacity}`,
        ),
      )
      .orderBy(sql`${a.lastAssignedAt} asc nulls first`, a.memberId)
      .limit(1);
  },
  (choice) => `${choice.category ? 'c' : ''}${choice.except ? 'x' : ''}`,
);

/** The next agent for a ticket of `categoryId` in round-robin order, other than `except`. */
async function nextAgent(
  db: Executor,
  siteId: string,
  categoryId: string | null,
  except: string | null,
): Promise<string | undefined> {
  const [row] = await agentChoice(db, { category: categoryId !== null, except: except !== null }).execute({
    siteId,
    categoryId,
    except,
  });
  return row?.id;
}

/**
 * Inserts a new ticket of `categoryId` with the agent it goes to, or nobody when none has room. Asked
 * first without the site's lock: with no agent to take it, `insert` runs on `db` as it is (one
 * statement committed on its own, so the number's row lock lasts that statement and its commit,
 * numbered-insert.ts). Otherwise the agent is decided under the lock, which the transaction holds to
 * its end, so that the ticket (inserted with its assignee before the commit) counts against the agent
 * for the next opening.
 */
export async function insertAssigned<T>(
  db: Executor,
  siteId: string,
  categoryId: string | null,
  insert: (db: Executor, assigneeId: string | null) => Promise<T>,
): Promise<T> {
  if ((await nextAgent(db, siteId, categoryId, null)) === undefined) return insert(db, null);
  return db.transaction(async (tx) => {
    await lockAssignments(tx, siteId);
    return insert(tx, (await nextAgent(tx, siteId, categoryId, null)) ?? null);
  });
}

/**
 * Gives the ticket to the next agent (or nobody when none has room) and records it. Answers the
 * ticket as it is now.
 */
async function autoAssign(db: Executor, ticket: TicketRow, actor: Actor = SYSTEM): Promise<TicketRow> {
  await lockAssignments(db, ticket.siteId);
  const agentId = await nextAgent(db, ticket.siteId, ticket.categoryId, ticket.assigneeId);
  if (!agentId && ticket.assigneeId === null) return ticket;
  const [updated] = await db
    .update(helpdeskTickets)
    .set({ assigneeId: agentId ?? null, updatedAt: sql`now()` })
    .where(eq(helpdeskTickets.id, ticket.id))
    .returning();
  if (agentId)
    await db
      .update(helpdeskAgents)
      .set({ lastAssignedAt: sql`clock_timestamp()` })
      .where(eq(helpdeskAgents.memberId, agentId));
  await recordHistory(db, ticket, actor, 'assignee', ticket.assigneeId, agentId ?? null);
  return updated!;
}

/** Moves an agent's open tickets to other agents (or leaves them unassigned) when the agent goes away. */
export async function reassignFrom(
  db: Executor,
  siteId: string,
  agentId: string,
  actor: Actor = SYSTEM,
): Promise<number> {
  const tickets = await db
    .select()
    .from(helpdeskTickets)
    .where(
      and(
        eq(helpdeskTickets.siteId, siteId),
        eq(helpdeskTickets.assigneeId, agentId),
        inArray(helpdeskTickets.status, OPEN_STATUSES),
      ),
    )
    .orderBy(helpdeskTickets.createdAt, helpdeskTickets.id);
  for (const ticket of tickets) await autoAssign(db, ticket, actor);
  return tickets.length;
}
