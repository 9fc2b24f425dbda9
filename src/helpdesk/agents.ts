// Agents: forum members marked as agents of the site's help desk, with a capacity of open tickets,
// the categories they serve and whether they are available. An agent going unavailable hands their
// open tickets on (assignment.ts); every such move is in the tickets' history.
import { and, asc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import type { Param } from '../db/prepared.js';
import { AppError } from '../http/errors.js';
import { OPEN_STATUSES, reassignFrom } from './assignment.js';
import type { Actor } from './history.js';
import {
  helpdeskAgentCategories,
  helpdeskAgents,
  helpdeskCategories,
  helpdeskTickets,
  type AgentRow,
} from './tables.js';

export interface AgentView {
  agent: AgentRow;
  categoryIds: string[];
  openTickets: number;
}

interface AgentChange {
  capacity?: number | undefined;
  available?: boolean | undefined;
  categoryIds?: string[] | undefined;
}

async function checkCategories(db: Executor, siteId: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const found = await db
    .select({ id: helpdeskCategories.id })
    .from(helpdeskCategories)
    .where(and(eq(helpdeskCategories.siteId, siteId), inArray(helpdeskCategories.id, [...ids])));
  const missing = ids.filter((id) => !found.some((row) => row.id === id));
  if (missing.length > 0)
    throw new AppError(
      'helpdesk_category_not_found',
      `No help desk category ${missing.map((id) => `"${id}"`).join(', ')}.`,
    );
}

async function setCategories(db: Executor, agentId: string, ids: readonly string[]): Promise<void> {
  await db.delete(helpdeskAgentCategories).where(eq(helpdeskAgentCategories.agentId, agentId));
  if (ids.length > 0)
    await db.insert(helpdeskAgentCategories).values([...new Set(ids)].map((categoryId) => ({ agentId, categoryId })));
}

/** Marks a member of the site as an agent (again): idempotent, keeps an existing agent's settings unless given. */
export async function makeAgent(
  db: Executor,
  siteId: string,
  memberId: string,
  change: AgentChange = {},
): Promise<AgentView> {
  await checkCategories(db, siteId, change.categoryIds ?? []);
  await db
    .insert(helpdeskAgents)
    .values({ memberId, siteId, capacity: change.capacity ?? 10, available: change.available ?? true })
    .onConflictDoNothing();
  if (change.categoryIds) await setCategories(db, memberId, change.categoryIds);
  return getAgent(db, siteId, memberId);
}

/** Whether the member is an agent of the site's help desk, as an expression to select. */
export function agentExists(siteId: Param<string>, memberId: Param<string>): SQL<boolean> {
  return sql<boolean>`exists (select 1 from ${helpdeskAgents} where ${and(eq(helpdeskAgents.siteId, siteId), eq(helpdeskAgents.memberId, memberId))})`;
}

export async function findAgent(db: Executor, siteId: string, memberId: string): Promise<AgentRow | undefined> {
  const [row] = await db
    .select()
    .from(helpdeskAgents)
    .where(and(eq(helpdeskAgents.siteId, siteId), eq(helpdeskAgents.memberId, memberId)));
  return row;
}

async function views(db: Executor, agents: AgentRow[]): Promise<AgentView[]> {
  if (agents.length === 0) return [];
  const ids = agents.map((a) => a.memberId);
  const categories = await db
    .select()
    .from(helpdeskAgentCategories)
    .where(inArray(helpdeskAgentCategories.agentId, ids));
  const workload = await db
    .select({ id: helpdeskTickets.assigneeId, open: sql<number>`count(*)::int` })
    .from(helpdeskTickets)
    .where(and(inArray(helpdeskTickets.assigneeId, ids), inArray(helpdeskTickets.status, OPEN_STATUSES)))
    .groupBy(helpdeskTickets.assigneeId);
  return agents.map((agent) => ({
    agent,
    categoryIds: categories
      .filter((c) => c.agentId === agent.memberId)
      .map((c) => c.categoryId)
      .sort(),
    openTickets: workload.find((w) => w.id === agent.memberId)?.open ?? 0,
  }));
}

async function getAgent(db: Executor, siteId: string, memberId: string): Promise<AgentView> {
  const agent = await findAgent(db, siteId, memberId);
  if (!agent) throw new AppError('agent_not_found', `No agent "${memberId}".`);
  return (await views(db, [agent]))[0]!;
}

export async function listAgents(db: Executor, siteId: string): Promise<AgentView[]> {
  return views(
    db,
    await db
      .select()
      .from(helpdeskAgents)
      .where(eq(helpdeskAgents.siteId, siteId))
      .orderBy(asc(helpdeskAgents.createdAt), asc(helpdeskAgents.memberId)),
  );
}

/** The member ids of the site's agents, in the order `listAgents` gives them, without their workload. */
export async function agentIds(db: Executor, siteId: string): Promise<string[]> {
  const rows = await db
    .select({ id: helpdeskAgents.memberId })
    .from(helpdeskAgents)
    .where(eq(helpdeskAgents.siteId, siteId))
    .orderBy(asc(helpdeskAgents.createdAt), asc(helpdeskAgents.memberId));
  return rows.map((row) => row.id);
}

/** The categories an agent serves (empty for a member who is not an agent). */
export async function servedCategories(db: Executor, memberId: string): Promise<string[]> {
  const rows = await db
    .select({ id: helpdeskAgentCategories.categoryId })
    .from(helpdeskAgentCategories)
    .where(eq(helpdeskAgentCategories.agentId, memberId));
  return rows.map((row) => row.id);
}

/**
 * Changes an agent's capacity, categories or availability. Going unavailable hands the agent's open
 * tickets to the next agents in turn (or leaves them unassigned).
 */
export async function updateAgent(
  db: Executor,
  siteId: string,
  memberId: string,
  change: AgentChange,
  actor: Actor,
): Promise<AgentView> {
  return db.transaction(async (tx) => {
    const agent = await findAgent(tx, siteId, memberId);
    if (!agent) throw new AppError('agent_not_found', `No agent "${memberId}".`);
    await checkCategories(tx, siteId, change.categoryIds ?? []);
    await tx
      .update(helpdeskAgents)
      .set({
        ...(change.capacity !== undefined ? { capacity: change.capacity } : {}),
        ...(change.available !== undefined ? { available: change.available } : {}),
        updatedAt: sql`now()`,
      })
      .where(eq(helpdeskAgents.memberId, memberId));
    if (change.categoryIds) await setCategories(tx, memberId, change.categoryIds);
    if (agent.available && change.available === false) await reassignFrom(tx, siteId, memberId, actor);
    return getAgent(tx, siteId, memberId);
  });
}
