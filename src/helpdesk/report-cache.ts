// Recent report answers cached per node (docs/decisions/0057-helpdesk-report-cache.md). A report over
// 90 days reads every ticket opened in them; an answer is reused while the site's help desk has not
// changed since (its change marker below). Past REPORT_FRESH_MS with nothing changed it is still
// answered while one request computes the next, which bounds how far the clocks of the SLA report
// and changes no marker sees (a member renamed) lag. Concurrent requests for an answer being
// computed share it.
import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/client.js';

/** How long an answer is reused at most, even with nothing changed. */
const REPORT_FRESH_MS = 30_000;
/** Answers cached per database; the oldest go first. */
const MAX_ANSWERS = 256;

interface Remembered<T> {
  marker: string;
  until: number;
  answer: Promise<T>;
  /** A request is computing the next answer for this old one. */
  refreshing: boolean;
}

const byDatabase = new WeakMap<Executor, Map<string, Remembered<unknown>>>();

/**
 * What changes when a report's answer may: every change of a ticket appends to its history (the
 * latest row's time), and the agents and categories are counted and their latest change read.
 * Index-only reads of a few rows.
 */
async function changeMarker(db: Executor, siteId: string): Promise<string> {
  const [row] = await queryRows<{ marker: string }>(
    db,
    sql`select concat_ws('|',
        (select max(created_at) from helpdesk_history where site_id = ${siteId})::text,
        (select count(*) || ':' || coalesce(max(updated_at)::text, '') from helpdesk_agents where site_id = ${siteId}),
        (select count(*) || ':' || coalesce(max(updated_at)::text, '') from helpdesk_categories where site_id = ${siteId})) as marker`,
  );
  return row?.marker ?? '';
}

/** The answer for `key` of the site: remembered while the site has not changed and fresh, else computed. */
export async function rememberedReport<T>(
  db: Executor,
  siteId: string,
  key: string,
  compute: () => Promise<T>,
  now = Date.now(),
): Promise<T> {
  let answers = byDatabase.get(db);
  if (!answers) byDatabase.set(db, (answers = new Map()));
  const id = `${siteId}\n${key}`;
  const marker = await changeMarker(db, siteId);
  const cached = answers.get(id) as Remembered<T> | undefined;
  if (cached && cached.marker === marker) {
    if (cached.until > now) return cached.answer;
    // Old, with nothing changed: answered as it is while one request computes the next answer.
    if (!cached.refreshing) {
      cached.refreshing = true;
      remember(answers, id, marker, compute(), now).catch(() => {
        cached.refreshing = false;
      });
    }
    return cached.answer;
  }
  return remember(answers, id, marker, compute(), now);
}

async function remember<T>(
  answers: Map<string, Remembered<unknown>>,
  id: string,
  marker: string,
  answer: Promise<T>,
  now: number,
): Promise<T> {
  const previous = answers.get(id);
  const settled = answer.then(() => {
    answers.delete(id);
    answers.set(id, { marker, until: now + REPORT_FRESH_MS, answer, refreshing: false });
    if (answers.size > MAX_ANSWERS) answers.delete(answers.keys().next().value!);
  });
  // Requests for a changed desk share the answer being computed (a refresh does not: the old one stands).
  if (!previous || previous.marker !== marker)
    answers.set(id, { marker, until: now + REPORT_FRESH_MS, answer, refreshing: false });
  try {
    await settled;
    return await answer;
  } catch (error) {
    // A failed answer is not cached.
    if (answers.get(id)?.answer === answer) answers.delete(id);
    throw error;
  }
}
