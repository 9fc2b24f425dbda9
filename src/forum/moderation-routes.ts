// Warnings, suspensions and the moderation log in the Forum API; the flag queue's decisions are in
// topic-routes.ts (docs/decisions/0096-forum-moderation-and-trust.md).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { problems } from '../http/openapi.js';
import { setPaginationHeaders, toPage } from '../http/pagination.js';
import { forumMember } from './access.js';
import {
  acknowledgeWarning,
  liftSuspension,
  listModActions,
  listWarnings,
  suspendMember,
  warnMember,
} from './moderation.js';
import { presentMember, presentModAction, presentWarning } from './presenters.js';
import {
  IdParams,
  MemberOut,
  ModActionOut,
  ModLogQuery,
  SuspensionBody,
  WarningBody,
  WarningOut,
  WarningQuery,
  memberSecurity,
} from './schemas.js';

export async function moderationRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const db = app.deps.database.db;

  app.post(
    '/members/:id/warnings',
    {
      schema: {
        tags: ['moderation'],
        summary: 'Warn a member; it sees the warning until it acknowledges it (moderators)',
        security: memberSecurity,
        params: IdParams,
        body: WarningBody,
        response: { 201: ModActionOut, ...problems(403, 404, 422) },
      },
      preHandler: forumMember,
    },
    async (request, reply) => {
      const { site, viewer } = request.forum;
      const row = await warnMember(db, site, viewer, request.params.id, {
        reason: request.body.reason,
        postId: request.body.post_id,
      });
      return reply.code(201).send(presentModAction(row));
    },
  );

  app.put(
    '/members/:id/suspension',
    {
      schema: {
        tags: ['moderation'],
        summary: 'Suspend a member until a time, or indefinitely (moderators)',
        description:
          "The member's sessions end and its tokens answer 403 `member_suspended` (with `suspended_until` " +
          'and `reason`) until the suspension ends or is lifted. A new suspension replaces the one that ' +
          'stands.',
        security: memberSecurity,
        params: IdParams,
        body: SuspensionBody,
        response: { 200: MemberOut, ...problems(403, 404, 422) },
      },
      preHandler: forumMember,
    },
    async (request) => {
      const { site, viewer } = request.forum;
      const { reason, until, post_id: postId } = request.body;
      return presentMember(
        site,
        await suspendMember(db, site, viewer, request.params.id, {
          reason,
          postId,
          until: until ? new Date(until) : null,
        }),
      );
    },
  );

  app.delete(
    '/members/:id/suspension',
    {
      schema: {
        tags: ['moderation'],
        summary: "Lift a member's suspension (moderators)",
        security: memberSecurity,
        params: IdParams,
        response: { 200: MemberOut, ...problems(403, 404, 409) },
      },
      preHandler: forumMember,
    },
    async (request) =>
      presentMember(
        request.forum.site,
        await liftSuspension(db, request.forum.site, request.forum.viewer, request.params.id),
      ),
  );

  app.get(
    '/moderation-log',
    {
      schema: {
        tags: ['moderation'],
        summary: 'Who did what to whom and to which post, newest first (moderators)',
        security: memberSecurity,
        querystring: ModLogQuery,
        response: { 200: Type.Array(ModActionOut), ...problems(403) },
      },
      preHandler: forumMember,
    },
    async (request, reply) => {
      const page = toPage(request.query);
      const { rows, total } = await listModActions(
        db,
        request.forum.site.id,
        request.forum.viewer,
        { memberId: request.query.member_id, action: request.query.action },
        page,
      );
      setPaginationHeaders(request, reply, page, total);
      return rows.map(presentModAction);
    },
  );

  app.get(
    '/warnings',
    {
      schema: {
        tags: ['moderation'],
        summary: 'The warnings moderators gave you, newest first',
        security: memberSecurity,
        querystring: WarningQuery,
        response: { 200: Type.Array(WarningOut) },
      },
      preHandler: forumMember,
    },
    async (request) =>
      (await listWarnings(db, request.forum.site.id, request.forum.viewer, request.query.unacknowledged ?? false)).map(
        presentWarning,
      ),
  );

  app.post(
    '/warnings/:id/acknowledge',
    {
      schema: {
        tags: ['moderation'],
        summary: 'Say you have read a warning',
        security: memberSecurity,
        params: IdParams,
        response: { 200: WarningOut, ...problems(404) },
      },
      preHandler: forumMember,
    },
    async (request) =>
      presentWarning(await acknowledgeWarning(db, request.forum.site.id, request.forum.viewer, request.params.id)),
  );
}
