// Waitlists: anyone may join (idempotent, rate limited per client); community admins list and export.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { setPaginationHeaders, toPage } from '../http/pagination.js';
import { forumMember, forumSite } from './access.js';
import { authorizeAdmin } from './policy.js';
import { presentWaitlistEntry } from './presenters.js';
import {
  ServiceKeyParams,
  WaitlistBody,
  WaitlistEntryOut,
  WaitlistExportQuery,
  WaitlistJoinedOut,
  WaitlistQuery,
  memberSecurity,
} from './schemas.js';
import { exportWaitlistCsv, joinWaitlist, listWaitlist } from './waitlist.js';
import { problems } from '../http/openapi.js';

export async function waitlistRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const db = app.deps.database.db;

  app.post(
    '/waitlist/:service_key',
    {
      schema: {
        tags: ['waitlist'],
        summary: 'Add an e-mail to a named waitlist',
        description:
          'Idempotent: joining twice answers the same 202 and keeps one entry, so the answer does not reveal ' +
          'who is on a list.',
        security: [],
        params: ServiceKeyParams,
        body: WaitlistBody,
        response: { 202: WaitlistJoinedOut, ...problems(422) },
      },
      preHandler: forumSite,
      config: {
        rateLimit: { max: app.deps.config.rateLimit.waitlistPerMinute, timeWindow: 60_000, groupId: 'forum-waitlist' },
      },
    },
    async (request, reply) => {
      const { email } = await joinWaitlist(db, request.forum.site.id, request.params.service_key, request.body.email);
      return reply.code(202).send({ service_key: request.params.service_key, email });
    },
  );

  app.get(
    '/waitlist',
    {
      schema: {
        tags: ['waitlist'],
        summary: 'Waitlist entries, oldest first (admin)',
        security: memberSecurity,
        querystring: WaitlistQuery,
        response: { 200: Type.Array(WaitlistEntryOut) },
      },
      preHandler: forumMember,
    },
    async (request, reply) => {
      authorizeAdmin(request.forum.viewer);
      const page = toPage(request.query);
      const { rows, total } = await listWaitlist(db, request.forum.site.id, request.query.service_key, page);
      setPaginationHeaders(request, reply, page, total);
      return rows.map(presentWaitlistEntry);
    },
  );

  app.get(
    '/waitlist.csv',
    {
      schema: {
        tags: ['waitlist'],
        summary: 'All waitlist entries as CSV (admin)',
        security: memberSecurity,
        querystring: WaitlistExportQuery,
        response: { 200: { content: { 'text/csv': { schema: Type.String() } } } },
      },
      preHandler: forumMember,
    },
    async (request, reply) => {
      authorizeAdmin(request.forum.viewer);
      const csv = await exportWaitlistCsv(db, request.forum.site.id, request.query.service_key);
      return reply
        .type('text/csv; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="waitlist-${request.forum.site.id}.csv"`)
        .send(csv);
    },
  );
}
