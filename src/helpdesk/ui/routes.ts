// `/support` on a community site whose plan has the help desk: the contact form (guests and
// members; a member's ticket is theirs to follow) and, for members, `/support/tickets` with the
// public thread of each of their tickets and a reply form. Which tickets are a member's is
// access.ts's to say (`requesterTicketsWhere`): the ones it opened here and those of its verified
// address, however they came. Both forms may carry one file (multipart, as the forum composer's),
// stored as the entry's attachment and served back only as a download.
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { desc } from 'drizzle-orm';
import { Type } from 'typebox';
import { confirmsAddresses } from '../../forum/mail/context.js';
import { loadUi, type UiContext } from '../../forum/ui/context.js';
import { COMPOSER_BODY_LIMIT, COMPOSER_LIMITS, composerFile, readComposerForm } from '../../forum/ui/composer-form.js';
import { sendPage } from '../../forum/ui/forms.js';
import { requireMember } from '../../forum/policy.js';
import { UPLOADS_PER_HOUR } from '../../forum/uploads.js';
import { AppError } from '../../http/errors.js';
import { field, seeOther } from '../../http/forms.js';
import { consumeRateLimit } from '../../http/rate-limit.js';
import { findRequesterTicket, requesterTicketsWhere, type PortalCustomer } from '../access.js';
import { sendTicketAttachment, storeCustomerAttachment } from '../attachments.js';
import { acknowledgeTicket, replyMailSettings } from '../mail/outgoing.js';
import { mergedInto } from '../merge.js';
import { addEntry, findEntry, listEntries, openTicket } from '../tickets.js';
import { helpdeskTickets, type AttachmentRef, type TicketRow } from '../tables.js';
import { contactView, myTicketsView, sentView, ticketView, type ContactValues } from './views.js';

/** Contact-form tickets one address (or member) may open per hour. */
const CONTACTS_PER_HOUR = 10;
const MAX_MESSAGE = 20_000;
/** What a customer can fix by changing the form: it comes back with what was written. */
const FIXABLE = new Set(['upload_too_large', 'upload_type_refused']);

function fixable(error: unknown): error is AppError {
  return error instanceof AppError && (error.status === 422 || FIXABLE.has(error.code));
}

const AttachmentParams = Type.Object({
  number: Type.String({ maxLength: 12 }),
  entry: Type.String({ minLength: 1, maxLength: 40 }),
  index: Type.Integer({ minimum: 1, maximum: 100 }),
});

export async function requesterRoutes(app: FastifyInstance): Promise<void> {
  const db = app.deps.database.db;
  const { blobs } = app.deps;
  // A file over the limit is cut, not thrown (composer-form.ts): the form comes back with the text.
  await app.register(multipart, { limits: COMPOSER_LIMITS, throwFileSizeLimit: false });
  /** preHandler: the page, on a site whose plan has the help desk (404 otherwise, as if absent). */
  const page = async (request: Parameters<typeof loadUi>[0], reply: FastifyReply): Promise<void> => {
    await loadUi(request, reply);
    if (!(await app.services.plans.includes(request.ui.site.plan, 'helpdesk_api')))
      throw new AppError('not_found', 'This community has no help desk.');
  };
  const form = [page, readComposerForm];
  const params = { schema: { params: Type.Object({ number: Type.String({ maxLength: 12 }) }) } };

  const customerOf = (ui: UiContext): PortalCustomer => {
    requireMember(ui.viewer);
    return {
      siteId: ui.site.id,
      member: ui.viewer.member,
      addressesProven: confirmsAddresses(app.mailOutbox, ui.settings),
    };
  };

  /** The form's file stored as an attachment, within the forum's hourly upload budget; none when none was chosen. */
  const attachment = async (request: FastifyRequest, who: string): Promise<AttachmentRef[]> => {
    const file = composerFile(request);
    if (!file) return [];
    const site = request.ui.site.id;
    await consumeRateLimit(app.deps.cache.cache, `helpdesk:uploads:${site}:${who}`, UPLOADS_PER_HOUR, 3600, 'uploads');
    return [await storeCustomerAttachment(blobs, site, file)];
  };

  const showTicket = async (
    reply: FastifyReply,
    ui: UiContext,
    ticket: TicketRow,
    error?: string,
  ): Promise<FastifyReply> => {
    const { rows } = await listEntries(db, ticket.id, false, { pageSize: 200, offset: 0 });
    const merged = await mergedInto(db, ticket);
    return sendPage(reply, ui, `#${ticket.number} ${ticket.subject}`, ticketView(ui, ticket, rows, merged, error), {
      status: error ? 422 : 200,
      private: true,
    });
  };

  app.get('/support', { preHandler: page }, async (request, reply) =>
    sendPage(
      reply,
      request.ui,
      'Contact support',
      contactView(request.ui, { name: '', email: '', subject: '', message: '' }),
      { private: true },
    ),
  );

  app.post('/support', { preHandler: form, bodyLimit: COMPOSER_BODY_LIMIT }, async (request, reply) => {
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
    const who = member?.id ?? request.ip;
    await consumeRateLimit(
      app.deps.cache.cache,
      `helpdesk:contact:${ui.site.id}:${who}`,
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
          attachments: await attachment(request, who),
        },
        member ? { kind: 'member', id: member.id } : undefined,
      );
      // Only to a member's confirmed address: a guest's typed address is anyone's, and mailing it
      // would let the form send the desk's mail, with a subject of the sender's choosing, to strangers.
      if (member?.emailConfirmed)
        await acknowledgeTicket(
          { db, outbox: app.mailOutbox, log: request.log },
          ticket,
          replyMailSettings(ui.site, ui.settings, app.mailOutbox, app.deps.config.secretKey),
        );
      return sendPage(reply, ui, 'Thank you', sentView(ui, ticket), { private: true });
    } catch (error) {
      if (fixable(error)) return again(error.message);
      throw error;
    }
  });

  app.get('/support/tickets', { preHandler: page }, async (request, reply) => {
    const ui = request.ui;
    if (ui.viewer.kind !== 'member') return seeOther(reply, '/login?next=%2Fsupport%2Ftickets');
    const tickets = await db
      .select()
      .from(helpdeskTickets)
      .where(requesterTicketsWhere(db, customerOf(ui)))
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
      return showTicket(reply, ui, await findRequesterTicket(db, customerOf(ui), request.params.number));
    },
  );

  app.get<{ Params: { number: string; entry: string; index: number } }>(
    '/support/tickets/:number/attachments/:entry/:index',
    { schema: { params: AttachmentParams }, preHandler: page },
    async (request, reply) => {
      const ui = request.ui;
      if (ui.viewer.kind !== 'member') throw new AppError('attachment_not_found', 'Log in to download attachments.');
      const ticket = await findRequesterTicket(db, customerOf(ui), request.params.number);
      const entry = await findEntry(db, ticket.id, request.params.entry);
      // Internal notes and the files the desk made of a mail are the agents' only.
      const shown = entry && !entry.internal ? entry.attachments[request.params.index - 1] : undefined;
      return sendTicketAttachment(blobs, reply, shown?.role === undefined ? shown : undefined);
    },
  );

  app.post<{ Params: { number: string } }>(
    '/support/tickets/:number/reply',
    { ...params, preHandler: form, bodyLimit: COMPOSER_BODY_LIMIT },
    async (request, reply) => {
      const ui = request.ui;
      const customer = customerOf(ui);
      const ticket = await findRequesterTicket(db, customer, request.params.number);
      const body = field(request, 'body', MAX_MESSAGE)?.trim() ?? '';
      if (!body) return showTicket(reply, ui, ticket, 'Write a reply first.');
      const merged = await mergedInto(db, ticket);
      if (merged) return showTicket(reply, ui, ticket, `This request continues in ticket #${merged.number}.`);
      try {
        const { ticket: answered } = await addEntry(
          db,
          ticket,
          {
            body,
            author: { kind: 'requester' },
            attachments: await attachment(request, customer.member.id),
          },
          { kind: 'member', id: customer.member.id },
        );
        // A late reply to a long-closed ticket opens a follow-up (decision 0049): that is where it went.
        return seeOther(reply, `/support/tickets/${answered.number}`);
      } catch (error) {
        if (fixable(error)) return showTicket(reply, ui, ticket, error.message);
        throw error;
      }
    },
  );
}
