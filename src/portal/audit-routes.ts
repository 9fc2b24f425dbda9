// The audit log of the purchase API and the console's admin pages, for platform administrators.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { requirePlatformAdmin } from '../core/auth.js';
import { PageQuery, setPaginationHeaders, toPage } from '../http/pagination.js';
import { presentAudit } from '../purchase/presenters.js';
import { AuditOut } from '../purchase/schemas.js';
import { listAudit } from '../purchase/service.js';

export async function auditRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/admin/audit-log',
    {
      schema: {
        tags: ['admin'],
        summary: 'Every purchase API call and console admin change, newest first (paginated)',
        querystring: PageQuery,
        response: { 200: Type.Array(AuditOut) },
      },
      preHandler: requirePlatformAdmin,
    },
    async (request, reply) => {
      const page = toPage(request.query);
      const { rows, total } = await listAudit(app.deps.database.db, page);
      setPaginationHeaders(request, reply, page, total);
      return rows.map(presentAudit);
    },
  );
}
