// The agent inbox at /desk on community hosts (docs/decisions/0089-helpdesk-agent-inbox.md): the
// help desk's agents and the community's admins, as the Help desk API decides (access.ts), on a
// plan with the help desk. Guests are sent to log in; other members get a 403 page. Every list,
// read and write calls the services the API calls, as the member, so the API's visibility rules
// (an agent sees the categories they serve) hold here too. Forms work without JavaScript; one small
// script adds keyboard shortcuts.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { aiSettingsOf } from '../../cms/ai-drafting.js';
import { memberNames } from '../../forum/members.js';
import { checkForm, loadUi } from '../../forum/ui/context.js';
import { FORM_BODY_LIMIT, pageNumber, sendPage, totalPages } from '../../forum/ui/forms.js';
import { AppError } from '../../http/errors.js';
import { field, seeOther } from '../../http/forms.js';
import { memberCaller } from '../access.js';
import { agentIds } from '../agents.js';
import { OPEN_STATUSES } from '../assignment.js';
import { listCategories } from '../categories.js';
import { agentNameOf, fillCannedReply, getCannedReply, listCannedReplies } from '../canned-replies.js';
import { draftReply, findDraft } from '../draft-reply.js';
import { ticketHistory } from '../history.js';
import { mailHtmlView, type MailHtmlView } from '../mail/html-view.js';
import { answerTicket, replyMailSettings } from '../mail/outgoing.js';
import { actorOf } from '../policy.js';
import { deleteSavedView, findSavedView, listSavedViews, saveView } from '../saved-views.js';
import {
  TICKET_PRIORITIES,
  TICKET_STATUSES,
  type SavedViewRow,
  type ThreadEntryRow,
  type TicketPriority,
  type TicketRow,
  type TicketStatus,
} from '../tables.js';
import { mergeTickets, oldestTicket } from '../merge.js';
import { findVisibleTicket, listTickets, type VisibleTicket } from '../ticket-list.js';
import type { TicketListPage } from '../cached-lists.js';
import { canSeeTicket } from '../policy.js';
import { findTicket, listEntries, normalizeTags } from '../tickets.js';
import { triageTicket, type TicketChange } from '../triage.js';
import { INBOX_JS } from './inbox-script.js.js';
import { INBOX_HEAD, INBOX_VIEWS, ticketListView, type InboxView } from './inbox-views.js';
import { filtersOf, listQueryOf, type ListFilters } from './list-filters.js';
import { attachmentUrl, MAX_REPLY, ticketView, type TicketPage } from './ticket-views.js';

const PAGE_SIZE = 25;
/** Entries of a thread shown on the ticket page. */
const THREAD_LIMIT = 500;
const OPEN = OPEN_STATUSES.join(',');
/** Tickets one bulk change touches at most (a page is 25). */
const MAX_BULK = 100;

/**
 * Each view is a query of the API's ticket list, which the filter form narrows or overrides. Open
 * work comes SLA due first, so a breached urgent ticket leads; solved and closed work latest first.
 */
const VIEW_FILTERS: Record<InboxView, ListFilters> = {
  mine: { assignee: 'me', status: OPEN, sort: 'sla_due' },
  unassigned: { assignee: 'none', status: OPEN, sort: 'sla_due' },
  open: { status: OPEN, sort: 'sla_due' },
  breached: { sla: 'breached', status: OPEN, sort: 'sla_due' },
  solved: { status: 'solved', sort: '-updated_at' },
  closed: { status: 'closed', sort: '-updated_at' },
  search: { sort: '-updated_at' },
};

const EMPTY: Record<InboxView, string> = {
  mine: 'No open tickets are assigned to you.',
  unassigned: 'Every open ticket has an agent.',
  open: 'No open tickets.',
  breached: 'No open ticket has missed its SLA targets.',
  solved: 'No solved tickets.',
  closed: 'No closed tickets.',
  search: 'No ticket matches.',
};

/** Where a bulk change or saved view may send the agent back to: a list of the inbox with its query. */
const LIST_PATH =
  /^\/desk\/(?:mine|unassigned|open|breached|solved|closed|search|views\/[A-Za-z0-9]{1,40})(?:\?[^#\s]*)?$/;

/** What a redirect after a form says on the page it lands on. */
const DONE: Record<string, string> = {
  mailed: 'Reply sent; it was e-mailed to the requester.',
  replied: 'Reply added to the thread.',
  noted: 'Internal note added.',
  saved: 'Ticket updated.',
  merged: 'Tickets merged into this one: their messages are in the thread.',
};

/** What the list says when a bulk merge was refused, by the service's error code. */
const MERGE_REFUSED: Record<string, string> = {
  ticket_not_found: 'Merge refused: a ticket to merge is not one you can see.',
  ticket_merged: 'Merge refused: a ticked ticket was merged already.',
  merge_target_closed: 'Merge refused: the ticket to merge into is closed.',
  merge_into_itself: 'Merge refused: tick at least one ticket besides the one to merge into.',
  invalid_ticket: 'Merge refused: tick at most 100 tickets.',
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

export const INBOX_PAGE = [loadUi, agentsOnly];
/** The CSRF check comes after the role check, as in the admin area. */
const INBOX_FORM = [loadUi, agentsOnly, checkForm];

function viewerId(request: FastifyRequest): string {
  const caller = request.helpdesk.caller;
  if (caller.kind !== 'member') throw new AppError('forbidden', 'The inbox is for members.');
  return caller.id;
}

/** A form's refusal to show on the page: the service's 4xx answers other than "not found". */
export function refusal(error: unknown): AppError | undefined {
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

  /** Usernames of the help desk's agents and of the other members named by ids: two statements, whatever the count. */
  async function names(
    siteId: string,
    ids: Iterable<string | null>,
  ): Promise<{ agents: Array<readonly [string, string]>; names: Map<string, string> }> {
    const agents = await agentIds(db, siteId);
    const others = [...new Set(ids)].filter((id): id is string => id !== null && !agents.includes(id));
    const out = await memberNames(db, siteId, [...agents, ...others]);
    const listed = agents.filter((id) => out.has(id)).map((id) => [id, out.get(id)!] as const);
    return { agents: listed, names: out };
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
      cannedReplies: await listCannedReplies(db, site.id),
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

  interface ListRequest {
    current: InboxView | string;
    heading: string;
    path: string;
    base: ListFilters;
    empty: string;
    savedView?: SavedViewRow | undefined;
    saveName?: string | undefined;
    error?: string | undefined;
  }

  /** A list page: the view's filters with the querystring's over them, through the API's list service. */
  async function renderList(
    request: FastifyRequest<{ Querystring: Record<string, string | undefined> }>,
    reply: FastifyReply,
    list: ListRequest,
    status = 200,
  ): Promise<FastifyReply> {
    const { site, caller } = request.helpdesk;
    const memberId = viewerId(request);
    const page = pageNumber(request.query.page);
    let filters: ListFilters = {};
    let found: Pick<TicketListPage, 'rows' | 'total' | 'estimated'> = { rows: [], total: 0, estimated: false };
    let error = list.error;
    let filterError = false;
    try {
      filters = filtersOf(request.query);
      found = await listTickets(db, app.ticketLists, site.id, caller, listQueryOf(list.base, filters), {
        page,
        pageSize: PAGE_SIZE,
        offset: (page - 1) * PAGE_SIZE,
      });
    } catch (failure) {
      if (!(failure instanceof AppError) || failure.code !== 'invalid_filter') throw failure;
      error = failure.message;
      filterError = true;
      status = 400;
    }
    const named = await names(
      site.id,
      found.rows.map(({ ticket }) => ticket.assigneeId),
    );
    const digits = (name: string) => {
      const value = request.query[name];
      return typeof value === 'string' && /^\d{1,9}$/.test(value) ? value : undefined;
    };
    const assigned = digits('assigned');
    const updated = digits('updated');
    const refused = digits('refused');
    const flash = assigned
      ? { kind: 'ok' as const, text: `Ticket #${assigned} is assigned to you.` }
      : updated !== undefined
        ? {
            kind: refused ? ('warn' as const) : ('ok' as const),
            text: `Changed ${updated === '1' ? '1 ticket' : `${updated} tickets`}.${refused ? ` ${refused === '1' ? '1 ticket was' : `${refused} tickets were`} left unchanged: you may not make that change to them.` : ''}`,
          }
        : typeof request.query.merge === 'string' && request.query.merge in MERGE_REFUSED
          ? { kind: 'error' as const, text: MERGE_REFUSED[request.query.merge]! }
          : request.query.bulk === 'none'
            ? { kind: 'error' as const, text: 'Tick the tickets to change first.' }
            : undefined;
    const view = ticketListView(request.ui, {
      current: list.current,
      heading: list.heading,
      path: list.path,
      filters,
      base: list.base,
      rows: found.rows,
      total: found.total,
      estimated: found.estimated,
      page,
      totalPages: totalPages(found.total, PAGE_SIZE),
      names: named.names,
      agents: named.agents,
      categories: await listCategories(db, site.id),
      savedViews: await listSavedViews(db, site.id, memberId),
      memberId,
      canTake: caller.kind === 'member' && caller.agent,
      now: new Date(),
      empty: list.empty,
      flash,
      error,
      filterError,
      savedView: list.savedView,
      saveName: list.saveName,
    });
    return sendPage(reply, request.ui, `${list.heading} · Help desk`, view, {
      status,
      private: true,
      head: INBOX_HEAD,
    });
  }

  for (const [view, label] of INBOX_VIEWS) {
    app.get<{ Querystring: Record<string, string | undefined> }>(
      `/desk/${view}`,
      { preHandler: INBOX_PAGE },
      async (request, reply) =>
        renderList(request, reply, {
          current: view,
          heading: view === 'search' && request.query.q ? `Search: ${request.query.q.slice(0, 200)}` : label,
          path: `/desk/${view}`,
          base: VIEW_FILTERS[view],
          empty: EMPTY[view],
        }),
    );
  }

  const ViewParams = { params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 40 }) }) };
  type WithView = { Params: { id: string }; Querystring: Record<string, string | undefined> };

  app.get<WithView>('/desk/views/:id', { schema: ViewParams, preHandler: INBOX_PAGE }, async (request, reply) => {
    const saved = await findSavedView(db, request.helpdesk.site.id, viewerId(request), request.params.id);
    if (!saved) throw new AppError('not_found', 'You have no saved view by that address.');
    return renderList(request, reply, {
      current: `views/${saved.id}`,
      heading: saved.name,
      path: `/desk/views/${saved.id}`,
      base: saved.query,
      empty: 'No ticket matches this view.',
      savedView: saved,
    });
  });

  app.post<{ Querystring: Record<string, string | undefined> }>(
    '/desk/views',
    { preHandler: INBOX_FORM },
    async (request, reply) => {
      const { site } = request.helpdesk;
      const name = field(request, 'name', 200) ?? '';
      let query: ListFilters;
      try {
        query = filtersOf(Object.fromEntries(new URLSearchParams(field(request, 'query', 2000) ?? '')));
        listQueryOf({}, query);
      } catch (error) {
        if (!(error instanceof AppError) || error.code !== 'invalid_filter') throw error;
        query = {};
      }
      const saved = await saveView(db, site.id, viewerId(request), name, query as Record<string, string>);
      if (typeof saved !== 'string') return seeOther(reply, `/desk/views/${saved.id}`);
      // Show the list the agent tried to save with the reason beside the form.
      request.query = query;
      return renderList(
        request,
        reply,
        {
          current: 'search',
          heading: 'Search',
          path: '/desk/search',
          base: {},
          empty: EMPTY.search,
          saveName: name,
          error: saved,
        },
        422,
      );
    },
  );

  app.post<WithView>(
    '/desk/views/:id/delete',
    { schema: ViewParams, preHandler: INBOX_FORM },
    async (request, reply) => {
      const deleted = await deleteSavedView(db, request.helpdesk.site.id, viewerId(request), request.params.id);
      if (!deleted) throw new AppError('not_found', 'You have no saved view by that address.');
      return seeOther(reply, '/desk/mine');
    },
  );

  /**
   * One change to the ticked tickets of a list (`ticket-<number>` fields, from checkboxes outside the
   * form): assignee, status, priority and a tag to add, each ticket through the same triage as its
   * own page, one history event per change. Tickets the agent may not change stay as they were.
   */
  app.post('/desk/bulk', { preHandler: INBOX_FORM, bodyLimit: FORM_BODY_LIMIT }, async (request, reply) => {
    const { site, caller } = request.helpdesk;
    const rawBack = field(request, 'back', 1000) ?? '';
    const backUrl = new URL(LIST_PATH.test(rawBack) ? rawBack : '/desk/mine', 'http://desk.invalid');
    for (const name of ['assigned', 'updated', 'refused', 'bulk', 'merge']) backUrl.searchParams.delete(name);
    const back = (extra: Record<string, string>) => {
      for (const [name, value] of Object.entries(extra)) backUrl.searchParams.set(name, value);
      return `${backUrl.pathname}${backUrl.search}`;
    };
    const form = (request.body ?? {}) as Record<string, string>;
    const numbers = [
      ...new Set(
        Object.keys(form)
          .map((name) => /^ticket-(\d{1,9})$/.exec(name)?.[1])
          .filter((n): n is string => n !== undefined),
      ),
    ].slice(0, MAX_BULK);
    const pick = (name: string) => field(request, name, 100)?.trim() || undefined;
    if (pick('intent') === 'merge') {
      // Into the ticket the agent named, else the oldest ticked one.
      const named = pick('merge_into')?.replace(/^#/, '');
      const target = named ?? (await oldestTicket(db, site.id, caller, numbers))?.number.toString();
      if (numbers.length === 0 || target === undefined) return seeOther(reply, back({ bulk: 'none' }));
      const sources = numbers.filter((number) => number !== target);
      try {
        if (sources.length === 0)
          throw new AppError('merge_into_itself', 'Tick at least one ticket besides the one to merge into.');
        const { target: merged } = await mergeTickets(db, site.id, caller, target, sources);
        return seeOther(reply, `/desk/tickets/${merged.number}?done=merged`);
      } catch (error) {
        if (!(error instanceof AppError && error.code in MERGE_REFUSED)) throw error;
        return seeOther(reply, back({ merge: error.code }));
      }
    }
    const assignee = pick('assignee');
    const tag = field(request, 'tag', 50)?.trim().toLowerCase() || undefined;
    const change: TicketChange = {
      status: oneOf<TicketStatus>(pick('status'), TICKET_STATUSES, 'status'),
      priority: oneOf<TicketPriority>(pick('priority'), TICKET_PRIORITIES, 'priority'),
      assigneeId: chosenAssignee(assignee, request),
    };
    if (numbers.length === 0 || (Object.values(change).every((v) => v === undefined) && !tag))
      return seeOther(reply, back({ bulk: 'none' }));
    let updated = 0;
    let refused = 0;
    for (const number of numbers) {
      const ticket = await findTicket(db, site.id, number);
      if (!ticket || !canSeeTicket(caller, ticket)) {
        refused++;
        continue;
      }
      try {
        await triageTicket(db, site.id, ticket.id, caller, {
          ...change,
          tags: tag && !ticket.tags.includes(tag) ? [...ticket.tags, tag] : undefined,
        });
        updated++;
      } catch (error) {
        if (!refusal(error) && !(error instanceof AppError && error.code === 'ticket_not_found')) throw error;
        refused++;
      }
    }
    return seeOther(reply, back({ updated: String(updated), ...(refused > 0 ? { refused: String(refused) } : {}) }));
  });

  const ticketQuery = Type.Object({
    draft: Type.Optional(Type.String({ maxLength: 100 })),
    done: Type.Optional(Type.String({ maxLength: 20 })),
    remote_images: Type.Optional(
      Type.String({ maxLength: 100, description: 'The entry whose remote images to show.' }),
    ),
    canned: Type.Optional(Type.String({ maxLength: 100, description: 'The canned reply to put into the reply box.' })),
  });
  app.get<WithTicket & { Querystring: { draft?: string; done?: string; remote_images?: string; canned?: string } }>(
    '/desk/tickets/:number',
    { schema: { ...TicketParams.schema, querystring: ticketQuery }, preHandler: INBOX_PAGE },
    async (request, reply) => {
      const { site, caller } = request.helpdesk;
      const listed = await findVisibleTicket(db, site.id, caller, request.params.number);
      const draft = request.query.draft ? await findDraft(db, listed.ticket.id, request.query.draft) : undefined;
      const done = DONE[request.query.done ?? ''];
      const canned = request.query.canned ? await getCannedReply(db, site.id, request.query.canned) : undefined;
      const filled = canned && {
        ...canned,
        filled: fillCannedReply(canned.body, {
          ...listed,
          agentName: await agentNameOf(db, site.id, caller, request.ui.title),
        }),
      };
      return renderTicket(
        request,
        reply,
        listed,
        { draft, canned: filled, flash: done ? { kind: 'ok', text: done } : undefined },
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
          assigneeId: chosenAssignee(assignee, request),
          // The triage form's tags, comma-separated; the quick buttons send none and change none.
          tags: 'tags' in (request.body as object) ? tagsOf(field(request, 'tags', 1100)) : undefined,
        };
        await triageTicket(db, site.id, listed.ticket.id, caller, change);
      } catch (error) {
        const refused = refusal(error);
        if (!refused) throw error;
        return renderTicket(request, reply, listed, { triageError: refused.message }, refused.status);
      }
      const back = field(request, 'back', 1000) ?? '';
      if (LIST_PATH.test(back)) {
        const url = new URL(back, 'http://desk.invalid');
        for (const name of ['assigned', 'updated', 'refused', 'bulk']) url.searchParams.delete(name);
        url.searchParams.set('assigned', String(listed.ticket.number));
        return seeOther(reply, `${url.pathname}${url.search}`);
      }
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

/** The tags a triage form's text names, each as stored (normalizeTags refuses too many or too long). */
function tagsOf(text: string | undefined): string[] {
  if (text === undefined) throw new AppError('invalid_ticket', 'Keep the tags under 1,100 characters.');
  return normalizeTags(text.split(','));
}

/** The assignee a triage form names: unchanged, nobody (`none`), the agent asking (`me`), or an agent. */
function chosenAssignee(value: string | undefined, request: FastifyRequest): string | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'none') return null;
  return value === 'me' ? viewerId(request) : value;
}
