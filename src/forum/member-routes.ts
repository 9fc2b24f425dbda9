// Forum tokens (members mint their own with login and password) and member administration.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { presentToken, presentTokenCreated } from '../core/credentials/presenters.js';
import { TokenCreatedOut, TokenOut } from '../core/credentials/schemas.js';
import { listCredentials, mintCredential } from '../core/credentials/service.js';
import { AppError } from '../http/errors.js';
import { setPaginationHeaders, toPage } from '../http/pagination.js';
import { PageQuery } from '../http/pagination.js';
import { forumMember, forumSite } from './access.js';
import { refuseSuspended } from './moderation.js';
import { authenticateMember, createMember, deleteMember, listMembers, updateMember } from './members.js';
import { authorizeAdmin } from './policy.js';
import { presentMember } from './presenters.js';
import {
  IdParams,
  MemberOut,
  MemberPatch,
  NewMemberBody,
  TokenParams,
  TokenRequestBody,
  memberSecurity,
} from './schemas.js';
import { problems } from '../http/openapi.js';

export async function memberRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const db = app.deps.database.db;
  const loginLimit = { rateLimit: { max: app.deps.config.rateLimit.loginPerMinute, timeWindow: 60_000 } };

  app.post(
    '/auth/tokens',
    {
      schema: {
        tags: ['auth'],
        summary: 'Mint a forum token with your login and password (shown once)',
        description:
          'Members use their community login; the site owner uses its platform account and acts as the ' +
          "community's admin.",
        security: [],
        body: TokenRequestBody,
        response: { 201: TokenCreatedOut, ...problems(401, 403) },
      },
      preHandler: forumSite,
      config: loginLimit,
    },
    async (request, reply) => {
      const { site } = request.forum;
      const { login, password } = request.body;
      const throttle = app.services.loginThrottle;
      await throttle.check(request, `site:${site.id}`, login);
      const member = await authenticateMember(db, site, login, password);
      // One answer for unknown login and wrong password: no member enumeration.
      if (!member) {
        await throttle.failed(request, `site:${site.id}`, login);
        throw new AppError('invalid_credentials', 'The login or password is wrong.');
      }
      await throttle.succeeded(request, reply, `site:${site.id}`, login);
      if (member.banned) throw new AppError('member_banned', 'This member is banned from the community.');
      refuseSuspended(member);
      const minted = await mintCredential(db, {
        kind: 'forum_token',
        siteId: site.id,
        subjectId: member.id,
        name: request.body.name ?? 'API token',
      });
      return reply.code(201).send(presentTokenCreated(minted));
    },
  );

  app.get(
    '/auth/tokens',
    {
      schema: {
        tags: ['auth'],
        summary: 'Your live forum tokens (no secrets)',
        security: memberSecurity,
        response: { 200: Type.Array(TokenOut) },
      },
      preHandler: forumMember,
    },
    async (request) => {
      const { site, viewer } = request.forum;
      if (viewer.kind !== 'member') return [];
      return (await listCredentials(db, { kind: 'forum_token', siteId: site.id, subjectId: viewer.member.id })).map(
        presentToken,
      );
    },
  );

  app.delete(
    '/auth/tokens/:token_id',
    {
      schema: {
        tags: ['auth'],
        summary: 'Revoke one of your forum tokens',
        security: memberSecurity,
        params: TokenParams,
        response: { 204: Type.Null() },
      },
      preHandler: forumMember,
    },
    async (request, reply) => {
      const { site, viewer } = request.forum;
      const subjectId = viewer.kind === 'member' ? viewer.member.id : '';
      if (
        !(await app.services.credentials.revoke(request.params.token_id, {
          kind: 'forum_token',
          siteId: site.id,
          subjectId,
        }))
      ) {
        throw new AppError('credential_not_found', `No such token "${request.params.token_id}".`);
      }
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/members',
    {
      schema: {
        tags: ['members'],
        summary: 'Members of the community (admin)',
        security: memberSecurity,
        querystring: PageQuery,
        response: { 200: Type.Array(MemberOut) },
      },
      preHandler: forumMember,
    },
    async (request, reply) => {
      authorizeAdmin(request.forum.viewer);
      const page = toPage(request.query);
      const { rows, total } = await listMembers(db, request.forum.site.id, page);
      setPaginationHeaders(request, reply, page, total);
      return rows.map((row) => presentMember(request.forum.site, row));
    },
  );

  app.post(
    '/members',
    {
      schema: {
        tags: ['members'],
        summary: 'Add a member (admin)',
        security: memberSecurity,
        body: NewMemberBody,
        response: { 201: MemberOut, ...problems(409, 422) },
      },
      preHandler: forumMember,
    },
    async (request, reply) => {
      authorizeAdmin(request.forum.viewer);
      return reply
        .code(201)
        .send(presentMember(request.forum.site, await createMember(db, request.forum.site.id, request.body)));
    },
  );

  app.patch(
    '/members/:id',
    {
      schema: {
        tags: ['members'],
        summary: 'Change the role of a member, or ban one (admin)',
        security: memberSecurity,
        params: IdParams,
        body: MemberPatch,
        response: { 200: MemberOut, ...problems(409) },
      },
      preHandler: forumMember,
    },
    async (request) => {
      authorizeAdmin(request.forum.viewer);
      return presentMember(
        request.forum.site,
        await updateMember(db, request.forum.site.id, request.params.id, request.body),
      );
    },
  );

  app.delete(
    '/members/:id',
    {
      schema: {
        tags: ['members'],
        summary: 'Delete a member; its topics and posts stay, without an author (admin)',
        security: memberSecurity,
        params: IdParams,
        response: { 204: Type.Null() },
      },
      preHandler: forumMember,
    },
    async (request, reply) => {
      authorizeAdmin(request.forum.viewer);
      await deleteMember(db, request.forum.site.id, request.params.id);
      return reply.code(204).send(null);
    },
  );
}
