// List totals that stay cheap on big tables (docs/decisions/0100-helpdesk-at-size.md): rows are
// counted exactly up to a threshold, and past it the planner's estimate of the same statement stands
// in, so a page of a list of 30,000 rows does not count them all on every request. The capped count
// can ride in the page's own statement (`cappedCount`), and an estimate is remembered per node for a
// minute (docs/decisions/0058-helpdesk-list-one-statement.md).
import { sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { queryRows, type Executor } from './client.js';

/** Totals up to this many rows are exact. */
export const EXACT_COUNT_LIMIT = 1_000;
/** How long a planner's estimate of a list's rows is reused: it moves only when the table is analyzed. */
const ESTIMATE_FRESH_MS = 60_000;
const MAX_ESTIMATES = 1_000;

interface ListTotal {
  total: number;
  /** True when the total is the planner's estimate (past EXACT_COUNT_LIMIT). */
  estimated: boolean;
}

/** The rows of `rows` (a `select` without order or limit) counted up to `limit + 1`, as a scalar subquery. */
export function cappedCount(rows: SQL, limit = EXACT_COUNT_LIMIT): SQL<number> {
  return sql<number>`(select count(*)::int from (${rows} limit ${limit + 1}) capped)`;
}

const dialect = new PgDialect();
const estimates = new WeakMap<Executor, Map<string, { rows: number; until: number }>>();

async function plannedRows(db: Executor, rows: SQL, now = Date.now()): Promise<number> {
  const query = dialect.sqlToQuery(rows);
  const key = `${query.sql}\n${JSON.stringify(query.params)}`;
  let cached = estimates.get(db);
  if (!cached) estimates.set(db, (cached = new Map()));
  const hit = cached.get(key);
  if (hit && hit.until > now) return hit.rows;
  const [plan] = await queryRows<Record<string, unknown>>(db, sql`explain (format json) ${rows}`);
  const json = Object.values(plan ?? {})[0];
  const parsed = (typeof json === 'string' ? JSON.parse(json) : json) as Array<{ Plan: { 'Plan Rows': number } }>;
  const planned = Math.round(parsed[0]?.Plan['Plan Rows'] ?? 0);
  cached.delete(key);
  cached.set(key, { rows: planned, until: now + ESTIMATE_FRESH_MS });
  if (cached.size > MAX_ESTIMATES) cached.delete(cached.keys().next().value!);
  return planned;
}

/**
 * The total from a capped count of `rows`: exact up to `limit`, else estimated (never below the limit,
 * as the rows counted prove that many). `rows` is built only for an estimate.
 */
export async function totalOf(
  db: Executor,
  rows: () => SQL,
  counted: number,
  limit = EXACT_COUNT_LIMIT,
): Promise<ListTotal> {
  if (counted <= limit) return { total: counted, estimated: false };
  return { total: Math.max(limit + 1, await plannedRows(db, rows())), estimated: true };
}

/** The number of rows `rows` gives: counted up to `limit`, estimated past it. */
export async function listTotal(db: Executor, rows: SQL, limit = EXACT_COUNT_LIMIT): Promise<ListTotal> {
  const [counted] = await queryRows<{ n: number }>(db, sql`select ${cappedCount(rows, limit)} as n`);
  return totalOf(db, () => rows, counted?.n ?? 0, limit);
}
