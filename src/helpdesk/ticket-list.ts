// The ticket list: the caller's visible tickets filtered by status, priority, category, assignee,
// requester, tag, full text and SLA state, sorted and paged (DESIGN section 3).
import { and, asc, desc, eq, getTableColumns, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { cappedCount, listTotal, totalOf } from '../db/count.js';
import { AppError } from '../http/errors.js';
import type { Page } from '../http/pagination.js';
import { canSeeTicket, visibleTicketsWhere, type HelpdeskCaller } from './policy.js';
import type { TicketListQuery } from './schemas.js';
import { atRiskWhere, breachedWhere } from './sla.js';
import { findContact, findTicket } from './tickets.js';
import { helpdeskContacts, helpdeskTickets as t, TICKET_PRIORITIES, TICKET_STATUSES, type ContactRow, type ListedTicketRow, type TicketRow } from './tables.js';

type ListedRequester = Pick<ContactRow, 'id' | 'email' | 'name'>;

export interface ListedTicket {
  ticket: ListedTicketRow;
  requester: ListedRequester;
}

/** A ticket the caller may see, whole, with its requester. */
export interface VisibleTicket {
  ticket: TicketRow;
  requester: ContactRow;
}

const { searchText: _searchText, ...listedColumns } = getTableColumns(t);
const requesterColumns = { id: helpdeskContacts.id, email: helpdeskContacts.email, name: helpdeskContacts.name };

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

function ticketFilters(db: Executor, caller: HelpdeskCaller, siteId: string, query: TicketListQuery): SQL {
  const conditions: Array<SQL | undefined> = [eq(t.siteId, siteId), visibleTicketsWhere(caller)];
  if (query.status) conditions.push(inArray(t.status, oneOf('status', query.status, TICKET_STATUSES)));
  if (query.priority) conditions.push(inArray(t.priority, oneOf('priority', query.priority, TICKET_PRIORITIES)));
  if (query.category) conditions.push(query.category === 'none' ? isNull(t.categoryId) : eq(t.categoryId, query.category));
  if (query.assignee === 'none') conditions.push(isNull(t.assigneeId));
  else if (query.assignee === 'me') {
    if (caller.kind !== 'member') throw new AppError('invalid_filter', '`assignee=me` needs an agent\'s credential.', { parameter: 'assignee' });
    conditions.push(eq(t.assigneeId, caller.id));
  } else if (query.assignee) conditions.push(eq(t.assigneeId, query.assignee));
  if (query.requester) {
    const byEmail = db
      .select({ id: helpdeskContacts.id })
      .from(helpdeskContacts)
      .where(and(eq(helpdeskContacts.siteId, siteId), eq(helpdeskContacts.email, query.requester.trim().toLowerCase())));
    conditions.push(query.requester.includes('@') ? inArray(t.requesterId, byEmail) : eq(t.requesterId, query.requester));
  }
  if (query.tag) conditions.push(sql`${t.tags} @> array[${query.tag.trim().toLowerCase()}]::text[]`);
  if (query.q) conditions.push(sql`to_tsvector('english', ${t.searchText}) @@ websearch_to_tsquery('english', ${query.q})`);
  if (query.sla === 'breached') conditions.push(breachedWhere());
  if (query.sla === 'at_risk') conditions.push(atRiskWhere());
  return and(...conditions)!;
}

/**
 * A page of the caller's tickets and the list's total: exact up to a threshold, the planner's estimate
 * past it (src/db/count.ts). One statement answers the page, each row with its requester (by primary
 * key), and the count, which reads helpdesk_tickets alone; a page past the end counts on its own.
 */
export async function listTickets(db: Executor, siteId: string, caller: HelpdeskCaller, query: TicketListQuery, page: Page): Promise<{ rows: ListedTicket[]; total: number; estimated: boolean }> {
  const where = ticketFilters(db, caller, siteId, query);
  const matching = db.select({ one: sql`1` }).from(t).where(where).getSQL();
  const found = await db
    .select({ ticket: listedColumns, requester: requesterColumns, counted: cappedCount(matching) })
    .from(t)
    .innerJoin(helpdeskContacts, eq(helpdeskContacts.id, t.requesterId))
    .where(where)
    .orderBy(...sortOf(query.sort))
    .limit(page.pageSize)
    .offset(page.offset);
  const { total, estimated } = found.length > 0 ? await totalOf(db, matching, found[0]!.counted) : await listTotal(db, matching);
  return { rows: found.map(({ ticket, requester }) => ({ ticket, requester })), total, estimated };
}

/** A ticket by id or number that the caller may see, with its requester; 404 otherwise. */
export async function findVisibleTicket(db: Executor, siteId: string, caller: HelpdeskCaller, idOrNumber: string): Promise<VisibleTicket> {
  const ticket = await findTicket(db, siteId, idOrNumber);
  if (!ticket || !canSeeTicket(caller, ticket)) throw new AppError('ticket_not_found', `No ticket "${idOrNumber}".`);
  return { ticket, requester: (await findContact(db, ticket.requesterId))! };
}
