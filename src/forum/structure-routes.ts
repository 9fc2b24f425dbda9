// Categories and forums: everyone who may read sees what the policy allows; admins change structure.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { PageQuery, setPaginationHeaders, toPage } from '../http/pagination.js';
import { Type } from 'typebox';
import { forumMember, forumReader } from './access.js';
import { authorizeAdmin } from './policy.js';
import { presentCategory, presentForum } from './presenters.js';
import {
  CategoryBody,
  CategoryOut,
  CategoryPatch,
  ForumBody,
  ForumOut,
  ForumPatch,
  IdParams,
  memberSecurity,
  readerSecurity,
} from './schemas.js';
import {
  createCategory,
  createForum,
  deleteCategory,
  deleteForum,
  findVisibleForum,
  pageOfCategories,
  pageOfVisibleForums,
  updateCategory,
  updateForum,
  withStats,
} from './structure.js';
import { problems } from '../http/openapi.js';

export async function structureRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const db = app.deps.database.db;

  app.get(
    '/categories',
    {
      schema: {
        tags: ['structure'],
        summary: 'Categories with forums you can see',
        security: readerSecurity,
        querystring: PageQuery,
        response: { 200: Type.Array(CategoryOut) },
      },
      preHandler: forumReader,
    },
    async (request, reply) => {
      const page = toPage(request.query);
      const { rows, total } = await pageOfCategories(db, request.forum.site.id, request.forum.viewer, page);
      setPaginationHeaders(request, reply, page, total);
      return rows.map(presentCategory);
    },
  );
  app.post(
    '/categories',
    {
      schema: {
        tags: ['structure'],
        summary: 'Create a category (admin)',
        security: memberSecurity,
        body: CategoryBody,
        response: { 201: CategoryOut, ...problems(409) },
      },
      preHandler: forumMember,
    },
    async (request, reply) => {
      authorizeAdmin(request.forum.viewer);
      return reply.code(201).send(presentCategory(await createCategory(db, request.forum.site.id, request.body)));
    },
  );
  app.patch(
    '/categories/:id',
    {
      schema: {
        tags: ['structure'],
        summary: 'Change a category (admin)',
        security: memberSecurity,
        params: IdParams,
        body: CategoryPatch,
        response: { 200: CategoryOut },
      },
      preHandler: forumMember,
    },
    async (request) => {
      authorizeAdmin(request.forum.viewer);
      return presentCategory(await updateCategory(db, request.forum.site.id, request.params.id, request.body));
    },
  );
  app.delete(
    '/categories/:id',
    {
      schema: {
        tags: ['structure'],
        summary: 'Delete a category; its forums stay, uncategorized (admin)',
        security: memberSecurity,
        params: IdParams,
        response: { 204: Type.Null() },
      },
      preHandler: forumMember,
    },
    async (request, reply) => {
      authorizeAdmin(request.forum.viewer);
      await deleteCategory(db, request.forum.site.id, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/forums',
    {
      schema: {
        tags: ['forums'],
        summary: 'Forums you can see',
        security: readerSecurity,
        querystring: PageQuery,
        response: { 200: Type.Array(ForumOut) },
      },
      preHandler: forumReader,
    },
    async (request, reply) => {
      const page = toPage(request.query);
      const { rows, total } = await pageOfVisibleForums(db, request.forum.site.id, request.forum.viewer, page);
      setPaginationHeaders(request, reply, page, total);
      return rows.map(presentForum);
    },
  );
  app.get(
    '/forums/:id',
    {
      schema: {
        tags: ['forums'],
        summary: 'One forum by id or slug',
        security: readerSecurity,
        params: IdParams,
        response: { 200: ForumOut },
      },
      preHandler: forumReader,
    },
    async (request) => {
      const { site, viewer } = request.forum;
      const [forum] = await withStats(db, viewer, [await findVisibleForum(db, site.id, viewer, request.params.id)]);
      return presentForum(forum!);
    },
  );
  app.post(
    '/forums',
    {
      schema: {
        tags: ['forums'],
        summary: 'Create a forum (admin)',
        security: memberSecurity,
        body: ForumBody,
        response: { 201: ForumOut, ...problems(409) },
      },
      preHandler: forumMember,
    },
    async (request, reply) => {
      authorizeAdmin(request.forum.viewer);
      const forum = await createForum(db, request.forum.site.id, request.body);
      const [out] = await withStats(db, request.forum.viewer, [forum]);
      return reply.code(201).send(presentForum(out!));
    },
  );
  app.patch(
    '/forums/:id',
    {
      schema: {
        tags: ['forums'],
        summary: 'Change a forum by id or slug (admin)',
        security: memberSecurity,
        params: IdParams,
        body: ForumPatch,
        response: { 200: ForumOut },
      },
      preHandler: forumMember,
    },
    async (request) => {
      authorizeAdmin(request.forum.viewer);
      const forum = await updateForum(db, request.forum.site.id, request.params.id, request.body);
      const [out] = await withStats(db, request.forum.viewer, [forum]);
      return presentForum(out!);
    },
  );
  app.delete(
    '/forums/:id',
    {
      schema: {
        tags: ['forums'],
        summary: 'Delete a forum with its topics and posts (admin)',
        security: memberSecurity,
        params: IdParams,
        response: { 204: Type.Null() },
      },
      preHandler: forumMember,
    },
    async (request, reply) => {
      authorizeAdmin(request.forum.viewer);
      await deleteForum(db, request.forum.site.id, request.params.id);
      return reply.code(204).send(null);
    },
  );
}
