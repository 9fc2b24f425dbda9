// `GET /reports/{tickets|agents|categories|sla|trends}`: JSON, or CSV with `Accept: text/csv`
// (reports.ts, docs/decisions/0085-helpdesk-reports.md). Admins of the help desk, API keys with
// helpdesk-read and the owner's session read them; agents see their tickets, not the desk's figures.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { declareSecurity, problems } from '../http/openapi.js';
import { helpdeskAccess } from './access.js';
import { requireAdmin } from './policy.js';
import { INTERVALS, REPORT_KINDS, reportRange, runReport, toCsv } from './reports.js';
import { helpdeskSecurity } from './schemas.js';

const ReportParams = Type.Object({ kind: Type.Union(REPORT_KINDS.map((kind) => Type.Literal(kind))) });
const ReportQuery = Type.Object({
  from: Type.Optional(
    Type.String({ format: 'date', description: 'First day (UTC), inclusive; default 29 days before `to`.' }),
  ),
  to: Type.Optional(
    Type.String({ format: 'date', description: 'Last day (UTC), inclusive; default today. At most 400 days in all.' }),
  ),
  interval: Type.Optional(
    Type.Union(
      INTERVALS.map((interval) => Type.Literal(interval)),
      { description: 'Period of the per-period reports (tickets, sla, trends); default day.' },
    ),
  ),
});
const ReportOut = Type.Object({
  from: Type.String({ format: 'date' }),
  to: Type.String({ format: 'date' }),
  interval: Type.String(),
  totals: Type.Record(Type.String(), Type.Number(), {
    description: 'Each count summed over the rows (trends: the backlog change over the range).',
  }),
  rows: Type.Array(Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Null()])), {
    description: 'Per period (`period`: its first day), agent or category.',
  }),
});

const read = declareSecurity(helpdeskAccess('helpdesk-read'), helpdeskSecurity);

export async function reportRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/reports/:kind',
    {
      schema: {
        tags: ['reports'],
        summary:
          'A report over a date range: tickets, agents, categories, sla or trends (JSON, or CSV with Accept: text/csv)',
        params: ReportParams,
        querystring: ReportQuery,
        response: { 200: ReportOut, ...problems(422) },
      },
      preHandler: read,
    },
    async (request, reply) => {
      const { site, caller } = request.helpdesk;
      requireAdmin(caller);
      const report = await runReport(
        app.deps.database.db,
        site.id,
        request.params.kind,
        reportRange(request.query, site.createdAt),
      );
      const accept = String(request.headers.accept ?? '');
      if (accept.includes('text/csv') && !accept.includes('application/json')) {
        return (
          reply
            .type('text/csv; charset=utf-8')
            .header(
              'content-disposition',
              `attachment; filename="helpdesk-${request.params.kind}-${report.from}-${report.to}.csv"`,
            )
            // The typed reply expects the JSON shape; the CSV text skips its serializer.
            .send(toCsv(request.params.kind, report) as never)
        );
      }
      return report;
    },
  );
}
