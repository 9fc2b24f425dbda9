// Help desk reports (docs/decisions/0085-helpdesk-reports.md), read from the append-only history
// and the tickets' SLA columns, each one SQL statement over a date range: what happened per period
// (tickets, trends, sla) or per agent and category. Every report answers `{from, to, interval,
// totals, rows}`; `toCsv` renders its rows for `Accept: text/csv`.
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/client.js';
import { AppError } from '../http/errors.js';
import { breachedWhere } from './sla.js';
import { helpdeskAgents, helpdeskCategories, helpdeskHistory as h, helpdeskTickets as t } from './tables.js';

export const REPORT_KINDS = ['tickets', 'agents', 'categories', 'sla', 'trends'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];
export const INTERVALS = ['day', 'week', 'month'] as const;
export type Interval = (typeof INTERVALS)[number];

/** The longest range one report covers. */
const MAX_DAYS = 400;
const DEFAULT_DAYS = 30;

export interface ReportRange {
  /** First day, inclusive (UTC). */
  from: string;
  /** Last day, inclusive (UTC). */
  to: string;
  interval: Interval;
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

/** The range a request asks for: the last 30 days by default, at most 400, `from` not after `to`. */
export function reportRange(query: { from?: string; to?: string; interval?: Interval }, now = new Date()): ReportRange {
  const to = query.to ?? day(now);
  const from = query.from ?? day(new Date(Date.parse(`${to}T00:00:00Z`) - (DEFAULT_DAYS - 1) * 86_400_000));
  const days = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000 + 1;
  if (!(days >= 1)) throw new AppError('invalid_report_range', `The range ends (${to}) before it starts (${from}).`);
  if (days > MAX_DAYS) throw new AppError('invalid_report_range', `A report covers at most ${MAX_DAYS} days; this range has ${days}.`);
  return { from, to, interval: query.interval ?? 'day' };
}

const start = (range: ReportRange): SQL => sql`${`${range.from}T00:00:00Z`}::timestamptz`;
/** The instant after the last day. */
const end = (range: ReportRange): SQL => sql`(${`${range.to}T00:00:00Z`}::timestamptz + interval '1 day')`;
const period = (range: ReportRange, column: SQLWrapper): SQL => sql`to_char(date_trunc(${range.interval}, ${column} at time zone 'UTC'), 'YYYY-MM-DD')`;
const inRange = (range: ReportRange, column: SQLWrapper): SQL => sql`${column} >= ${start(range)} and ${column} < ${end(range)}`;

/** Events of the range, per period: tickets created, solved and reopened, and agents' public replies. */
async function ticketsReport(db: Executor, siteId: string, range: ReportRange): Promise<Row[]> {
  return queryRows<Row>(
    db,
    sql`select ${period(range, h.createdAt)} as period,
        count(*) filter (where ${h.event} = 'created')::int as created,
        count(*) filter (where ${h.event} = 'status' and ${h.toValue} = '"solved"'::jsonb)::int as solved,
        count(*) filter (where ${h.event} = 'reopened')::int as reopened,
        count(*) filter (where ${h.event} = 'reply' and ${h.actorKind} <> 'requester')::int as agent_replies,
        count(*) filter (where ${h.event} = 'reply' and ${h.actorKind} = 'requester')::int as requester_replies
      from ${h} where ${h.siteId} = ${siteId} and ${inRange(range, h.createdAt)}
      group by 1 order by 1`,
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

/** Per agent: tickets assigned to them, public replies and solves by them in the range, and open tickets now. */
async function agentsReport(db: Executor, siteId: string, range: ReportRange): Promise<Row[]> {
  return queryRows<Row>(
    db,
    sql`select a.member_id as agent_id, m.username,
        (select count(*) from ${h} where ${h.siteId} = ${siteId} and ${h.event} = 'assignee' and ${h.toValue} = to_jsonb(a.member_id) and ${inRange(range, h.createdAt)})::int as assigned,
        (select count(*) from ${h} where ${h.siteId} = ${siteId} and ${h.event} = 'reply' and ${h.actorKind} = 'member' and ${h.actorId} = a.member_id and ${inRange(range, h.createdAt)})::int as replies,
        (select count(*) from ${h} where ${h.siteId} = ${siteId} and ${h.event} = 'status' and ${h.toValue} = '"solved"'::jsonb and ${h.actorKind} = 'member' and ${h.actorId} = a.member_id and ${inRange(range, h.createdAt)})::int as solved,
        (select count(*) from ${t} where ${t.siteId} = ${siteId} and ${t.assigneeId} = a.member_id and ${t.status} not in ('solved', 'closed'))::int as open_now
      from ${helpdeskAgents} a join forum_members m on m.id = a.member_id
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
const NOT_SUMMED = new Set(['period', 'agent_id', 'username', 'category_id', 'name', 'avg_first_response_minutes', 'backlog_change']);

export async function runReport(db: Executor, siteId: string, kind: ReportKind, range: ReportRange): Promise<Report> {
  const rows = await REPORTS[kind](db, siteId, range);
  const totals: Record<string, number> = {};
  for (const row of rows) for (const [name, value] of Object.entries(row)) if (!NOT_SUMMED.has(name)) totals[name] = (totals[name] ?? 0) + Number(value ?? 0);
  if (kind === 'trends') totals.backlog_change = Number(rows.at(-1)?.backlog_change ?? 0);
  return { from: range.from, to: range.to, interval: range.interval, totals, rows };
}

function csvCell(value: string | number | null): string {
  const text = value === null ? '' : String(value);
  // A leading =, +, - or @ would be a formula in a spreadsheet.
  const safe = /^[=+\-@]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** The report's rows as CSV (RFC 4180), a header line first; empty rows still give the header of the report's kind. */
export function toCsv(report: Report): string {
  const columns = Object.keys(report.rows[0] ?? report.totals);
  return [columns.join(','), ...report.rows.map((row) => columns.map((name) => csvCell(row[name] ?? null)).join(','))].join('\r\n') + '\r\n';
}
