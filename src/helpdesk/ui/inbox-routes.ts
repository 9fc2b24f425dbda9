// The agent inbox at /desk on community hosts (docs/decisions/0089-helpdesk-agent-inbox.md): the
// help desk's agents and the community's admins, as the Help desk API decides (access.ts), on a
// plan with the help desk. Guests are sent to log in; other members get a 403 page. Every list,
// read and write calls the services the API calls, as the member, so the API's visibility rules
// (an agent sees the categories they serve) hold here too. Forms work without JavaScript; one small
// script adds keyboard shortcuts.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { aiSettingsOf } from '../../cms/ai-drafting.js';
import { findMember } from '../../forum/members.js';
import { checkForm, loadUi } from '../../forum/ui/context.js';
import { FORM_BODY_LIMIT, pageNumber, sendPage, totalPages } from '../../forum/ui/forms.js';
import { AppError } from '../../http/errors.js';
import { field, seeOther } from '../../http/forms.js';
import { memberCaller } from '../access.js';
import { listAgents } from '../agents.js';
import { OPEN_STATUSES } from '../assignment.js';
import { listCategories } from '../categories.js';
import { draftReply, findDraft } from '../draft-reply.js';
import { ticketHistory } from '../history.js';
import { mailHtmlView, type MailHtmlView } from '../mail/html-view.js';
import { answerTicket, replyMailSettings } from '../mail/outgoing.js';
import { actorOf } from '../policy.js';
import type { TicketListQuery } from '../schemas.js';
import {
  TICKET_PRIORITIES,
  TICKET_STATUSES,
  type ThreadEntryRow,
  type TicketPriority,
  type TicketRow,
  type TicketStatus,
} from '../tables.js';
import { findVisibleTicket, listTickets, type VisibleTicket } from '../ticket-list.js';
import { listEntries } from '../tickets.js';
import { triageTicket, type TicketChange } from '../triage.js';
import { INBOX_JS } from './inbox-script.js.js';
import { INBOX_HEAD, INBOX_VIEWS, ticketListView, type InboxView } from './inbox-views.js';
import { attachmentUrl, MAX_REPLY, ticketView, type TicketPage } from './ticket-views.js';

const PAGE_SIZE = 25;
/** Entries of a thread shown on the ticket page. */
const THREAD_LIMIT = 500;
const OPEN = OPEN_STATUSES.join(',');

/** Each view is a query of the API's ticket list; all of them show unsolved tickets only. */
const VIEW_QUERIES: Record<InboxView, TicketListQuery> = {
  mine: { assignee: 'me', status: OPEN },
  unassigned: { assignee: 'none', status: OPEN },
  open: { status: OPEN },
  breached: { sla: 'breached', status: OPEN },
};

/** What a redirect after a form says on the page it lands on. */
const DONE: Record<string, string> = {
  mailed: 'Reply sent; it was e-mailed to the requester.',
  replied: 'Reply added to the thread.',
  noted: 'Internal note added.',
  saved: 'Ticket updated.',
};

const TicketParams = { schema: { params: Type.Object({ number: Type.String({ minLength: 1, maxLength: 100 }) }) } };
type WithTicket = { Params: { number: string } };

/** preHandler after `loadUi`: the viewer is an agent or admin of the help desk, on a plan that has it. */
async function agentsOnly(request: FastifyRequest): Promise<void> {
  const ui = request.ui;
  if (ui.viewer.kind !== 'member')
    throw new AppError('authentication_required', 'Log in as an agent of the help desk to use the inbox.');
  const caller = await memberCaller(request.server.deps.database.db, ui.site, ui.viewer.member);
  await request.server.services.plans.require(ui.site, 'helpdesk_api');
  request.helpdesk = { site: ui.site, caller };
}

const INBOX_PAGE = [loadUi, agentsOnly];
/** The CSRF check comes after the role check, as in the admin area. */
const INBOX_FORM = [loadUi, agentsOnly, checkForm];

function viewerId(request: FastifyRequest): string {
  const caller = request.helpdesk.caller;
  if (caller.kind !== 'member') throw new AppError('forbidden', 'The inbox is for members.');
  return caller.id;
}

/** A form's refusal to show on the page: the service's 4xx answers other than "not found". */
function refusal(error: unknown): AppError | undefined {
  return error instanceof AppError && error.status < 500 && error.status !== 404 ? error : undefined;
}

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], what: string): T | undefined {
  if (!value) return undefined;
  if (!(allowed as readonly string[]).includes(value))
    throw new AppError('invalid_ticket', `Unknown ${what} "${value}".`);
  return value as T;
}

export async function inboxRoutes(app: FastifyInstance): Promise<void> {
  const db = app.deps.database.db;

  /** Usernames of the help desk's agents and of the other members named by ids. */
  async function names(
    siteId: string,
    ids: Iterable<string | null>,
  ): Promise<{ agents: Array<readonly [string, string]>; names: Map<string, string> }> {
    const out = new Map<string, string>();
    const agents: Array<readonly [string, string]> = [];
    for (const view of await listAgents(db, siteId)) {
      const member = await findMember(db, siteId, view.agent.memberId);
      if (!member) continue;
      out.set(member.id, member.username);
      agents.push([member.id, member.username]);
    }
    for (const id of new Set(ids)) {
      if (!id || out.has(id)) continue;
      const member = await findMember(db, siteId, id);
      if (member) out.set(id, member.username);
    }
    return { agents, names: out };
  }

  /** Why the AI draft button cannot work on this site, in words, or undefined. */
  async function draftBlocked(request: FastifyRequest): Promise<string | undefined> {
    const { site } = request.helpdesk;
    if (!(await app.services.plans.includes(site.plan, 'ai')))
      return `AI drafts need the Business plan; this community is on the ${site.plan} plan.`;
    try {
      aiSettingsOf(request.ui.settings, app.deps.config, request.log);
      return undefined;
    } catch (error) {
      if (error instanceof AppError) return error.message;
      throw error;
    }
  }

  /**
   * The sanitized HTML of the thread's mail (decision 0128), by entry id; remote images only for the
   * entry the agent asked them for.
   */
  async function mailHtmlOf(
    ticket: TicketRow,
    rows: readonly ThreadEntryRow[],
    remoteImagesFor: string | undefined,
  ): Promise<Map<string, MailHtmlView & { trimmed: boolean }>> {
    const views = new Map<string, MailHtmlView & { trimmed: boolean }>();
    for (const entry of rows) {
      const body = entry.attachments.find((ref) => ref.role === 'html_body');
      const stream = body ? await app.deps.blobs.get(body.key) : undefined;
      if (!stream) continue;
      const source = Buffer.concat(await stream.toArray()).toString('utf8');
      const parts = entry.attachments.flatMap((ref, index) =>
        ref.content_id
          ? [{ contentId: ref.content_id, contentType: ref.content_type, url: attachmentUrl(ticket, entry, index) }]
          : [],
      );
      const view = mailHtmlView(source, parts, remoteImagesFor === entry.id);
      views.set(entry.id, { ...view, trimmed: entry.attachments.some((ref) => ref.role === 'original_text') });
    }
    return views;
  }

  async function renderTicket(
    request: FastifyRequest,
    reply: FastifyReply,
    listed: VisibleTicket,
    extra: Partial<TicketPage> = {},
    status = 200,
    remoteImagesFor?: string,
  ): Promise<FastifyReply> {
    const { ticket, requester } = listed;
    const { site, caller } = request.helpdesk;
    const { rows, total } = await listEntries(db, ticket.id, true, { pageSize: THREAD_LIMIT, offset: 0 });
    const mailHtml = await mailHtmlOf(ticket, rows, remoteImagesFor);
    // The sanitizer leaves remote images out; the page's policy holds it too, until the agent asks.
    const policy = reply.getHeader('content-security-policy');
    if (typeof policy === 'string')
      reply.header(
        'content-security-policy',
        policy.replace(/img-src [^;]*/, `img-src 'self' data:${remoteImagesFor ? ' https: http:' : ''}`),
      );
    const history = await ticketHistory(db, ticket.id);
    const memberIds = [
      ticket.assigneeId,
      ...rows.map((entry) => (entry.authorKind === 'agent' ? entry.authorId : null)),
      ...history.map((row) => (row.actorKind === 'member' ? row.actorId : null)),
    ];
    const named = await names(site.id, memberIds);
    const mail = replyMailSettings(site, request.ui.settings, app.mailOutbox, app.deps.config.secretKey);
    const page: TicketPage = {
      ticket,
      requester,
      thread: rows,
      moreEntries: total - rows.length,
      history,
      categories: await listCategories(db, site.id),
      agents: named.agents,
      names: named.names,
      memberId: viewerId(request),
      canTake: caller.kind === 'member' && caller.agent,
      servedCategories: caller.kind === 'member' && !caller.admin ? caller.categories : undefined,
      mailedTo: mail ? requester.email : undefined,
      draftBlocked: await draftBlocked(request),
      mailHtml,
      now: new Date(),
      ...extra,
    };
    return sendPage(reply, request.ui, `#${ticket.number} ${ticket.subject}`, ticketView(request.ui, page), {
      status,
      private: true,
      head: INBOX_HEAD,
    });
  }

  app.get('/desk/assets/desk.js', async (_request, reply) =>
    reply.header('Cache-Control', 'public, max-age=3600').type('text/javascript; charset=utf-8').send(INBOX_JS),
  );

  app.get('/desk', { preHandler: INBOX_PAGE }, async (_request, reply) => seeOther(reply, '/desk/mine'));

  for (const [view, label] of INBOX_VIEWS) {
    app.get<{ Querystring: { page?: string; assigned?: string } }>(
      `/desk/${view}`,
      { preHandler: INBOX_PAGE },
      async (request, reply) => {
        const { site, caller } = request.helpdesk;
        const page = pageNumber(request.query.page);
        const { rows, total, estimated } = await listTickets(db, app.ticketLists, site.id, caller, VIEW_QUERIES[view], {
          page,
          pageSize: PAGE_SIZE,
          offset: (page - 1) * PAGE_SIZE,
        });
        const named = await names(site.id, []);
        const assigned =
          typeof request.query.assigned === 'string' && /^\d{1,9}$/.test(request.query.assigned)
            ? request.query.assigned
            : undefined;
        const list = ticketListView(request.ui, {
          view,
          rows,
          total,
          estimated,
          page,
          totalPages: totalPages(total, PAGE_SIZE),
          names: named.names,
          memberId: viewerId(request),
          canTake: caller.kind === 'member' && caller.agent,
          now: new Date(),
          flash: assigned ? { kind: 'ok', text: `Ticket #${assigned} is assigned to you.` } : undefined,
        });
        return sendPage(reply, request.ui, `${label} · Help desk`, list, { private: true, head: INBOX_HEAD });
      },
    );
  }

  const ticketQuery = Type.Object({
    draft: Type.Optional(Type.String({ maxLength: 100 })),
    done: Type.Optional(Type.String({ maxLength: 20 })),
    remote_images: Type.Optional(
      Type.String({ maxLength: 100, description: 'The entry whose remote images to show.' }),
    ),
  });
  app.get<WithTicket & { Querystring: { draft?: string; done?: string; remote_images?: string } }>(
    '/desk/tickets/:number',
    { schema: { ...TicketParams.schema, querystring: ticketQuery }, preHandler: INBOX_PAGE },
    async (request, reply) => {
      const { site, caller } = request.helpdesk;
      const listed = await findVisibleTicket(db, site.id, caller, request.params.number);
      const draft = request.query.draft ? await findDraft(db, listed.ticket.id, request.query.draft) : undefined;
      const done = DONE[request.query.done ?? ''];
      return renderTicket(
        request,
        reply,
        listed,
        { draft, flash: done ? { kind: 'ok', text: done } : undefined },
        200,
        request.query.remote_images,
      );
    },
  );

  app.post<WithTicket>(
    '/desk/tickets/:number/replies',
    { ...TicketParams, preHandler: INBOX_FORM, bodyLimit: FORM_BODY_LIMIT },
    async (request, reply) => {
      const { site, caller } = request.helpdesk;
      const listed = await findVisibleTicket(db, site.id, caller, request.params.number);
      const internal = field(request, 'internal', 5) === 'true';
      const text = field(request, 'body', MAX_REPLY);
      const refused = (error: string) =>
        renderTicket(
          request,
          reply,
          listed,
          internal ? { note: { text: text ?? '', error } } : { reply: { text: text ?? '', error } },
          422,
        );
      if (text === undefined) return refused(`Keep it under ${MAX_REPLY.toLocaleString('en')} characters.`);
      if (text.trim() === '') return refused(internal ? 'Write the note first.' : 'Write the reply first.');
      const mail = replyMailSettings(site, request.ui.settings, app.mailOutbox, app.deps.config.secretKey);
      const { mailed } = await answerTicket(
        { db, outbox: app.mailOutbox },
        listed.ticket,
        caller,
        { body: text, internal },
        mail,
      );
      return seeOther(
        reply,
        `/desk/tickets/${listed.ticket.number}?done=${internal ? 'noted' : mailed ? 'mailed' : 'replied'}#thread-heading`,
      );
    },
  );

  app.post<WithTicket>(
    '/desk/tickets/:number/triage',
    { ...TicketParams, preHandler: INBOX_FORM },
    async (request, reply) => {
      const { site, caller } = request.helpdesk;
      const listed = await findVisibleTicket(db, site.id, caller, request.params.number);
      // A field left out of the form (the quick buttons send one) changes nothing.
      const pick = (name: string) => field(request, name, 100) || undefined;
      try {
        const category = pick('category');
        const assignee = pick('assignee');
        const change: TicketChange = {
          status: oneOf<TicketStatus>(pick('status'), TICKET_STATUSES, 'status'),
          priority: oneOf<TicketPriority>(pick('priority'), TICKET_PRIORITIES, 'priority'),
          categoryId: category === undefined ? undefined : category === 'none' ? null : category,
          assigneeId:
            assignee === undefined
              ? undefined
              : assignee === 'none'
                ? null
                : assignee === 'me'
                  ? viewerId(request)
                  : assignee,
        };
        await triageTicket(db, site.id, listed.ticket.id, caller, change);
      } catch (error) {
        const refused = refusal(error);
        if (!refused) throw error;
        return renderTicket(request, reply, listed, { triageError: refused.message }, refused.status);
      }
      const back = field(request, 'back', 200) ?? '';
      if (/^\/desk\/[a-z]+(\?page=\d{1,6})?$/.test(back))
        return seeOther(reply, `${back}${back.includes('?') ? '&' : '?'}assigned=${listed.ticket.number}`);
      return seeOther(reply, `/desk/tickets/${listed.ticket.number}?done=saved`);
    },
  );

  app.post<WithTicket>(
    '/desk/tickets/:number/draft',
    { ...TicketParams, preHandler: INBOX_FORM },
    async (request, reply) => {
      const { site, caller } = request.helpdesk;
      const listed = await findVisibleTicket(db, site.id, caller, request.params.number);
      let draftId: string;
      try {
        await app.services.plans.require(site, 'ai');
        const ai = aiSettingsOf(request.ui.settings, app.deps.config, request.log);
        const instructions = field(request, 'instructions', 2000)?.trim() || undefined;
        draftId = (await draftReply(db, listed.ticket, listed.requester, ai, { instructions }, actorOf(caller))).id;
      } catch (error) {
        const refused = error instanceof AppError && error.status !== 404 ? error : undefined;
        if (!refused) throw error;
        return renderTicket(
          request,
          reply,
          listed,
          { reply: { text: '', error: `No draft: ${refused.message}` } },
          refused.status,
        );
      }
      return seeOther(reply, `/desk/tickets/${listed.ticket.number}?draft=${draftId}#reply`);
    },
  );
}
