// The ticket list: the caller's visible tickets filtered by status, priority, category, assignee,
// requester, tag, full text and SLA state, sorted and paged (DESIGN section 3).
import { and, asc, count, desc, eq, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { AppError } from '../http/errors.js';
import type { Page } from '../http/pagination.js';
import { canSeeTicket, visibleTicketsWhere, type HelpdeskCaller } from './policy.js';
import type { TicketListQuery } from './schemas.js';
import { atRiskWhere, breachedWhere } from './sla.js';
import { findContact, findTicket } from './tickets.js';
import { helpdeskContacts, helpdeskTickets as t, TICKET_PRIORITIES, TICKET_STATUSES, type ContactRow, type TicketRow } from './tables.js';

export interface ListedTicket {
  ticket: TicketRow;
  requester: ContactRow;
}

function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T[] {
  const values = value.split(',').map((v) => v.trim());
  const unknown = values.filter((v) => !(allowed as readonly string[]).includes(v));
  if (unknown.length > 0) throw new AppError('invalid_filter', `Unknown ${name} ${unknown.map((v) => `"${v}"`).join(', ')}; use ${allowed.join(', ')}.`, { parameter: name });
  return values as T[];
}

const PRIORITY_RANK = sql`array_position(array['low','normal','high','urgent']::text[], ${t.priority})`;
const STATUS_RANK = sql`array_position(array['new','open','pending','on_hold','solved','closed']::text[], ${t.status})`;

function sortOf(sort: string | undefined): SQL[] {
  const field = (sort ?? '-updated_at').replace(/^-/, '');
  const direction = sort?.startsWith('-') ?? true ? desc : asc;
  const column = { created_at: t.createdAt, updated_at: t.updatedAt, number: t.number, priority: PRIORITY_RANK, status: STATUS_RANK }[field]!;
  return [direction(column), direction(t.id)];
}

function ticketFilters(caller: HelpdeskCaller, siteId: string, query: TicketListQuery): SQL {
  const conditions: Array<SQL | undefined> = [eq(t.siteId, siteId), visibleTicketsWhere(caller)];
  if (query.status) conditions.push(inArray(t.status, oneOf('status', query.status, TICKET_STATUSES)));
  if (query.priority) conditions.push(inArray(t.priority, oneOf('priority', query.priority, TICKET_PRIORITIES)));
  if (query.category) conditions.push(query.category === 'none' ? isNull(t.categoryId) : eq(t.categoryId, query.category));
  if (query.assignee === 'none') conditions.push(isNull(t.assigneeId));
  else if (query.assignee === 'me') {
    if (caller.kind !== 'member') throw new AppError('invalid_filter', '`assignee=me` needs an agent\'s credential.', { parameter: 'assignee' });
    conditions.push(eq(t.assigneeId, caller.id));
  } else if (query.assignee) conditions.push(eq(t.assigneeId, query.assignee));
  if (query.requester) conditions.push(query.requester.includes('@') ? eq(helpdeskContacts.email, query.requester.trim().toLowerCase()) : eq(t.requesterId, query.requester));
  if (query.tag) conditions.push(sql`${t.tags} @> array[${query.tag.trim().toLowerCase()}]::text[]`);
  if (query.q) conditions.push(sql`to_tsvector('english', ${t.searchText}) @@ websearch_to_tsquery('english', ${query.q})`);
  if (query.sla === 'breached') conditions.push(breachedWhere());
  if (query.sla === 'at_risk') conditions.push(atRiskWhere());
  return and(...conditions)!;
}

export async function listTickets(db: Executor, siteId: string, caller: HelpdeskCaller, query: TicketListQuery, page: Page): Promise<{ rows: ListedTicket[]; total: number }> {
  const where = ticketFilters(caller, siteId, query);
  const [total] = await db.select({ n: count() }).from(t).innerJoin(helpdeskContacts, eq(helpdeskContacts.id, t.requesterId)).where(where);
  const rows = await db
    .select({ ticket: t, requester: helpdeskContacts })
    .from(t)
    .innerJoin(helpdeskContacts, eq(helpdeskContacts.id, t.requesterId))
    .where(where)
    .orderBy(...sortOf(query.sort))
    .limit(page.pageSize)
    .offset(page.offset);
  return { rows, total: total?.n ?? 0 };
}

/** A ticket by id or number that the caller may see, with its requester; 404 otherwise. */
export async function findVisibleTicket(db: Executor, siteId: string, caller: HelpdeskCaller, idOrNumber: string): Promise<ListedTicket> {
  const ticket = await findTicket(db, siteId, idOrNumber);
  if (!ticket || !canSeeTicket(caller, ticket)) throw new AppError('ticket_not_found', `No ticket "${idOrNumber}".`);
  return { ticket, requester: (await findContact(db, ticket.requesterId))! };
}
