// The desk's shared wording: `/tags` (the tags tickets carry, renamed or deleted across them) and
// `/canned-replies` (the snippet library; `/tickets/{id}/canned-replies/{reply}` fills one in for a
// ticket). Reads are open to every help desk caller; changes are the admins'.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { declareSecurity, problems } from '../http/openapi.js';
import { helpdeskAccess } from './access.js';
import {
  agentNameOf,
  createCannedReply,
  deleteCannedReply,
  fillCannedReply,
  getCannedReply,
  listCannedReplies,
  updateCannedReply,
} from './canned-replies.js';
import { actorOf, requireAdmin } from './policy.js';
import { presentCannedReply } from './presenters.js';
import {
  CannedReplyBody,
  CannedReplyFilled,
  CannedReplyOut,
  CannedReplyPatch,
  helpdeskSecurity,
  IdParams,
  TagChangeOut,
  TagOut,
  TagParams,
  TagPatch,
  TicketParams,
} from './schemas.js';
import { deleteTag, listTags, renameTag } from './tags.js';
import { findVisibleTicket } from './ticket-list.js';

const read = declareSecurity(helpdeskAccess('helpdesk-read'), helpdeskSecurity);
const write = declareSecurity(helpdeskAccess('helpdesk-write'), helpdeskSecurity);

export async function libraryRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const db = app.deps.database.db;

  app.get(
    '/tags',
    {
      schema: {
        tags: ['tags'],
        summary: 'The tags tickets carry, with how many',
        response: { 200: Type.Array(TagOut) },
      },
      preHandler: read,
    },
    async (request) => listTags(db, request.helpdesk.site.id),
  );

  app.patch(
    '/tags/:tag',
    {
      schema: {
        tags: ['tags'],
        summary: 'Rename a tag on every ticket that carries it (admins)',
        params: TagParams,
        body: TagPatch,
        response: { 200: TagChangeOut, ...problems(422) },
      },
      preHandler: write,
    },
    async (request) => {
      const { site, caller } = request.helpdesk;
      requireAdmin(caller);
      return { changed: await renameTag(db, site.id, request.params.tag, request.body.name, actorOf(caller)) };
    },
  );

  app.delete(
    '/tags/:tag',
    {
      schema: {
        tags: ['tags'],
        summary: 'Take a tag off every ticket (admins)',
        params: TagParams,
        response: { 200: TagChangeOut, ...problems(422) },
      },
      preHandler: write,
    },
    async (request) => {
      const { site, caller } = request.helpdesk;
      requireAdmin(caller);
      return { changed: await deleteTag(db, site.id, request.params.tag, actorOf(caller)) };
    },
  );

  app.get(
    '/canned-replies',
    {
      schema: {
        tags: ['canned replies'],
        summary: 'List canned replies',
        response: { 200: Type.Array(CannedReplyOut) },
      },
      preHandler: read,
    },
    async (request) => (await listCannedReplies(db, request.helpdesk.site.id)).map(presentCannedReply),
  );

  app.post(
    '/canned-replies',
    {
      schema: {
        tags: ['canned replies'],
        summary: 'Add a canned reply (admins)',
        body: CannedReplyBody,
        response: { 201: CannedReplyOut, ...problems(409, 422) },
      },
      preHandler: write,
    },
    async (request, reply) => {
      requireAdmin(request.helpdesk.caller);
      const row = await createCannedReply(db, request.helpdesk.site.id, request.body);
      return reply.code(201).send(presentCannedReply(row));
    },
  );

  app.get(
    '/canned-replies/:id',
    {
      schema: {
        tags: ['canned replies'],
        summary: 'Read a canned reply',
        params: IdParams,
        response: { 200: CannedReplyOut },
      },
      preHandler: read,
    },
    async (request) => presentCannedReply(await getCannedReply(db, request.helpdesk.site.id, request.params.id)),
  );

  app.patch(
    '/canned-replies/:id',
    {
      schema: {
        tags: ['canned replies'],
        summary: 'Rename or rewrite a canned reply (admins)',
        params: IdParams,
        body: CannedReplyPatch,
        response: { 200: CannedReplyOut, ...problems(409, 422) },
      },
      preHandler: write,
    },
    async (request) => {
      requireAdmin(request.helpdesk.caller);
      return presentCannedReply(await updateCannedReply(db, request.helpdesk.site.id, request.params.id, request.body));
    },
  );

  app.delete(
    '/canned-replies/:id',
    {
      schema: {
        tags: ['canned replies'],
        summary: 'Delete a canned reply (admins)',
        params: IdParams,
        response: { 204: Type.Null() },
      },
      preHandler: write,
    },
    async (request, reply) => {
      requireAdmin(request.helpdesk.caller);
      await deleteCannedReply(db, request.helpdesk.site.id, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/tickets/:id/canned-replies/:reply',
    {
      schema: {
        tags: ['canned replies'],
        summary: "A canned reply filled in for a ticket: the requester's and the agent's names, the ticket's number",
        params: Type.Object({ id: TicketParams.properties.id, reply: IdParams.properties.id }),
        response: { 200: CannedReplyFilled },
      },
      preHandler: read,
    },
    async (request) => {
      const { site, caller } = request.helpdesk;
      const { ticket, requester } = await findVisibleTicket(db, site.id, caller, request.params.id);
      const row = await getCannedReply(db, site.id, request.params.reply);
      const agentName = await agentNameOf(db, site.id, caller, 'The support team');
      return { id: row.id, name: row.name, body: fillCannedReply(row.body, { ticket, requester, agentName }) };
    },
  );
}
