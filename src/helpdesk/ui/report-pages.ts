// The reports pages of the agent inbox (/desk/reports/{kind}, and `{kind}.csv` to download): the
// API's reports (reports.ts) over the range the form asks for, for admins of the help desk as the
// API decides (requireAdmin). The CSV is the API's own rendering of the same report.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { sendPage } from '../../forum/ui/forms.js';
import { AppError } from '../../http/errors.js';
import { seeOther } from '../../http/forms.js';
import { requireAdmin } from '../policy.js';
import { INTERVALS, REPORT_KINDS, reportRange, runReport, toCsv, type ReportKind } from '../reports.js';
import { INBOX_PAGE } from './inbox-routes.js';
import { INBOX_HEAD } from './inbox-views.js';
import { rangeQuery, REPORT_WORDS, reportView, type ReportPage } from './report-views.js';

const RangeQuery = Type.Object({
  from: Type.Optional(Type.String({ maxLength: 20 })),
  to: Type.Optional(Type.String({ maxLength: 20 })),
  interval: Type.Optional(Type.String({ maxLength: 10 })),
});
type Range = { from?: string; to?: string; interval?: string };

/** A kind of report, and whether its CSV is asked for (`tickets.csv`). */
function reportOf(name: string): { kind: ReportKind; csv: boolean } {
  const [, kind, csv] = /^([a-z]+)(\.csv)?$/.exec(name) ?? [];
  if (!(REPORT_KINDS as readonly string[]).includes(kind ?? ''))
    throw new AppError('not_found', `There is no "${name}" report.`);
  return { kind: kind as ReportKind, csv: csv !== undefined };
}

/** The query's interval: a blank one is the default; an unknown one is refused like a bad day. */
function intervalOf(value: string | undefined): (typeof INTERVALS)[number] | undefined {
  if (!value) return undefined;
  if (!(INTERVALS as readonly string[]).includes(value))
    throw new AppError('invalid_report_range', `Unknown period "${value}": day, week or month.`);
  return value as (typeof INTERVALS)[number];
}

export async function reportPages(app: FastifyInstance): Promise<void> {
  const db = app.deps.database.db;

  app.get<{ Querystring: Range }>(
    '/desk/reports',
    { schema: { querystring: RangeQuery }, preHandler: INBOX_PAGE },
    async (request, reply) => {
      requireAdmin(request.helpdesk.caller);
      return seeOther(reply, `/desk/reports/tickets${rangeQuery(request.query)}`);
    },
  );

  app.get<{ Params: { kind: string }; Querystring: Range }>(
    '/desk/reports/:kind',
    {
      schema: { params: Type.Object({ kind: Type.String({ maxLength: 20 }) }), querystring: RangeQuery },
      preHandler: INBOX_PAGE,
    },
    async (request, reply) => {
      const { site, caller } = request.helpdesk;
      requireAdmin(caller);
      const { kind, csv } = reportOf(request.params.kind);
      // A blank field of the form is no filter.
      const query = {
        from: request.query.from || undefined,
        to: request.query.to || undefined,
        interval: request.query.interval || undefined,
      };
      const page: ReportPage = { kind, query };
      try {
        const range = reportRange({ ...query, interval: intervalOf(query.interval) }, site.createdAt);
        page.report = await runReport(db, site.id, kind, range);
      } catch (error) {
        if (!(error instanceof AppError) || error.code !== 'invalid_report_range' || csv) throw error;
        page.error = error.message;
      }
      if (csv && page.report)
        return reply
          .header('Cache-Control', 'no-store')
          .header(
            'content-disposition',
            `attachment; filename="helpdesk-${kind}-${page.report.from}-${page.report.to}.csv"`,
          )
          .type('text/csv; charset=utf-8')
          .send(toCsv(kind, page.report));
      return sendPage(reply, request.ui, `${REPORT_WORDS[kind]} report · Help desk`, reportView(request.ui, page), {
        status: page.error ? 422 : 200,
        private: true,
        head: INBOX_HEAD,
      });
    },
  );
}
