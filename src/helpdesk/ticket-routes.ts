// Tickets and their thread: `/tickets`, `/tickets/{id}`, `/tickets/{id}/replies`, `/tickets/{id}/history`
// (DESIGN section 11). `{id}` is the ticket id or its number.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { acceptEmptyBody } from '../http/empty-body.js';
import { declareSecurity, problems } from '../http/openapi.js';
import { setPaginationHeaders, toPage } from '../http/pagination.js';
import { sendSerialized } from '../http/response-schemas.js';
import { aiSettingsOf } from '../cms/ai-drafting.js';
import { helpdeskAccess } from './access.js';
import { sendTicketAttachment } from './attachments.js';
import { apiAnswer } from './cached-lists.js';
import { draftReply } from './draft-reply.js';
import { ticketHistory } from './history.js';
import { answerTicket, replyMailSettings } from './mail/outgoing.js';
import { actorOf, authorizeCategory } from './policy.js';
import { presentDraft, presentEntry, presentHistory, presentMerge, presentTicket } from './presenters.js';
import {
  AttachmentParams,
  DraftBody,
  DraftOut,
  EntryOut,
  helpdeskSecurity,
  HistoryOut,
  MergeBody,
  MergeOut,
  RepliesQuery,
  ReplyBody,
  TicketBody,
  TicketListQuery,
  TicketOut,
  TicketParams,
  TicketPatch,
} from './schemas.js';
import { mergeTickets } from './merge.js';
import { findVisibleTicket, listTickets } from './ticket-list.js';
import { findContact, findEntry, listEntries, openTicket } from './tickets.js';
import { triageTicket } from './triage.js';

const read = declareSecurity(helpdeskAccess('helpdesk-read'), helpdeskSecurity);
const write = declareSecurity(helpdeskAccess('helpdesk-write'), helpdeskSecurity);

export async function ticketRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const db = app.deps.database.db;

  app.get(
    '/tickets',
    {
      schema: {
        tags: ['tickets'],
        summary: 'List tickets',
        querystring: TicketListQuery,
        response: { 200: Type.Array(TicketOut) },
      },
      preHandler: read,
      // SLA flags change with the clock: the tag is made of the answer's bytes (src/http/etags.ts).
      config: { etag: 'body' },
    },
    async (request, reply) => {
      const page = toPage(request.query);
      const { site, caller } = request.helpdesk;
      const listed = await listTickets(db, app.ticketLists, site.id, caller, request.query, page);
      setPaginationHeaders(request, reply, page, listed.total);
      return sendSerialized(
        reply,
        apiAnswer(listed, (tickets) => String(reply.serialize(tickets))),
      );
    },
  );

  app.post(
    '/tickets',
    {
      schema: {
        tags: ['tickets'],
        summary: 'Open a ticket (channel api), auto-assigned',
        body: TicketBody,
        response: { 201: TicketOut, ...problems(422) },
      },
      preHandler: write,
    },
    async (request, reply) => {
      const { site, caller } = request.helpdesk;
      const body = request.body;
      authorizeCategory(caller, body.category_id ?? null);
      const { ticket } = await openTicket(
        db,
        site.id,
        {
          subject: body.subject,
          body: body.body,
          requester: body.requester,
          channel: 'api',
          priority: body.priority,
          categoryId: body.category_id,
          tags: body.tags,
        },
        actorOf(caller),
      );
      return reply.code(201).send(presentTicket(ticket, (await findContact(db, ticket.requesterId))!));
    },
  );

  app.get(
    '/tickets/:id',
    {
      schema: { tags: ['tickets'], summary: 'Read a ticket', params: TicketParams, response: { 200: TicketOut } },
      preHandler: read,
      config: { etag: 'body' },
    },
    async (request) => {
      const { site, caller } = request.helpdesk;
      const { ticket, requester } = await findVisibleTicket(db, site.id, caller, request.params.id);
      return presentTicket(ticket, requester);
    },
  );

  app.patch(
    '/tickets/:id',
    {
      schema: {
        tags: ['tickets'],
        summary: 'Triage a ticket: status, priority, category, assignee, tags',
        params: TicketParams,
        body: TicketPatch,
        response: { 200: TicketOut, ...problems(422) },
      },
      preHandler: write,
    },
    async (request) => {
      const { site, caller } = request.helpdesk;
      const { ticket, requester } = await findVisibleTicket(db, site.id, caller, request.params.id);
      const body = request.body;
      const updated = await triageTicket(db, site.id, ticket.id, caller, {
        status: body.status,
        priority: body.priority,
        categoryId: body.category_id,
        assigneeId: body.assignee_id,
        tags: body.tags,
      });
      return presentTicket(updated, requester);
    },
  );

  app.post(
    '/tickets/:id/merge',
    {
      schema: {
        tags: ['tickets'],
        summary: 'Merge tickets into this one',
        description:
          "Moves every entry of the listed tickets into this ticket's thread (it stays in time order), closes them with a public note and a `merged` history event naming this ticket, and mails nobody. Refused as a whole when a listed ticket is this one (`merge_into_itself`), was merged already (`ticket_merged`), or this ticket is closed (`merge_target_closed`); a ticket of another site is not found.",
        params: TicketParams,
        body: MergeBody,
        response: { 200: MergeOut, ...problems(404, 409, 422) },
      },
      preHandler: write,
    },
    async (request) => {
      const { site, caller } = request.helpdesk;
      const result = await mergeTickets(db, site.id, caller, request.params.id, request.body.ticket_ids);
      const requester = (await findContact(db, result.target.requesterId))!;
      return presentMerge(result, requester);
    },
  );

  app.get(
    '/tickets/:id/replies',
    {
      schema: {
        tags: ['tickets'],
        summary: 'The thread, oldest first',
        params: TicketParams,
        querystring: RepliesQuery,
        response: { 200: Type.Array(EntryOut) },
      },
      preHandler: read,
      config: { etag: 'body' },
    },
    async (request, reply) => {
      const { site, caller } = request.helpdesk;
      const { ticket } = await findVisibleTicket(db, site.id, caller, request.params.id);
      const page = toPage(request.query);
      const { rows, total } = await listEntries(db, ticket.id, request.query.internal ?? true, page);
      setPaginationHeaders(request, reply, page, total);
      return rows.map(presentEntry);
    },
  );

  app.get(
    '/tickets/:id/replies/:entry_id/attachments/:index',
    {
      schema: {
        tags: ['tickets'],
        summary: "An entry's attachment, under the name its sender gave it",
        description:
          "The bytes of the `index`-th attachment (from 1) of the entry, always as a download: `Content-Disposition: attachment` with the name in its RFC 6266 forms (an ASCII `filename` and `filename*=UTF-8''...`).",
        params: AttachmentParams,
        response: { 200: Type.Unknown(), ...problems(404) },
      },
      preHandler: read,
    },
    async (request, reply) => {
      const { site, caller } = request.helpdesk;
      const { ticket } = await findVisibleTicket(db, site.id, caller, request.params.id);
      const entry = await findEntry(db, ticket.id, request.params.entry_id);
      return sendTicketAttachment(app.deps.blobs, reply, entry?.attachments[request.params.index - 1]);
    },
  );

  app.post(
    '/tickets/:id/replies',
    {
      schema: {
        tags: ['tickets'],
        summary: 'Add a public reply or an internal note',
        params: TicketParams,
        body: ReplyBody,
        response: { 201: EntryOut, ...problems(422) },
      },
      preHandler: write,
    },
    async (request, reply) => {
      const { site, caller } = request.helpdesk;
      const { ticket } = await findVisibleTicket(db, site.id, caller, request.params.id);
      const mail = replyMailSettings(
        site,
        await app.instanceSettings.applied(site.id),
        app.mailOutbox,
        app.deps.config.secretKey,
      );
      const { entry } = await answerTicket(
        { db, outbox: app.mailOutbox },
        ticket,
        caller,
        { body: request.body.body, internal: request.body.internal ?? false },
        mail,
      );
      return reply.code(201).send(presentEntry(entry));
    },
  );

  app.get(
    '/tickets/:id/history',
    {
      schema: {
        tags: ['tickets'],
        summary: 'Every change of the ticket, oldest first',
        params: TicketParams,
        response: { 200: Type.Array(HistoryOut) },
      },
      preHandler: read,
    },
    async (request) => {
      const { site, caller } = request.helpdesk;
      const { ticket } = await findVisibleTicket(db, site.id, caller, request.params.id);
      return (await ticketHistory(db, ticket.id)).map(presentHistory);
    },
  );

  // In a context of its own: the contract's call has no body, which only this route takes as `{}`.
  await app.register(async (context) => {
    acceptEmptyBody(context);
    context.withTypeProvider<TypeBoxTypeProvider>().post(
      '/tickets/:id/draft-reply',
      {
        schema: {
          tags: ['tickets'],
          summary: "Draft a reply with the site owner's AI provider; stored on the ticket, never sent",
          params: TicketParams,
          body: DraftBody,
          response: { 201: DraftOut, ...problems(409, 502, 504) },
        },
        preHandler: write,
      },
      async (request, reply) => {
        const { site, caller } = request.helpdesk;
        await app.services.plans.require(site, 'ai');
        const { ticket, requester } = await findVisibleTicket(db, site.id, caller, request.params.id);
        const ai = aiSettingsOf(await app.instanceSettings.applied(site.id), app.deps.config, request.log);
        const draft = await draftReply(db, ticket, requester, ai, request.body, actorOf(caller));
        return reply.code(201).send(presentDraft(draft));
      },
    );
  });
}
