// Help desk reports (docs/decisions/0085-helpdesk-reports.md), read from the append-only history
// and the tickets' SLA columns, each one SQL statement over a date range: what happened per period
// (tickets, trends, sla) or per agent and category. The tickets and trends reports read closed days
// from their daily sums (helpdesk_report_days, summed once per day and site) and the last hours from
// the history itself (docs/decisions/0100-helpdesk-at-size.md). Every report answers `{from, to, interval,
// totals, rows}`; `toCsv` renders its rows for `Accept: text/csv`.
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/client.js';
import { AppError } from '../http/errors.js';
import { rememberedReport } from './report-cache.js';
import { breachedWhere } from './sla.js';
import {
  helpdeskAgents,
  helpdeskCategories,
  helpdeskHistory as h,
  helpdeskReportDays as d,
  helpdeskTickets as t,
} from './tables.js';

export const REPORT_KINDS = ['tickets', 'agents', 'categories', 'sla', 'trends'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];
export const INTERVALS = ['day', 'week', 'month'] as const;
type Interval = (typeof INTERVALS)[number];

/** The longest range one report covers. */
const MAX_DAYS = 400;
const DEFAULT_DAYS = 30;

interface ReportRange {
  /** First day, inclusive (UTC). */
  from: string;
  /** Last day, inclusive (UTC). */
  to: string;
  interval: Interval;
  /** The site's first day (UTC): no day before it has anything to count, so none is summed. */
  siteFirstDay: string;
}

type Row = Record<string, string | number | null>;

export interface Report {
  from: string;
  to: string;
  interval: Interval;
  totals: Record<string, number>;
  rows: Row[];
}

const day = (date: Date): string => date.toISOString().slice(0, 10);

/** Days a report may name: what JavaScript and PostgreSQL both read as the same calendar day. */
const FIRST_DAY = '1970-01-01';
const LAST_DAY = '9999-12-31';

function checkDay(value: string, name: 'from' | 'to'): void {
  const parsed = Date.parse(`${value}T00:00:00Z`);
  if (!/^\d{4}-\d\d-\d\d$/.test(value) || Number.isNaN(parsed) || day(new Date(parsed)) !== value)
    throw new AppError('invalid_report_range', `\`${name}\` (${value}) is not a calendar day (YYYY-MM-DD).`);
  if (value < FIRST_DAY || value > LAST_DAY)
    throw new AppError('invalid_report_range', `\`${name}\` (${value}) is not between ${FIRST_DAY} and ${LAST_DAY}.`);
}

/**
 * The range a request asks for: the last 30 days by default, at most 400, `from` not after `to`,
 * each a calendar day from 1970 on. Only the days of the site's lifetime are ever summed.
 */
export function reportRange(
  query: { from?: string; to?: string; interval?: Interval },
  siteCreatedAt: Date,
  now = new Date(),
): ReportRange {
  const to = query.to ?? day(now);
  checkDay(to, 'to');
  const from =
    query.from ?? day(new Date(Math.max(Date.parse(`${to}T00:00:00Z`) - (DEFAULT_DAYS - 1) * 86_400_000, 0)));
  checkDay(from, 'from');
  const days = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000 + 1;
  if (!(days >= 1)) throw new AppError('invalid_report_range', `The range ends (${to}) before it starts (${from}).`);
  if (days > MAX_DAYS)
    throw new AppError('invalid_report_range', `A report covers at most ${MAX_DAYS} days; this range has ${days}.`);
  return { from, to, interval: query.interval ?? 'day', siteFirstDay: day(siteCreatedAt) };
}

const start = (range: ReportRange): SQL => sql`${`${range.from}T00:00:00Z`}::timestamptz`;
/** The instant after the last day. */
const end = (range: ReportRange): SQL => sql`(${`${range.to}T00:00:00Z`}::timestamptz + interval '1 day')`;
const period = (range: ReportRange, column: SQLWrapper): SQL =>
  sql`to_char(date_trunc(${range.interval}, ${column} at time zone 'UTC'), 'YYYY-MM-DD')`;
const inRange = (range: ReportRange, column: SQLWrapper): SQL =>
  sql`${column} >= ${start(range)} and ${column} < ${end(range)}`;

/**
 * Days whose history is complete: those before the UTC day of an hour ago. History rows take their
 * transaction's start as `created_at`, so a row of a day may commit a little after the day ends.
 */
const CLOSED_BEFORE = sql`(date_trunc('day', (now() - interval '1 hour') at time zone 'UTC'))::date`;

/** The tickets report's counts of history rows (aliased h). */
const DAY_COUNTS = sql`count(h.id)::int as events,
        count(*) filter (where h.event = 'created')::int as created,
        count(*) filter (where h.event = 'status' and h.to_value = '"solved"'::jsonb)::int as solved,
        count(*) filter (where h.event = 'reopened')::int as reopened,
        count(*) filter (where h.event = 'reply' and h.actor_kind <> 'requester')::int as agent_replies,
        count(*) filter (where h.event = 'reply' and h.actor_kind = 'requester')::int as requester_replies`;

/**
 * Sums the closed days of the range not summed yet, each from its own stretch of
 * helpdesk_history_site_idx; a day without history gets a row of zeros. Only days of the site's
 * lifetime are summed, so a read writes at most one row per day the site has existed, once.
 * Finding the missing days
 * is a statement of its own: the insert's plan costs every day's scan, enough for a JIT compilation
 * (hundreds of milliseconds), even when no day is missing. The days are counted with integers so
 * that the planner knows how many there are.
 */
async function sumClosedDays(db: Executor, siteId: string, range: ReportRange): Promise<void> {
  const missing = await queryRows<{ day: string }>(
    db,
    sql`select (f.day + i)::text as day
      from (select greatest(${range.from}::date, ${range.siteFirstDay}::date) as day) f,
        generate_series(0, least(${range.to}::date, ${CLOSED_BEFORE} - 1) - f.day) i
      where not exists (select 1 from ${d} where ${d.siteId} = ${siteId} and ${d.day} = f.day + i)`,
  );
  if (missing.length === 0) return;
  const days = sql.join(
    missing.map((row) => sql`${row.day}::date`),
    sql`, `,
  );
  await db.execute(sql`insert into ${d} (site_id, day, events, created, solved, reopened, agent_replies, requester_replies)
    select ${siteId}, m.day, c.*
    from unnest(array[${days}]) m(day)
      cross join lateral (
        select ${DAY_COUNTS} from ${h} h
        where h.site_id = ${siteId} and h.created_at >= m.day::timestamp at time zone 'UTC' and h.created_at < (m.day + 1)::timestamp at time zone 'UTC'
      ) c
    on conflict do nothing`);
}

/** Events of the range, per period: tickets created, solved and reopened, and agents' public replies. */
async function ticketsReport(db: Executor, siteId: string, range: ReportRange): Promise<Row[]> {
  await sumClosedDays(db, siteId, range);
  return queryRows<Row>(
    db,
    sql`select to_char(date_trunc(${range.interval}, days.day::timestamp), 'YYYY-MM-DD') as period,
        sum(days.created)::int as created, sum(days.solved)::int as solved, sum(days.reopened)::int as reopened,
        sum(days.agent_replies)::int as agent_replies, sum(days.requester_replies)::int as requester_replies
      from (
        select ${d.day}::date as day, ${d.events} as events, ${d.created} as created, ${d.solved} as solved, ${d.reopened} as reopened, ${d.agentReplies} as agent_replies, ${d.requesterReplies} as requester_replies
          from ${d} where ${d.siteId} = ${siteId} and ${d.day} >= ${range.from}::date and ${d.day} <= ${range.to}::date and ${d.day} < ${CLOSED_BEFORE}
        union all
        select (h.created_at at time zone 'UTC')::date as day, ${DAY_COUNTS}
          from ${h} h where h.site_id = ${siteId} and ${inRange(range, sql`h.created_at`)} and h.created_at >= ${CLOSED_BEFORE}::timestamp at time zone 'UTC'
          group by 1
      ) days
      group by 1 having sum(days.events) > 0 order by 1`,
  );
}

/** Per period: created and solved, and the running change of the open backlog over the range. */
async function trendsReport(db: Executor, siteId: string, range: ReportRange): Promise<Row[]> {
  const rows = await ticketsReport(db, siteId, range);
  let backlog = 0;
  return rows.map((row) => {
    const created = Number(row.created);
    const closed = Number(row.solved);
    backlog += created + Number(row.reopened) - closed;
    return { period: row.period!, created, solved: closed, reopened: Number(row.reopened), backlog_change: backlog };
  });
}

/** Tickets opened in the range, per period: how many met or missed their targets, and where their clocks stand now. */
async function slaReport(db: Executor, siteId: string, range: ReportRange): Promise<Row[]> {
  return queryRows<Row>(
    db,
    sql`select ${period(range, t.createdAt)} as period,
        count(*)::int as tickets,
        count(*) filter (where ${t.firstResponseDueAt} is not null and coalesce(${t.firstResponseAt}, ${t.slaPausedAt}, now()) > ${t.firstResponseDueAt})::int as first_response_breached,
        count(*) filter (where ${t.resolutionDueAt} is not null and coalesce(${t.solvedAt}, ${t.slaPausedAt}, now()) > ${t.resolutionDueAt})::int as resolution_breached,
        count(*) filter (where ${breachedWhere()})::int as breached,
        count(*) filter (where ${t.slaPausedAt} is not null)::int as paused,
        round(avg(extract(epoch from (${t.firstResponseAt} - ${t.createdAt})) / 60) filter (where ${t.firstResponseAt} is not null))::int as avg_first_response_minutes
      from ${t} where ${t.siteId} = ${siteId} and ${inRange(range, t.createdAt)}
      group by 1 order by 1`,
  );
}

/**
 * Per agent: tickets assigned to them, public replies and solves by them in the range, and open
 * tickets now. The range's history is read once, each row counted for the agent it names.
 */
async function agentsReport(db: Executor, siteId: string, range: ReportRange): Promise<Row[]> {
  return queryRows<Row>(
    db,
    sql`select a.member_id as agent_id, m.username,
        coalesce(w.assigned, 0)::int as assigned, coalesce(w.replies, 0)::int as replies, coalesce(w.solved, 0)::int as solved,
        (select count(*) from ${t} where ${t.siteId} = ${siteId} and ${t.assigneeId} = a.member_id and ${t.status} not in ('solved', 'closed'))::int as open_now
      from ${helpdeskAgents} a join forum_members m on m.id = a.member_id
        left join (
          select case when ${h.event} = 'assignee' then ${h.toValue} #>> '{}' else ${h.actorId} end as agent_id,
            count(*) filter (where ${h.event} = 'assignee') as assigned,
            count(*) filter (where ${h.event} = 'reply') as replies,
            count(*) filter (where ${h.event} = 'status') as solved
          from ${h}
          where ${h.siteId} = ${siteId} and ${inRange(range, h.createdAt)}
            and (${h.event} = 'assignee' or (${h.actorKind} = 'member' and (${h.event} = 'reply' or (${h.event} = 'status' and ${h.toValue} = '"solved"'::jsonb))))
          group by 1
        ) w on w.agent_id = a.member_id
      where a.site_id = ${siteId}
      order by m.username`,
  );
}

/** Per category (and none): tickets opened and solved in the range, and open tickets now. */
async function categoriesReport(db: Executor, siteId: string, range: ReportRange): Promise<Row[]> {
  return queryRows<Row>(
    db,
    sql`select c.id as category_id, coalesce(c.name, '(none)') as name,
        count(${t.id}) filter (where ${inRange(range, t.createdAt)})::int as created,
        count(${t.id}) filter (where ${t.solvedAt} is not null and ${inRange(range, t.solvedAt)})::int as solved,
        count(${t.id}) filter (where ${t.status} not in ('solved', 'closed'))::int as open_now
      from ${t} left join ${helpdeskCategories} c on c.id = ${t.categoryId}
      where ${t.siteId} = ${siteId}
      group by c.id, c.name order by 2`,
  );
}

const REPORTS: Record<ReportKind, (db: Executor, siteId: string, range: ReportRange) => Promise<Row[]>> = {
  tickets: ticketsReport,
  trends: trendsReport,
  sla: slaReport,
  agents: agentsReport,
  categories: categoriesReport,
};

/** Columns summed into `totals`: the counts, not ids, names, averages or running values. */
const NOT_SUMMED = new Set([
  'period',
  'agent_id',
  'username',
  'category_id',
  'name',
  'avg_first_response_minutes',
  'backlog_change',
]);

/** The report, as remembered while the site has not changed (report-cache.ts) or computed. */
export function runReport(db: Executor, siteId: string, kind: ReportKind, range: ReportRange): Promise<Report> {
  return rememberedReport(db, siteId, `${kind} ${range.from} ${range.to} ${range.interval}`, () =>
    computeReport(db, siteId, kind, range),
  );
}

async function computeReport(db: Executor, siteId: string, kind: ReportKind, range: ReportRange): Promise<Report> {
  const rows = await REPORTS[kind](db, siteId, range);
  const totals: Record<string, number> = {};
  for (const row of rows)
    for (const [name, value] of Object.entries(row))
      if (!NOT_SUMMED.has(name)) totals[name] = (totals[name] ?? 0) + Number(value ?? 0);
  if (kind === 'trends') totals.backlog_change = Number(rows.at(-1)?.backlog_change ?? 0);
  return { from: range.from, to: range.to, interval: range.interval, totals, rows };
}

function csvCell(value: string | number | null): string {
  const text = value === null ? '' : String(value);
  // Text (a name) led by =, +, -, @, a tab or a carriage return would be a formula in a spreadsheet;
  // numbers, a negative backlog change among them, stay numbers.
  const safe = typeof value === 'string' && /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** The columns of each report's rows, in order. */
export const REPORT_COLUMNS: Record<ReportKind, readonly string[]> = {
  tickets: ['period', 'created', 'solved', 'reopened', 'agent_replies', 'requester_replies'],
  trends: ['period', 'created', 'solved', 'reopened', 'backlog_change'],
  sla: [
    'period',
    'tickets',
    'first_response_breached',
    'resolution_breached',
    'breached',
    'paused',
    'avg_first_response_minutes',
  ],
  agents: ['agent_id', 'username', 'assigned', 'replies', 'solved', 'open_now'],
  categories: ['category_id', 'name', 'created', 'solved', 'open_now'],
};

/** The report's rows as CSV (RFC 4180), a header line first; a report without rows still gives the header of its kind. */
export function toCsv(kind: ReportKind, report: Report): string {
  const columns = REPORT_COLUMNS[kind];
  return (
    [columns.join(','), ...report.rows.map((row) => columns.map((name) => csvCell(row[name] ?? null)).join(','))].join(
      '\r\n',
    ) + '\r\n'
  );
}
