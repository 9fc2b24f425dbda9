// The moderators' flag queue at /mod/flags, through the services of GET /flags and PATCH /flags/{id}
// of the Forum API: the same policy (moderators and admins), the same actions (hide, dismiss).
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { AppError } from '../../http/errors.js';
import { field, seeOther } from '../../http/forms.js';
import { listFlags, resolveFlag, type FlagAction } from '../flags.js';
import { FlagState } from '../schemas.js';
import { checkForm, loadUi } from './context.js';
import { flagQueueView } from './flag-views.js';
import { sanctionFields } from './moderation-routes.js';
import { pageNumber, sendPage, totalPages } from './forms.js';

const FLAGS_PER_PAGE = 20;
const ACTIONS: FlagAction[] = ['hide', 'dismiss'];
const DONE = { hide: 'hidden', dismiss: 'dismissed', warn: 'warned', suspend: 'suspended' } as const;

const QueueQuery = Type.Object({
  state: Type.Optional(FlagState),
  page: Type.Optional(Type.String({ maxLength: 10 })),
  done: Type.Optional(
    Type.Union([Type.Literal('hidden'), Type.Literal('dismissed'), Type.Literal('warned'), Type.Literal('suspended')]),
  ),
});
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

export async function flagRoutes(app: FastifyInstance): Promise<void> {
  const db = app.deps.database.db;

  app.get<{ Querystring: Static<typeof QueueQuery> }>(
    '/mod/flags',
    { schema: { querystring: QueueQuery }, preHandler: loadUi },
    async (request, reply) => {
      const state = request.query.state ?? 'open';
      const page = pageNumber(request.query.page);
      const { rows, total } = await listFlags(db, request.ui.site.id, request.ui.viewer, state, {
        page,
        pageSize: FLAGS_PER_PAGE,
        offset: (page - 1) * FLAGS_PER_PAGE,
      });
      const data = {
        state,
        flags: rows,
        page,
        totalPages: totalPages(total, FLAGS_PER_PAGE),
        done: request.query.done,
      };
      return sendPage(reply, request.ui, 'Flags', flagQueueView(request.ui, data), { private: true });
    },
  );

  app.post<{ Params: { id: string } }>(
    '/mod/flags/:id',
    { schema: { params: IdParams }, preHandler: [loadUi, checkForm] },
    async (request, reply) => {
      // The warn / suspend form posts `sanction`; the plain buttons post `action`.
      if (field(request, 'sanction', 10)) {
        const { sanction, input } = sanctionFields(request);
        await resolveFlag(db, request.ui.site, request.ui.viewer, request.params.id, {
          action: sanction,
          reason: input.reason,
          until: input.until,
        });
        return seeOther(reply, `/mod/flags?done=${DONE[sanction]}`);
      }
      const action = ACTIONS.find((known) => known === field(request, 'action', 10));
      if (!action) throw new AppError('bad_request', 'Unknown flag action: hide or dismiss.');
      await resolveFlag(db, request.ui.site, request.ui.viewer, request.params.id, { action });
      return seeOther(reply, `/mod/flags?done=${DONE[action]}`);
    },
  );
}
