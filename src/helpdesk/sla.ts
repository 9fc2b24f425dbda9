// SLA clocks (docs/decisions/0050-helpdesk-sla.md). A ticket copies the targets of its priority's
// policy when it opens (or its priority changes) and keeps due times. While it is pending or on hold
// the clock stops (`sla_paused_at`); when it runs again, the due times move on by the pause. Times are
// calendar time. A target is breached when the response or resolution came, or the clock stopped or
// now is, after the due time; it is at risk when less than a quarter of its target remains.
import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { preparedStatement } from '../db/prepared.js';
import {
  helpdeskSlaPolicies,
  helpdeskTickets as t,
  type ListedTicketRow,
  type TicketPriority,
  type TicketRow,
  type TicketStatus,
} from './tables.js';

export interface SlaTargets {
  firstResponseMinutes: number;
  resolutionMinutes: number;
}

/** Targets of a site without a policy row for the priority. */
const DEFAULT_SLA: Record<TicketPriority, SlaTargets> = {
  urgent: { firstResponseMinutes: 60, resolutionMinutes: 4 * 60 },
  high: { firstResponseMinutes: 4 * 60, resolutionMinutes: 24 * 60 },
  normal: { firstResponseMinutes: 8 * 60, resolutionMinutes: 3 * 24 * 60 },
  low: { firstResponseMinutes: 24 * 60, resolutionMinutes: 7 * 24 * 60 },
};

const PAUSED: readonly TicketStatus[] = ['pending', 'on_hold'];
const DONE: readonly TicketStatus[] = ['solved', 'closed'];

/** Every opening reads its priority's targets: prepared (src/db/prepared.ts). */
const slaPolicy = preparedStatement('helpdesk_sla_policy', (db) =>
  db
    .select({
      firstResponseMinutes: helpdeskSlaPolicies.firstResponseMinutes,
      resolutionMinutes: helpdeskSlaPolicies.resolutionMinutes,
    })
    .from(helpdeskSlaPolicies)
    .where(
      and(
        eq(helpdeskSlaPolicies.siteId, sql.placeholder('siteId')),
        eq(helpdeskSlaPolicies.priority, sql.placeholder('priority')),
      ),
    ),
);

export async function slaTargets(db: Executor, siteId: string, priority: TicketPriority): Promise<SlaTargets> {
  const [row] = await slaPolicy(db, undefined).execute({ siteId, priority });
  return row
    ? { firstResponseMinutes: row.firstResponseMinutes, resolutionMinutes: row.resolutionMinutes }
    : DEFAULT_SLA[priority];
}

export async function listSlaPolicies(
  db: Executor,
  siteId: string,
): Promise<Array<SlaTargets & { priority: TicketPriority }>> {
  const rows = await db.select().from(helpdeskSlaPolicies).where(eq(helpdeskSlaPolicies.siteId, siteId));
  return (Object.keys(DEFAULT_SLA) as TicketPriority[]).map((priority) => {
    const row = rows.find((r) => r.priority === priority);
    return {
      priority,
      ...(row
        ? { firstResponseMinutes: row.firstResponseMinutes, resolutionMinutes: row.resolutionMinutes }
        : DEFAULT_SLA[priority]),
    };
  });
}

export async function setSlaPolicy(
  db: Executor,
  siteId: string,
  priority: TicketPriority,
  targets: SlaTargets,
): Promise<void> {
  await db
    .insert(helpdeskSlaPolicies)
    .values({ siteId, priority, ...targets })
    .onConflictDoUpdate({
      target: [helpdeskSlaPolicies.siteId, helpdeskSlaPolicies.priority],
      set: {
        firstResponseMinutes: targets.firstResponseMinutes,
        resolutionMinutes: targets.resolutionMinutes,
        updatedAt: sql`now()`,
      },
    });
}

const addMinutes = (from: Date, minutes: number): Date => new Date(from.getTime() + minutes * 60_000);

/** The SLA columns of a ticket opened at `now` with these targets. */
export function startClock(targets: SlaTargets, now: Date): Partial<TicketRow> {
  return {
    firstResponseMinutes: targets.firstResponseMinutes,
    resolutionMinutes: targets.resolutionMinutes,
    firstResponseDueAt: addMinutes(now, targets.firstResponseMinutes),
    resolutionDueAt: addMinutes(now, targets.resolutionMinutes),
  };
}

/** New targets for a new priority, counted from the ticket's opening; the time paused still counts as paused. */
export function retarget(ticket: TicketRow, targets: SlaTargets): Partial<TicketRow> {
  const pausedMs =
    ticket.firstResponseDueAt && ticket.firstResponseMinutes !== null
      ? ticket.firstResponseDueAt.getTime() - addMinutes(ticket.createdAt, ticket.firstResponseMinutes).getTime()
      : 0;
  const start = new Date(ticket.createdAt.getTime() + pausedMs);
  return startClock(targets, start);
}

/**
 * The column changes a status change makes: the clock stops on entering pending/on_hold and runs
 * again (due times moved on) on leaving them; solved and closed stamp their times; a reopen clears them.
 */
export function statusChange(ticket: TicketRow, next: TicketStatus, now: Date): Partial<TicketRow> {
  const change: Partial<TicketRow> = { status: next };
  const wasPaused = ticket.slaPausedAt !== null;
  if (wasPaused && !PAUSED.includes(next)) {
    const pause = now.getTime() - ticket.slaPausedAt!.getTime();
    change.slaPausedAt = null;
    if (ticket.firstResponseDueAt && !ticket.firstResponseAt)
      change.firstResponseDueAt = new Date(ticket.firstResponseDueAt.getTime() + pause);
    if (ticket.resolutionDueAt) change.resolutionDueAt = new Date(ticket.resolutionDueAt.getTime() + pause);
  }
  if (!wasPaused && PAUSED.includes(next)) change.slaPausedAt = now;
  if (next === 'solved') change.solvedAt = ticket.solvedAt ?? now;
  if (next === 'closed') {
    change.closedAt = now;
    change.solvedAt = ticket.solvedAt ?? now;
  }
  if (!DONE.includes(next)) {
    change.solvedAt = null;
    change.closedAt = null;
  }
  return change;
}

/** SQL: the ticket missed a target. */
export function breachedWhere(): SQL {
  return sql`((${t.firstResponseDueAt} is not null and coalesce(${t.firstResponseAt}, ${t.slaPausedAt}, now()) > ${t.firstResponseDueAt})
    or (${t.resolutionDueAt} is not null and coalesce(${t.solvedAt}, ${t.slaPausedAt}, now()) > ${t.resolutionDueAt}))`;
}

/** SQL: a running clock with less than a quarter of a target left, nothing breached yet. */
export function atRiskWhere(): SQL {
  return sql`(not ${breachedWhere()} and ${t.slaPausedAt} is null and ${t.solvedAt} is null and (
    (${t.firstResponseAt} is null and now() > ${t.firstResponseDueAt} - make_interval(mins => ${t.firstResponseMinutes} / 4))
    or now() > ${t.resolutionDueAt} - make_interval(mins => ${t.resolutionMinutes} / 4)))`;
}

interface SlaView {
  first_response_due_at: string | null;
  resolution_due_at: string | null;
  paused: boolean;
  breached: boolean;
  at_risk: boolean;
}

/** How long before a due time a running clock is at risk: a quarter of the target, in whole minutes. */
const riskLead = (minutes: number): number => Math.floor(minutes / 4) * 60_000;

/**
 * The first time after `now` at which `slaView` of the unchanged ticket may answer other flags: just
 * past a due time or the start of its at-risk lead. Until then the view holds (its times never change).
 */
export function slaChangesAt(ticket: ListedTicketRow, now: Date): number {
  let first = Infinity;
  const consider = (due: Date | null, minutes: number | null): void => {
    if (due === null) return;
    for (const at of minutes === null ? [due.getTime()] : [due.getTime() - riskLead(minutes), due.getTime()])
      if (at >= now.getTime()) first = Math.min(first, at + 1);
  };
  consider(ticket.firstResponseDueAt, ticket.firstResponseMinutes);
  consider(ticket.resolutionDueAt, ticket.resolutionMinutes);
  return first;
}

/** The ticket's SLA state at `now`, as the API shows it. */
export function slaView(ticket: ListedTicketRow, now: Date): SlaView {
  const clock = (done: Date | null): number => (done ?? ticket.slaPausedAt ?? now).getTime();
  const firstBreached =
    ticket.firstResponseDueAt !== null && clock(ticket.firstResponseAt) > ticket.firstResponseDueAt.getTime();
  const resolutionBreached =
    ticket.resolutionDueAt !== null && clock(ticket.solvedAt) > ticket.resolutionDueAt.getTime();
  const breached = firstBreached || resolutionBreached;
  const running = ticket.slaPausedAt === null && ticket.solvedAt === null;
  const near = (due: Date | null, minutes: number | null): boolean =>
    due !== null && minutes !== null && now.getTime() > due.getTime() - riskLead(minutes);
  const atRisk =
    !breached &&
    running &&
    ((ticket.firstResponseAt === null && near(ticket.firstResponseDueAt, ticket.firstResponseMinutes)) ||
      near(ticket.resolutionDueAt, ticket.resolutionMinutes));
  return {
    first_response_due_at: ticket.firstResponseDueAt?.toISOString() ?? null,
    resolution_due_at: ticket.resolutionDueAt?.toISOString() ?? null,
    paused: ticket.slaPausedAt !== null,
    breached,
    at_risk: atRisk,
  };
}
