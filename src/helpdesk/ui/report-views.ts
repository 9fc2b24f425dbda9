// The help desk's reports as pages (/desk/reports/{kind}): the report of the API (reports.ts) over
// a date range, a chart of its main figures drawn as inline SVG (charts.ts), every figure in a table
// beside it, and the same report as CSV to download.
import type { UiContext } from '../../forum/ui/context.js';
import { notice } from '../../forum/ui/layout.js';
import { html, type SafeHtml } from '../../lib/html.js';
import { INTERVALS, REPORT_COLUMNS, REPORT_KINDS, type Report, type ReportKind } from '../reports.js';
import { barChart, type ChartSeries } from './charts.js';
import { inboxFrame } from './inbox-views.js';

export const REPORT_WORDS: Record<ReportKind, string> = {
  tickets: 'Tickets',
  agents: 'Agents',
  categories: 'Categories',
  sla: 'SLA',
  trends: 'Trends',
};

const KIND_HINTS: Record<ReportKind, string> = {
  tickets: 'Tickets created, solved and reopened, and replies, per period.',
  agents:
    'Per agent: tickets assigned to them, their public replies and solves in the range, and their open tickets now.',
  categories: 'Per category: tickets opened and solved in the range, and open tickets now.',
  sla: 'Tickets opened in the range, per period: how many missed their targets, and the average first response.',
  trends: 'Created against solved per period, with the open backlog’s running change as a line.',
};

const INTERVAL_WORDS: Record<(typeof INTERVALS)[number], string> = { day: 'Day', week: 'Week', month: 'Month' };

/** Column headings of the reports' rows. */
const COLUMN_WORDS: Record<string, string> = {
  period: 'Period',
  username: 'Agent',
  name: 'Category',
  created: 'Created',
  solved: 'Solved',
  reopened: 'Reopened',
  agent_replies: 'Agent replies',
  requester_replies: 'Requester replies',
  assigned: 'Assigned',
  replies: 'Replies',
  open_now: 'Open now',
  tickets: 'Tickets',
  first_response_breached: 'First response missed',
  resolution_breached: 'Resolution missed',
  breached: 'Breached now',
  paused: 'Paused',
  avg_first_response_minutes: 'Average first response (min)',
  backlog_change: 'Backlog change',
};

/** Ids the table leaves out: the name beside them says who or what. */
const HIDDEN_COLUMNS = new Set(['agent_id', 'category_id']);

/** What each report's chart draws: its label column, its bars and its line. */
const CHARTS: Record<ReportKind, { label: string; bars: string[]; line?: string }> = {
  tickets: { label: 'period', bars: ['created', 'solved', 'reopened'] },
  trends: { label: 'period', bars: ['created', 'solved'], line: 'backlog_change' },
  sla: { label: 'period', bars: ['tickets', 'first_response_breached', 'resolution_breached'] },
  agents: { label: 'username', bars: ['assigned', 'replies', 'solved'] },
  categories: { label: 'name', bars: ['created', 'solved', 'open_now'] },
};

const columnWords = (name: string): string => COLUMN_WORDS[name] ?? name.replace(/_/g, ' ');

export interface ReportPage {
  kind: ReportKind;
  /** What the range form shows: the query as given. */
  query: { from?: string | undefined; to?: string | undefined; interval?: string | undefined };
  /** The report, or undefined when the range was refused (`error`). */
  report?: Report | undefined;
  error?: string | undefined;
}

/** The querystring of a report's range, as links and the CSV download carry it. */
export function rangeQuery(query: ReportPage['query']): string {
  const params = new URLSearchParams();
  for (const name of ['from', 'to', 'interval'] as const) if (query[name]) params.set(name, query[name]);
  const text = params.toString();
  return text ? `?${text}` : '';
}

function rangeForm(page: ReportPage): SafeHtml {
  const perPeriod = CHARTS[page.kind].label === 'period';
  const shown = { from: page.query.from ?? page.report?.from ?? '', to: page.query.to ?? page.report?.to ?? '' };
  return html`<form class="desk-filters report-range" method="get" action="/desk/reports/${page.kind}" aria-label="Date range of the report"><div class="grid">
<div><label for="report-from">From</label><input type="date" id="report-from" name="from" value="${shown.from}"></div>
<div><label for="report-to">To</label><input type="date" id="report-to" name="to" value="${shown.to}"></div>
${
  perPeriod
    ? html`<div><label for="report-interval">Per</label><select id="report-interval" name="interval">${INTERVALS.map(
        (interval) =>
          html`<option value="${interval}"${interval === (page.query.interval ?? 'day') ? ' selected' : ''}>${INTERVAL_WORDS[interval]}</option>`,
      )}</select></div>`
    : ''
}
<div class="apply"><button type="submit">Show</button></div></div>
<p class="hint">Days in UTC, both included; at most 400 days. Without dates: the last 30 days.</p></form>`;
}

function figuresTable(kind: ReportKind, report: Report): SafeHtml {
  const columns = REPORT_COLUMNS[kind].filter((name) => !HIDDEN_COLUMNS.has(name));
  const label = CHARTS[kind].label;
  const cell = (value: string | number | null) => (value === null ? '–' : value);
  return html`<div class="scroll" tabindex="0" role="group" aria-label="Figures of the report (scrolls sideways)"><table class="list report-figures"><caption>${REPORT_WORDS[kind]} report, ${report.from} to ${report.to}</caption>
<thead><tr>${columns.map((name) => html`<th scope="col">${columnWords(name)}</th>`)}</tr></thead>
<tbody>${report.rows.map((row) => html`<tr>${columns.map((name) => (name === label ? html`<th scope="row">${cell(row[name] ?? null)}</th>` : html`<td>${cell(row[name] ?? null)}</td>`))}</tr>`)}</tbody>
${
  Object.keys(report.totals).length > 0
    ? html`<tfoot><tr>${columns.map((name, index) => (index === 0 ? html`<th scope="row">Total</th>` : html`<td>${report.totals[name] ?? ''}</td>`))}</tr></tfoot>`
    : ''
}</table></div>`;
}

function chartOf(kind: ReportKind, report: Report): SafeHtml {
  const spec = CHARTS[kind];
  const series = (name: string): ChartSeries => ({
    name: columnWords(name),
    values: report.rows.map((row) => Number(row[name] ?? 0)),
  });
  const bars = spec.bars.map(series);
  const line = spec.line ? series(spec.line) : undefined;
  const sums = [...spec.bars, ...(spec.line ? [spec.line] : [])]
    .map((name) => `${columnWords(name).toLowerCase()} ${report.totals[name] ?? 0}`)
    .join(', ');
  const over = spec.label === 'period' ? `per ${report.interval}` : `per ${columnWords(spec.label).toLowerCase()}`;
  return barChart({
    id: `chart-${kind}`,
    title: `${REPORT_WORDS[kind]} ${over}, ${report.from} to ${report.to}`,
    description: `${report.rows.length} ${spec.label === 'period' ? 'periods' : 'rows'}; in all: ${sums}. Every figure is in the table below the chart.`,
    labels: report.rows.map((row) => String(row[spec.label] ?? '')),
    bars,
    line,
  });
}

export function reportView(ui: UiContext, page: ReportPage): SafeHtml {
  const query = rangeQuery(page.query);
  const tabs = html`<nav class="tabs admin-tabs report-tabs" aria-label="Reports"><ul>${REPORT_KINDS.map(
    (kind) =>
      html`<li><a href="/desk/reports/${kind}${query}"${kind === page.kind ? html` aria-current="page"` : ''}>${REPORT_WORDS[kind]}</a></li>`,
  )}</ul></nav>`;
  const report = page.report;
  const body = html`${tabs}
<p class="muted">${KIND_HINTS[page.kind]}</p>
${rangeForm(page)}
${page.error ? notice('error', page.error) : ''}
${
  report
    ? html`<p class="report-actions"><a class="button secondary" href="/desk/reports/${page.kind}.csv${query}" download>Download CSV<span class="sr-only"> of the ${REPORT_WORDS[page.kind].toLowerCase()} report</span></a></p>
${chartOf(page.kind, report)}
${report.rows.length > 0 ? figuresTable(page.kind, report) : ''}`
    : ''
}`;
  return inboxFrame(ui, 'reports', `${REPORT_WORDS[page.kind]} report`, body);
}
