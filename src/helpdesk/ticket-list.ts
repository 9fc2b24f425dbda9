// The ticket list: the caller's visible tickets filtered by status, priority, category, assignee,
// requester, tag, full text and SLA state, sorted and paged (DESIGN section 3).
import { and, asc, desc, eq, getTableColumns, inArray, isNull, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { Database, Executor } from '../db/client.js';
import { cappedCount, EXACT_COUNT_LIMIT, totalOf } from '../db/count.js';
import { preparedStatement, textArray, type Param } from '../db/prepared.js';
import { AppError } from '../http/errors.js';
import type { Page } from '../http/pagination.js';
import type { FilteredFields, ListedBy, TicketListCache, TicketListPage } from './cached-lists.js';
import { canSeeTicket, servedCategoriesOf, servedTicketsWhere, type HelpdeskCaller } from './policy.js';
import type { TicketListQuery } from './schemas.js';
import { atRiskWhere, breachedWhere } from './sla.js';
import { findContact, findTicket } from './tickets.js';
import {
  entrySearchVector,
  helpdeskContacts,
  helpdeskEntries,
  helpdeskTickets as t,
  slaDueAt,
  TICKET_PRIORITIES,
  TICKET_STATUSES,
  type ContactRow,
  type TicketRow,
} from './tables.js';

/** A ticket the caller may see, whole, with its requester. */
export interface VisibleTicket {
  ticket: TicketRow;
  requester: ContactRow;
}

const listedColumns = getTableColumns(t);
const requesterColumns = { id: helpdeskContacts.id, email: helpdeskContacts.email, name: helpdeskContacts.name };

function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T[] {
  const values = value.split(',').map((v) => v.trim());
  const unknown = values.filter((v) => !(allowed as readonly string[]).includes(v));
  if (unknown.length > 0)
    throw new AppError(
      'invalid_filter',
      `Unknown ${name} ${unknown.map((v) => `"${v}"`).join(', ')}; use ${allowed.join(', ')}.`,
      { parameter: name },
    );
  return values as T[];
}

const PRIORITY_RANK = sql`array_position(array['low','normal','high','urgent']::text[], ${t.priority})`;
const STATUS_RANK = sql`array_position(array['new','open','pending','on_hold','solved','closed']::text[], ${t.status})`;

function sortOf(sort: string): SQL[] {
  const field = sort.replace(/^-/, '');
  const direction = sort.startsWith('-') ? desc : asc;
  const column = {
    created_at: t.createdAt,
    updated_at: t.updatedAt,
    number: t.number,
    priority: PRIORITY_RANK,
    status: STATUS_RANK,
    // Ascending puts nulls (solved tickets) last, as helpdesk_tickets_site_sla_due_idx reads forwards.
    sla_due: slaDueAt(t),
  }[field]!;
  return [direction(column), direction(t.id)];
}

/** A date (midnight UTC) or an ISO 8601 time of a `created_*` filter. */
function instantOf(name: string, value: string): string {
  const text = value.trim();
  const at = /^\d{4}-\d{2}-\d{2}$/.test(text) ? new Date(`${text}T00:00:00Z`) : new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(at.getTime()))
    throw new AppError('invalid_filter', `${name} "${value}" is no date (2026-11-01) or ISO 8601 time.`, {
      parameter: name,
    });
  return at.toISOString();
}

/**
 * What a list's SQL depends on besides its values, one prepared statement each. One status is an
 * equality, so that the (site, status, updated_at) index gives the order; several are an array.
 */
interface ListShape {
  status?: 'one' | 'many';
  priority?: 'many';
  category?: 'none' | 'id';
  assignee?: 'none' | 'id';
  requester?: 'email' | 'id';
  tag?: 'one';
  q?: 'text';
  sla?: 'breached' | 'at_risk';
  createdAfter?: 'at';
  createdBefore?: 'at';
  /** An agent who is not an admin sees tickets in no category and in the categories it serves. */
  served?: 'served';
  sort: string;
}

interface ListValues {
  siteId: string;
  statuses: string[];
  priorities: string[];
  category: string;
  assignee: string;
  requester: string;
  tag: string;
  q: string;
  createdAfter: string;
  createdBefore: string;
  served: string[];
}

type ListParams = { [K in keyof ListValues]: Param<ListValues[K]> };

const LIST_PLACEHOLDERS: ListParams = {
  siteId: sql.placeholder('siteId'),
  statuses: sql.placeholder('statuses'),
  priorities: sql.placeholder('priorities'),
  category: sql.placeholder('category'),
  assignee: sql.placeholder('assignee'),
  requester: sql.placeholder('requester'),
  tag: sql.placeholder('tag'),
  q: sql.placeholder('q'),
  createdAfter: sql.placeholder('createdAfter'),
  createdBefore: sql.placeholder('createdBefore'),
  served: sql.placeholder('served'),
};

/** The list a query asks for, checked: its shape and the values that go with it. */
function listRequest(
  caller: HelpdeskCaller,
  siteId: string,
  query: TicketListQuery,
): { shape: ListShape; values: ListValues } {
  const shape: ListShape = { sort: query.sort ?? '-updated_at' };
  const values: ListValues = {
    siteId,
    statuses: [],
    priorities: [],
    category: '',
    assignee: '',
    requester: '',
    tag: '',
    q: '',
    createdAfter: '',
    createdBefore: '',
    served: [],
  };
  if (query.status) {
    values.statuses = [...new Set(oneOf('status', query.status, TICKET_STATUSES))];
    shape.status = values.statuses.length === 1 ? 'one' : 'many';
  }
  if (query.priority) {
    values.priorities = oneOf('priority', query.priority, TICKET_PRIORITIES);
    shape.priority = 'many';
  }
  if (query.category) {
    shape.category = query.category === 'none' ? 'none' : 'id';
    values.category = query.category;
  }
  if (query.assignee === 'me' && caller.kind !== 'member')
    throw new AppError('invalid_filter', "`assignee=me` needs an agent's credential.", { parameter: 'assignee' });
  if (query.assignee) {
    shape.assignee = query.assignee === 'none' ? 'none' : 'id';
    values.assignee = query.assignee === 'me' ? caller.id : query.assignee;
  }
  if (query.requester) {
    shape.requester = query.requester.includes('@') ? 'email' : 'id';
    values.requester = shape.requester === 'email' ? query.requester.trim().toLowerCase() : query.requester;
  }
  if (query.tag) {
    shape.tag = 'one';
    values.tag = query.tag.trim().toLowerCase();
  }
  if (query.q) {
    shape.q = 'text';
    values.q = query.q;
  }
  if (query.sla) shape.sla = query.sla;
  if (query.created_after) {
    shape.createdAfter = 'at';
    values.createdAfter = instantOf('created_after', query.created_after);
  }
  if (query.created_before) {
    shape.createdBefore = 'at';
    values.createdBefore = instantOf('created_before', query.created_before);
  }
  const served = servedCategoriesOf(caller);
  if (served) {
    shape.served = 'served';
    values.served = served;
  }
  return { shape, values };
}

/**
 * The list's filters over a ticket's fields as the triggers file them, as `ticketFilters` are in
 * SQL; a requester's address cannot be told from the fields (undefined). The SLA filters are never
 * asked: their lists are not kept.
 */
function passesOf(shape: ListShape, values: ListValues): ListedBy['passes'] {
  const after = shape.createdAfter && Date.parse(values.createdAfter);
  const before = shape.createdBefore && Date.parse(values.createdBefore);
  return (fields: FilteredFields) => {
    const createdAt = Date.parse(fields.created_at);
    const category = fields.category_id;
    if (shape.served && category !== null && !values.served.includes(category)) return false;
    if (shape.status && !values.statuses.includes(fields.status)) return false;
    if (shape.priority && !values.priorities.includes(fields.priority)) return false;
    if (shape.category && category !== (shape.category === 'none' ? null : values.category)) return false;
    if (shape.assignee && fields.assignee_id !== (shape.assignee === 'none' ? null : values.assignee)) return false;
    if (shape.requester === 'id' && fields.requester_id !== values.requester) return false;
    if (shape.tag && !fields.tags.includes(values.tag)) return false;
    if (after !== undefined && createdAt < after) return false;
    if (before !== undefined && createdAt >= before) return false;
    return shape.requester === 'email' ? undefined : true;
  };
}

/** A search's words and whether it excludes any, from its tsquery's text (`'printer' & !'jam'`). */
function searchWords(query: string): { words: string[]; negated: boolean } {
  const words: string[] = [];
  let negated = false;
  for (const [token, word] of query.matchAll(/'((?:[^']|'')*)'|!/g))
    if (token === '!') negated = true;
    else words.push(word!.replaceAll("''", "'"));
  return { words, negated };
}

function shapeKey(shape: ListShape): string {
  const { sort, ...filters } = shape;
  const parts = Object.entries(filters).map(([name, form]) => `${name}${form}`);
  return [...parts, sort.replace('-', 'desc')].join('_');
}

/** SQL: whether a ticket's subject, or one of its messages or notes, matches `q`. */
function searchedWhere(db: Executor, v: ListParams): SQL {
  // The subject and each entry are indexed on their own, so no ticket's text outgrows an index. The
  // tickets with a matching entry come as one array, so PostgreSQL ORs the subject's index with the
  // primary key's and reads each matching ticket once (not `id in (entries)`, whose generic plan
  // hash-joins every ticket of the site): a search that matches a few hundred tickets costs about a
  // millisecond at 200k.
  const query = sql`websearch_to_tsquery('english', ${v.q})`;
  const byEntry = db
    .select({ id: helpdeskEntries.ticketId })
    .from(helpdeskEntries)
    .where(and(eq(helpdeskEntries.siteId, v.siteId), sql`${entrySearchVector(helpdeskEntries.bodyText)} @@ ${query}`));
  return sql`(to_tsvector('english', ${t.subject}) @@ ${query} or ${t.id} = any(array(${byEntry})))`;
}

/** The shape's conditions over `v`: the prepared statement's placeholders, or the values themselves. */
function ticketFilters(db: Executor, shape: ListShape, v: ListParams): SQL {
  const conditions: Array<SQL | undefined> = [eq(t.siteId, v.siteId)];
  if (shape.served) conditions.push(servedTicketsWhere(v.served));
  if (shape.status === 'one') conditions.push(sql`${t.status} = (${textArray(v.statuses)})[1]`);
  if (shape.status === 'many') conditions.push(sql`${t.status} = any(${textArray(v.statuses)})`);
  if (shape.priority) conditions.push(sql`${t.priority} = any(${textArray(v.priorities)})`);
  if (shape.category) conditions.push(shape.category === 'none' ? isNull(t.categoryId) : eq(t.categoryId, v.category));
  if (shape.assignee) conditions.push(shape.assignee === 'none' ? isNull(t.assigneeId) : eq(t.assigneeId, v.assignee));
  if (shape.requester === 'id') conditions.push(eq(t.requesterId, v.requester));
  if (shape.requester === 'email') {
    const byEmail = db
      .select({ id: helpdeskContacts.id })
      .from(helpdeskContacts)
      .where(and(eq(helpdeskContacts.siteId, v.siteId), eq(helpdeskContacts.email, v.requester)));
    conditions.push(inArray(t.requesterId, byEmail));
  }
  if (shape.tag) conditions.push(sql`${t.tags} @> array[${v.tag}]::text[]`);
  if (shape.q) conditions.push(searchedWhere(db, v));
  if (shape.createdAfter) conditions.push(sql`${t.createdAt} >= ${v.createdAfter}::timestamptz`);
  if (shape.createdBefore) conditions.push(sql`${t.createdAt} < ${v.createdBefore}::timestamptz`);
  if (shape.sla === 'breached') conditions.push(breachedWhere());
  if (shape.sla === 'at_risk') conditions.push(atRiskWhere());
  return and(...conditions)!;
}

const matchingRows = (db: Executor, shape: ListShape, v: ListParams): SQL =>
  db
    .select({ one: sql`1` })
    .from(t)
    .where(ticketFilters(db, shape, v))
    .getSQL();

/** The columns a list sorts by (`sortOf`), which a search's matching tickets carry to be sorted. */
const sortedBy = sql.join(
  [
    t.id,
    t.updatedAt,
    t.createdAt,
    t.number,
    t.priority,
    t.status,
    t.solvedAt,
    t.firstResponseAt,
    t.firstResponseDueAt,
    t.resolutionDueAt,
  ].map((column: SQLWrapper) => sql`${column}`),
  sql`, `,
);

/**
 * A page of a list and its capped count, as one statement (decision 0058) prepared per shape: the
 * list is the help desk's busiest read, and building and planning it cost more than running it.
 *
 * The count (up to EXACT_COUNT_LIMIT + 1, from whichever index serves the filters) comes first and
 * chooses how the page is read (decision 0148). Past the limit the tickets are walked in the sort's
 * order until the page is full, which stops early because so many match. At or under it they are
 * read whole and sorted: walking the sort's index for a few matching tickets, or none, would read
 * every ticket of the site. Each branch is gated by the count as a one-time filter, so only one
 * runs. A search reads its matching tickets once, for the count and the page, and sorts them. The
 * page's tickets and their requesters are read by key last.
 */
const listStatement = preparedStatement(
  'helpdesk_ticket_list',
  (db, shape: ListShape) => {
    const v = LIST_PLACEHOLDERS;
    const order = sql.join(sortOf(shape.sort), sql`, `);
    const pageOf = (rows: SQL) =>
      sql`(select ${t.id} as ticket_id from ${rows} order by ${order} limit ${sql.placeholder('limit')} offset ${sql.placeholder('offset')})`;
    const filters = ticketFilters(db, shape, v);
    const found = db.$with('found', {}).as(sql`select ${sortedBy} from ${t} where ${filters}`);
    const total = db
      .$with('total', { n: sql<number>`n`.as('n') })
      .as(sql`select ${cappedCount(shape.q ? sql`select 1 from ${found}` : matchingRows(db, shape, v))} as n`);
    const n = sql`(select n from ${total})`;
    const many = sql.raw(String(EXACT_COUNT_LIMIT));
    // Sorted under the table's own name, so that the sort's columns name the rows' columns. In the
    // second branch the LIMIT is never reached (the count is at most EXACT_COUNT_LIMIT there): it
    // keeps the planner from walking the sort's index.
    const page = shape.q
      ? pageOf(sql`${found} ${t}`)
      : sql`${pageOf(sql`${t} where ${filters} and ${n} > ${many}`)} union all ${pageOf(
          sql`(select * from ${t} where ${filters} and ${n} <= ${many} limit ${many} + 1) ${t}`,
        )}`;
    const listed = db.$with('listed', {}).as(page);
    // A search tells, on one row, the tickets it matched (where it counted them all) and its query,
    // so that the node keeps the page through writes of other tickets (cached-lists.ts).
    const first = sql`row_number() over () = 1`;
    const ids = sql`(select ' ' || coalesce(string_agg(id, ' '), '') || ' ' from ${found})`;
    const matched = shape.q
      ? sql<string | null>`case when ${first} and ${n} <= ${many} then ${ids} end`
      : sql<null>`null`;
    const query = shape.q
      ? sql<string | null>`case when ${first} then websearch_to_tsquery('english', ${v.q})::text end`
      : sql<null>`null`;
    return db
      .with(...(shape.q ? [found] : []), total, listed)
      .select({
        ticket: listedColumns,
        requester: requesterColumns,
        counted: total.n,
        matched: matched.as('matched'),
        query: query.as('query'),
      })
      .from(total)
      .leftJoin(t, sql`${t.id} = any(array(select ticket_id from ${listed}))`)
      .leftJoin(helpdeskContacts, eq(helpdeskContacts.id, t.requesterId))
      .orderBy(...sortOf(shape.sort));
  },
  shapeKey,
);

/**
 * A page of the caller's tickets and the list's total: exact up to a threshold, the planner's estimate
 * past it (src/db/count.ts). One statement answers the count, the page and each row's requester; a
 * page past the end is one row with the count alone. The node keeps the page until the site's
 * tickets change (cached-lists.ts), unless it depends on the clock.
 */
export async function listTickets(
  db: Database,
  cache: TicketListCache,
  siteId: string,
  caller: HelpdeskCaller,
  query: TicketListQuery,
  page: Page,
): Promise<TicketListPage> {
  const { shape, values } = listRequest(caller, siteId, query);
  const load = async (): Promise<TicketListPage> => {
    const found = await listStatement(db, shape).execute({ ...values, limit: page.pageSize, offset: page.offset });
    const { total, estimated } = await totalOf(db, () => matchingRows(db, shape, values), found[0]?.counted ?? 0);
    const rows: TicketListPage['rows'] = [];
    for (const { ticket, requester } of found) if (ticket && requester) rows.push({ ticket, requester });
    const told = found.find((row) => row.query !== null);
    const listedBy: ListedBy = { passes: passesOf(shape, values) };
    if (told?.query != null) listedBy.search = { matched: told.matched ?? undefined, ...searchWords(told.query) };
    return { rows, total, estimated, listedBy };
  };
  return shape.sla ? load() : cache.page(siteId, JSON.stringify([shape, values, page.pageSize, page.offset]), load);
}

/** A ticket by id or number that the caller may see, with its requester; 404 otherwise. */
export async function findVisibleTicket(
  db: Executor,
  siteId: string,
  caller: HelpdeskCaller,
  idOrNumber: string,
): Promise<VisibleTicket> {
  const ticket = await findTicket(db, siteId, idOrNumber);
  if (!ticket || !canSeeTicket(caller, ticket)) throw new AppError('ticket_not_found', `No ticket "${idOrNumber}".`);
  return { ticket, requester: (await findContact(db, ticket.requesterId))! };
}
