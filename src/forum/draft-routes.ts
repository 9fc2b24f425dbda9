// Drafts in the Forum API: `GET|PUT|DELETE /drafts/{key}`, the member's own unposted text
// (docs/decisions/0094-forum-composer.md). The web UI's composer saves through the same service.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../http/errors.js';
import { problems } from '../http/openapi.js';
import { forumMember } from './access.js';
import { deleteDraft, findDraft, presentDraft, saveDraft } from './drafts.js';
import { requireMember } from './policy.js';
import { DraftBody, DraftOut, DraftParams, MAX_BODY_LENGTH, memberSecurity } from './schemas.js';

const DRAFT_BODY_LIMIT = MAX_BODY_LENGTH * 2 + 16 * 1024;

export async function draftRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const db = app.deps.database.db;

  app.get(
    '/drafts/:key',
    {
      schema: {
        tags: ['drafts'],
        summary: 'Your draft of a reply (topic-{id}) or a new topic (forum-{id})',
        security: memberSecurity,
        params: DraftParams,
        response: { 200: DraftOut, ...problems(401, 404) },
      },
      preHandler: forumMember,
    },
    async (request) => {
      const { viewer } = request.forum;
      requireMember(viewer);
      const row = await findDraft(db, viewer, request.params.key);
      if (!row) throw new AppError('draft_not_found', `You have no draft "${request.params.key}".`);
      return presentDraft(row);
    },
  );

  app.put(
    '/drafts/:key',
    {
      schema: {
        tags: ['drafts'],
        summary: 'Save your draft; posting to the topic or forum deletes it',
        description:
          'Only for a topic or forum you may see (404 otherwise); a topic draft keeps no title. At most 200 ' +
          'drafts a member (409 `too_many_drafts`).',
        security: memberSecurity,
        params: DraftParams,
        body: DraftBody,
        response: { 200: DraftOut, ...problems(400, 401, 404, 409) },
      },
      preHandler: forumMember,
      bodyLimit: DRAFT_BODY_LIMIT,
    },
    async (request) => {
      const { site, viewer } = request.forum;
      return presentDraft(await saveDraft(db, site.id, viewer, request.params.key, request.body));
    },
  );

  app.delete(
    '/drafts/:key',
    {
      schema: {
        tags: ['drafts'],
        summary: 'Delete your draft (no error when there is none)',
        security: memberSecurity,
        params: DraftParams,
        response: { 204: Type.Null(), ...problems(401) },
      },
      preHandler: forumMember,
    },
    async (request, reply) => {
      await deleteDraft(db, request.forum.viewer, request.params.key);
      return reply.code(204).send(null);
    },
  );
}
