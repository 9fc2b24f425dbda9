// Who may do what on the help desk (docs/decisions/0051-helpdesk-access.md). Admins (the owner's
// account session, a community admin, an API key) see every ticket; an agent sees the tickets of the
// categories they serve and the uncategorized ones (the triage queue), and may move a ticket only
// into a category they serve. API keys carry scopes: `helpdesk-write` includes `helpdesk-read`.
// A ticket the caller may not see answers exactly like a missing one.
import { sql, type SQL } from 'drizzle-orm';
import { textArray, type Param } from '../db/prepared.js';
import { AppError } from '../http/errors.js';
import type { Actor } from './history.js';
import { helpdeskTickets, type TicketRow } from './tables.js';

export type HelpdeskScope = 'helpdesk-read' | 'helpdesk-write';

export type HelpdeskCaller =
  | { kind: 'api_key'; id: string; scope: HelpdeskScope }
  | { kind: 'account'; id: string }
  | { kind: 'member'; id: string; admin: boolean; agent: boolean; categories: string[] };

/** The highest help desk scope among a key's scopes (`admin` counts as write). */
export function helpdeskScopeOf(scopes: readonly string[]): HelpdeskScope | undefined {
  if (scopes.includes('helpdesk-write') || scopes.includes('admin')) return 'helpdesk-write';
  return scopes.includes('helpdesk-read') ? 'helpdesk-read' : undefined;
}

export function requireScope(caller: HelpdeskCaller, scope: HelpdeskScope): void {
  if (caller.kind === 'api_key' && scope === 'helpdesk-write' && caller.scope !== 'helpdesk-write') {
    throw new AppError('scope_missing', 'This needs an API key with the "helpdesk-write" scope.', {
      required_scope: scope,
    });
  }
}

function isAdmin(caller: HelpdeskCaller): boolean {
  return caller.kind !== 'member' || caller.admin;
}

/** Categories, agents and SLA policies: admins only. */
export function requireAdmin(caller: HelpdeskCaller): void {
  if (!isAdmin(caller)) throw new AppError('forbidden', 'Only admins of the help desk may do this.');
}

/** The categories an agent serves, whose tickets it sees besides the uncategorized ones; undefined for a caller who sees every ticket. */
export function servedCategoriesOf(caller: HelpdeskCaller): string[] | undefined {
  return caller.kind !== 'member' || caller.admin ? undefined : caller.categories;
}

/** The tickets an agent sees, as a condition on helpdesk_tickets: `served` is what `servedCategoriesOf` answers, or a placeholder for it. */
export function servedTicketsWhere(served: Param<string[]>): SQL {
  return sql`(${helpdeskTickets.categoryId} is null or ${helpdeskTickets.categoryId} = any(${textArray(served)}))`;
}

export function canSeeTicket(caller: HelpdeskCaller, ticket: Pick<TicketRow, 'categoryId'>): boolean {
  const served = servedCategoriesOf(caller);
  return !served || ticket.categoryId === null || served.includes(ticket.categoryId);
}

/** An agent moves tickets only into categories they serve (or out of every category). */
export function authorizeCategory(caller: HelpdeskCaller, categoryId: string | null): void {
  if (caller.kind !== 'member' || caller.admin || categoryId === null) return;
  if (!caller.categories.includes(categoryId))
    throw new AppError('category_not_served', `You do not serve category "${categoryId}".`);
}

/** The history actor of a caller. */
export function actorOf(caller: HelpdeskCaller): Actor {
  return { kind: caller.kind, id: caller.id };
}
