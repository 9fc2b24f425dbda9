// `/support` on a community site whose plan has the help desk: the contact form (guests and
// members; a member's ticket is theirs to follow) and, for members, `/support/tickets` with the
// public thread of each of their tickets and a reply form. A member's tickets are the ones they
// opened here (the history's `created` event names them): an address typed into a profile proves
// nothing, so tickets that came by mail stay with the mailbox.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { and, desc, eq, exists } from 'drizzle-orm';
import { Type } from 'typebox';
import { checkForm, loadUi, type UiContext } from '../../forum/ui/context.js';
import { FORM_BODY_LIMIT, sendPage } from '../../forum/ui/forms.js';
import { requireMember } from '../../forum/policy.js';
import type { Executor } from '../../db/client.js';
import { AppError } from '../../http/errors.js';
import { field, seeOther } from '../../http/forms.js';
import { consumeRateLimit } from '../../http/rate-limit.js';
import { addEntry, listEntries, openTicket } from '../tickets.js';
import { helpdeskHistory, helpdeskTickets, type TicketRow } from '../tables.js';
import { contactView, myTicketsView, sentView, ticketView, type ContactValues } from './views.js';

/** Contact-form tickets one address (or member) may open per hour. */
const CONTACTS_PER_HOUR = 10;
const MAX_MESSAGE = 20_000;

/** Tickets the member opened through the contact form, newest activity first. */
function openedBy(db: Executor, siteId: string, memberId: string) {
  const created = db
    .select({ one: helpdeskHistory.id })
    .from(helpdeskHistory)
    .where(
      and(
        eq(helpdeskHistory.ticketId, helpdeskTickets.id),
        eq(helpdeskHistory.event, 'created'),
        eq(helpdeskHistory.actorKind, 'member'),
        eq(helpdeskHistory.actorId, memberId),
      ),
    );
  return and(eq(helpdeskTickets.siteId, siteId), exists(created));
}

async function memberTicket(db: Executor, ui: UiContext, number: string): Promise<TicketRow> {
  requireMember(ui.viewer);
  const [ticket] = /^\d{1,9}$/.test(number)
    ? await db
        .select()
        .from(helpdeskTickets)
        .where(and(openedBy(db, ui.site.id, ui.viewer.member.id), eq(helpdeskTickets.number, Number(number))))
    : [];
  // Another requester's ticket is not found, exactly as a missing one.
  if (!ticket) throw new AppError('ticket_not_found', `No ticket #${number} of yours.`);
  return ticket;
}

export async function requesterRoutes(app: FastifyInstance): Promise<void> {
  const db = app.deps.database.db;
  /** preHandler: the page, on a site whose plan has the help desk (404 otherwise, as if absent). */
  const page = async (request: Parameters<typeof loadUi>[0], reply: FastifyReply): Promise<void> => {
    await loadUi(request, reply);
    if (!(await app.services.plans.includes(request.ui.site.plan, 'helpdesk_api')))
      throw new AppError('not_found', 'This community has no help desk.');
  };
  const form = [page, checkForm];
  const params = { schema: { params: Type.Object({ number: Type.String({ maxLength: 12 }) }) } };

  app.get('/support', { preHandler: page }, async (request, reply) =>
    sendPage(
      reply,
      request.ui,
      'Contact support',
      contactView(request.ui, { name: '', email: '', subject: '', message: '' }),
      { private: true },
    ),
  );

  app.post('/support', { preHandler: form, bodyLimit: FORM_BODY_LIMIT }, async (request, reply) => {
    const ui = request.ui;
    const member = ui.viewer.kind === 'member' ? ui.viewer.member : undefined;
    const values: ContactValues = {
      name: member?.username ?? field(request, 'name', 200)?.trim() ?? '',
      email: member?.email ?? field(request, 'email', 254)?.trim() ?? '',
      subject: field(request, 'subject', 300)?.trim() ?? '',
      message: field(request, 'message', MAX_MESSAGE)?.trim() ?? '',
    };
    const again = (message: string) =>
      sendPage(reply, ui, 'Contact support', contactView(ui, values, message), { status: 422, private: true });
    if (!values.subject || !values.message) return again('Write a subject and a message.');
    await consumeRateLimit(
      app.deps.cache.cache,
      `helpdesk:contact:${ui.site.id}:${member?.id ?? request.ip}`,
      CONTACTS_PER_HOUR,
      3600,
      'requests',
    );
    try {
      const { ticket } = await openTicket(
        db,
        ui.site.id,
        {
          subject: values.subject,
          body: values.message,
          requester: { email: values.email, name: values.name || null },
          channel: 'web',
        },
        member ? { kind: 'member', id: member.id } : undefined,
      );
      return sendPage(reply, ui, 'Thank you', sentView(ui, ticket), { private: true });
    } catch (error) {
      if (error instanceof AppError && error.status === 422) return again(error.message);
      throw error;
    }
  });

  app.get('/support/tickets', { preHandler: page }, async (request, reply) => {
    const ui = request.ui;
    if (ui.viewer.kind !== 'member') return seeOther(reply, '/login?next=%2Fsupport%2Ftickets');
    const tickets = await db
      .select()
      .from(helpdeskTickets)
      .where(openedBy(db, ui.site.id, ui.viewer.member.id))
      .orderBy(desc(helpdeskTickets.updatedAt))
      .limit(100);
    return sendPage(reply, ui, 'Your tickets', myTicketsView(tickets), { private: true });
  });

  app.get<{ Params: { number: string } }>(
    '/support/tickets/:number',
    { ...params, preHandler: page },
    async (request, reply) => {
      const ui = request.ui;
      if (ui.viewer.kind !== 'member')
        return seeOther(reply, `/login?next=${encodeURIComponent(`/support/tickets/${request.params.number}`)}`);
      const ticket = await memberTicket(db, ui, request.params.number);
      const { rows } = await listEntries(db, ticket.id, false, { pageSize: 200, offset: 0 });
      return sendPage(reply, ui, `#${ticket.number} ${ticket.subject}`, ticketView(ui, ticket, rows), {
        private: true,
      });
    },
  );

  app.post<{ Params: { number: string } }>(
    '/support/tickets/:number/reply',
    { ...params, preHandler: form, bodyLimit: FORM_BODY_LIMIT },
    async (request, reply) => {
      const ui = request.ui;
      const ticket = await memberTicket(db, ui, request.params.number);
      const body = field(request, 'body', MAX_MESSAGE)?.trim() ?? '';
      if (!body) {
        const { rows } = await listEntries(db, ticket.id, false, { pageSize: 200, offset: 0 });
        return sendPage(
          reply,
          ui,
          `#${ticket.number} ${ticket.subject}`,
          ticketView(ui, ticket, rows, 'Write a reply first.'),
          { status: 422, private: true },
        );
      }
      requireMember(ui.viewer);
      const { ticket: answered } = await addEntry(
        db,
        ticket,
        { body, author: { kind: 'requester' } },
        { kind: 'member', id: ui.viewer.member.id },
      );
      // A late reply to a long-closed ticket opens a follow-up (decision 0049): that is where it went.
      return seeOther(reply, `/support/tickets/${answered.number}`);
    },
  );
}
