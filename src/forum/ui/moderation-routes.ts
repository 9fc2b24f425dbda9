// Moderators' pages and forms beyond the flag queue: warn or suspend a member from its profile, lift
// a suspension, read the moderation log; and the member's "I understand" on a warning. The same
// services as the Forum API's moderation routes, so the same policy.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { AppError } from '../../http/errors.js';
import { field, seeOther } from '../../http/forms.js';
import { decideHeldPost, listHeldPosts } from '../held-posts.js';
import { replyMailOptions } from '../mail/context.js';
import { findMember, findMemberByUsername } from '../members.js';
import {
  acknowledgeWarning,
  liftSuspension,
  listModActions,
  MAX_REASON_LENGTH,
  suspendMember,
  warnMember,
  type SuspensionInput,
} from '../moderation.js';
import { isStaff, requireMember } from '../policy.js';
import { checkForm, loadUi } from './context.js';
import { pageNumber, sendPage, totalPages } from './forms.js';
import { heldView, modLogView, SUSPENSION_LENGTHS, suspensionEnd, type SuspensionLength } from './moderation-views.js';

const LOG_PER_PAGE = 25;
const UsernameParams = Type.Object({ username: Type.String({ minLength: 1, maxLength: 100 }) });
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
const HeldQuery = Type.Object({
  page: Type.Optional(Type.String({ maxLength: 10 })),
  done: Type.Optional(Type.Union([Type.Literal('posted'), Type.Literal('approved'), Type.Literal('rejected')])),
});
const LogQuery = Type.Object({
  member: Type.Optional(Type.String({ maxLength: 100 })),
  page: Type.Optional(Type.String({ maxLength: 10 })),
});

/** The warn / suspend form's fields: which sanction, and its reason and end. */
export function sanctionFields(request: FastifyRequest): { sanction: 'warn' | 'suspend'; input: SuspensionInput } {
  const sanction = field(request, 'sanction', 10);
  if (sanction !== 'warn' && sanction !== 'suspend') throw new AppError('bad_request', 'Choose to warn or to suspend.');
  const reason = field(request, 'reason', MAX_REASON_LENGTH);
  if (reason === undefined)
    throw new AppError('bad_request', `The reason is longer than ${MAX_REASON_LENGTH} characters.`);
  const length = field(request, 'length', 20) || 'indefinite';
  if (!Object.hasOwn(SUSPENSION_LENGTHS, length)) throw new AppError('bad_request', 'Unknown suspension length.');
  return {
    sanction,
    input: { reason, until: sanction === 'suspend' ? suspensionEnd(length as SuspensionLength) : null },
  };
}

export async function moderationUiRoutes(app: FastifyInstance): Promise<void> {
  const db = app.deps.database.db;
  const form = [loadUi, checkForm];

  app.post<{ Params: Static<typeof UsernameParams> }>(
    '/u/:username/sanction',
    { schema: { params: UsernameParams }, preHandler: form },
    async (request, reply) => {
      const { site, viewer } = request.ui;
      const member = await findMemberByUsername(db, site.id, request.params.username);
      if (!member) throw new AppError('member_not_found', `No member "${request.params.username}".`);
      const { sanction, input } = sanctionFields(request);
      if (sanction === 'warn') await warnMember(db, site, viewer, member.id, input);
      else await suspendMember(db, site, viewer, member.id, input);
      return seeOther(reply, `/u/${encodeURIComponent(member.username)}`);
    },
  );

  app.post<{ Params: Static<typeof UsernameParams> }>(
    '/u/:username/unsuspend',
    { schema: { params: UsernameParams }, preHandler: form },
    async (request, reply) => {
      const { site, viewer } = request.ui;
      const member = await findMemberByUsername(db, site.id, request.params.username);
      if (!member) throw new AppError('member_not_found', `No member "${request.params.username}".`);
      await liftSuspension(db, site, viewer, member.id);
      return seeOther(reply, `/u/${encodeURIComponent(member.username)}`);
    },
  );

  app.get<{ Querystring: Static<typeof LogQuery> }>(
    '/mod/log',
    { schema: { querystring: LogQuery }, preHandler: loadUi },
    async (request, reply) => {
      const { site, viewer } = request.ui;
      const page = pageNumber(request.query.page);
      const member = request.query.member ? await findMember(db, site.id, request.query.member) : undefined;
      const { rows, total } = await listModActions(
        db,
        site.id,
        viewer,
        { memberId: request.query.member },
        { page, pageSize: LOG_PER_PAGE, offset: (page - 1) * LOG_PER_PAGE },
      );
      return sendPage(
        reply,
        request.ui,
        'Moderation log',
        modLogView({ rows, member, page, totalPages: totalPages(total, LOG_PER_PAGE) }),
        { private: true },
      );
    },
  );

  app.get<{ Querystring: Static<typeof HeldQuery> }>(
    '/held',
    { schema: { querystring: HeldQuery }, preHandler: loadUi },
    async (request, reply) => {
      const { site, viewer } = request.ui;
      requireMember(viewer);
      const page = pageNumber(request.query.page);
      const { rows, total } = await listHeldPosts(db, site.id, viewer, {
        page,
        pageSize: LOG_PER_PAGE,
        offset: (page - 1) * LOG_PER_PAGE,
      });
      const data = {
        rows,
        staff: isStaff(viewer),
        page,
        totalPages: totalPages(total, LOG_PER_PAGE),
        done: request.query.done,
      };
      return sendPage(reply, request.ui, 'Held posts', heldView(request.ui, data), { private: true });
    },
  );

  app.post<{ Params: Static<typeof IdParams> }>(
    '/held/:id',
    { schema: { params: IdParams }, preHandler: form },
    async (request, reply) => {
      const action = field(request, 'action', 10);
      if (action !== 'approve' && action !== 'reject') throw new AppError('bad_request', 'Approve or reject.');
      const { site, viewer } = request.ui;
      const mail = action === 'approve' ? await replyMailOptions(request, site) : undefined;
      await decideHeldPost(db, site, viewer, request.params.id, { action }, mail);
      if (mail) app.mailOutbox.drainSoon();
      return seeOther(reply, `/held?done=${action === 'approve' ? 'approved' : 'rejected'}`);
    },
  );

  app.post<{ Params: Static<typeof IdParams> }>(
    '/warnings/:id/acknowledge',
    { schema: { params: IdParams }, preHandler: form },
    async (request, reply) => {
      await acknowledgeWarning(db, request.ui.site.id, request.ui.viewer, request.params.id);
      return seeOther(reply, '/');
    },
  );
}
