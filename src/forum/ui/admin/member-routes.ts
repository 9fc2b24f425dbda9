// Members in the admin area: search, add, change role, ban and lift bans, send a password-reset
// mail through the outbox, delete. Every change goes through the one member service, whose
// last-admin guard answers 409 here as in the Forum API and the CLI.
import { field, seeOther } from '../../../http/forms.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { isEmail } from '../../../lib/email.js';
import { AppError } from '../../../http/errors.js';
import { toPage } from '../../../http/pagination.js';
import { mailContext } from '../../mail/context.js';
import { spendAccountMailBudget } from '../../mail/limits.js';
import { findResettableMember, sendPasswordReset } from '../../mail/service.js';
import { memberSummaries } from '../../member-activity.js';
import { createMember, deleteMember, effectiveRole, findMember, listMembers, updateMember } from '../../members.js';
import { authorizeBan, type Role } from '../../policy.js';
import type { ForumMemberRow } from '../../tables.js';
import { MAX_PASSWORD_LENGTH, passwordProblem } from '../../../lib/password-rules.js';
import { USERNAME } from '../account-routes.js';
import { pageNumber, sendPage, totalPages } from '../forms.js';
import { endOtherMemberSessions } from '../sessions.js';
import { ADMIN_FORM, ADMIN_PAGE } from './access.js';
import { membersView, type MembersPage, type NewMemberValues } from './member-views.js';
import type { FieldErrors } from './structure-views.js';
import { confirmView, type Flash } from './views.js';

const MEMBERS_PER_PAGE = 25;
const ROLES: readonly string[] = ['admin', 'moderator', 'member'] satisfies Role[];
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
const MembersQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 100 })),
  page: Type.Optional(Type.String({ maxLength: 10 })),
  done: Type.Optional(Type.String({ maxLength: 20 })),
  who: Type.Optional(Type.String({ maxLength: 100 })),
});
type WithId = { Params: { id: string } };
type ListQuery = { Querystring: { q?: string; page?: string; done?: string; who?: string } };

/** What the page says after a change it redirected from; `who` is only ever shown as text. */
const DONE: Record<string, (who: string) => string> = {
  added: (who) => `${who} is a member now.`,
  role: (who) => `${who} has a new role.`,
  banned: (who) => `${who} is banned; their sessions have ended.`,
  unbanned: (who) => `${who} may take part again.`,
  reset: (who) => `We mailed ${who} a link to choose a new password.`,
  deleted: (who) => `${who} is deleted; their posts stay, without an author.`,
};

/** Refusals of the member service an admin can act on, shown on the members page. */
const SHOWN = new Set(['last_admin', 'owner_member', 'forbidden', 'rate_limited', 'mail_disabled']);

function done(reply: FastifyReply, code: keyof typeof DONE, who: string): FastifyReply {
  return seeOther(reply, `/admin/members?${new URLSearchParams({ done: code, who }).toString()}`);
}

export async function adminMemberRoutes(app: FastifyInstance): Promise<void> {
  const db = app.deps.database.db;
  const outbox = app.mailOutbox;

  async function renderMembers(
    request: FastifyRequest,
    reply: FastifyReply,
    options: { query?: string; page?: number; add?: MembersPage['add']; flash?: Flash; status?: number },
  ) {
    const ui = request.ui;
    const query = options.query?.trim() ?? '';
    const number = options.page ?? 1;
    const { rows, total } = await listMembers(
      db,
      ui.site.id,
      toPage({ page: number, page_size: MEMBERS_PER_PAGE }),
      query,
    );
    const summaries = await memberSummaries(
      db,
      ui.site.id,
      rows.map((member) => member.id),
    );
    const page: MembersPage = {
      members: rows.map((member) => ({
        member,
        role: effectiveRole(ui.site, member),
        summary: summaries.get(member.id),
      })),
      total,
      query,
      page: number,
      totalPages: totalPages(total, MEMBERS_PER_PAGE),
      mailEnabled: outbox.enabledFor(ui.settings),
      ...(options.add ? { add: options.add } : {}),
      ...(options.flash ? { flash: options.flash } : {}),
    };
    return sendPage(reply, ui, 'Members', membersView(ui, page), { status: options.status ?? 200, private: true });
  }

  /** Runs a change; the service's refusals come back as the members page with the reason. */
  async function change(
    request: FastifyRequest,
    reply: FastifyReply,
    action: () => Promise<FastifyReply>,
  ): Promise<FastifyReply> {
    try {
      return await action();
    } catch (error) {
      if (error instanceof AppError && SHOWN.has(error.code))
        return renderMembers(request, reply, { flash: { kind: 'error', text: error.message }, status: error.status });
      throw error;
    }
  }

  const memberOf = async (siteId: string, id: string): Promise<ForumMemberRow> => {
    const member = await findMember(db, siteId, id);
    if (!member) throw new AppError('member_not_found', `No member "${id}".`);
    return member;
  };

  app.get<ListQuery>(
    '/admin/members',
    { schema: { querystring: MembersQuery }, preHandler: ADMIN_PAGE },
    async (request, reply) => {
      const { q, page, done: code, who } = request.query;
      const message = code && Object.hasOwn(DONE, code) && who ? DONE[code]!(who) : undefined;
      return renderMembers(request, reply, {
        query: q ?? '',
        page: pageNumber(page),
        ...(message ? { flash: { kind: 'ok', text: message } } : {}),
      });
    },
  );

  app.post('/admin/members', { preHandler: ADMIN_FORM }, async (request, reply) => {
    const ui = request.ui;
    const role = field(request, 'role', 20) ?? '';
    const values: NewMemberValues = {
      username: field(request, 'username', 100)?.trim() ?? '',
      email: field(request, 'email', 300)?.trim() ?? '',
      role: ROLES.includes(role) ? (role as Role) : 'member',
    };
    const password = field(request, 'password', MAX_PASSWORD_LENGTH);
    const errors: FieldErrors = {};
    if (!USERNAME.test(values.username))
      errors.username = 'Use 2 to 39 letters, digits, _, . or -, starting with a letter, digit or _.';
    if (!isEmail(values.email)) errors.email = 'Enter a valid e-mail address.';
    const weak = password === undefined ? 'is missing' : passwordProblem(password);
    if (weak) errors.password = `The password ${weak}.`;
    if (Object.keys(errors).length > 0) return renderMembers(request, reply, { add: { values, errors }, status: 422 });
    try {
      const member = await createMember(db, ui.site.id, { ...values, password: password! });
      return done(reply, 'added', member.username);
    } catch (error) {
      if (error instanceof AppError && error.code === 'username_taken')
        return renderMembers(request, reply, { add: { values, errors: { username: error.message } }, status: 409 });
      if (error instanceof AppError && error.code === 'email_taken')
        return renderMembers(request, reply, { add: { values, errors: { email: error.message } }, status: 409 });
      throw error;
    }
  });

  app.post<WithId>(
    '/admin/members/:id/role',
    { schema: { params: IdParams }, preHandler: ADMIN_FORM },
    async (request, reply) =>
      change(request, reply, async () => {
        const role = field(request, 'role', 20) ?? '';
        if (!ROLES.includes(role)) throw new AppError('bad_request', 'Choose admin, moderator or member.');
        const member = await updateMember(db, request.ui.site.id, request.params.id, { role: role as Role });
        return done(reply, 'role', member.username);
      }),
  );

  app.post<WithId>(
    '/admin/members/:id/ban',
    { schema: { params: IdParams }, preHandler: ADMIN_FORM },
    async (request, reply) =>
      change(request, reply, async () => {
        const { site, viewer } = request.ui;
        const target = await memberOf(site.id, request.params.id);
        authorizeBan(viewer, target, effectiveRole(site, target));
        const banned = field(request, 'banned', 5) !== 'false';
        const member = await updateMember(db, site.id, target.id, { banned });
        // A ban ends the member's sessions at once; its tokens stop working through the API's own check.
        if (banned) await endOtherMemberSessions(db, member.id);
        return done(reply, banned ? 'banned' : 'unbanned', member.username);
      }),
  );

  app.post<WithId>(
    '/admin/members/:id/reset',
    { schema: { params: IdParams }, preHandler: ADMIN_FORM },
    async (request, reply) =>
      change(request, reply, async () => {
        const { site } = request.ui;
        if (!outbox.enabledFor(request.ui.settings))
          throw new AppError(
            'mail_disabled',
            'This server sends no mail: set BLUME_MAIL_SERVER to send password resets.',
          );
        const target = await memberOf(site.id, request.params.id);
        const member = await findResettableMember(db, site.id, target.username);
        if (!member || member.id !== target.id)
          throw new AppError(
            'forbidden',
            `${target.username} cannot reset a password here: banned members and the site owner's account have none to \
reset.`,
          );
        if (!(await spendAccountMailBudget(app, 'reset', site.id, member.id)))
          throw new AppError(
            'rate_limited',
            `${member.username} got several reset mails this hour; wait before sending another.`,
          );
        await sendPasswordReset(db, await mailContext(request, site), member);
        outbox.drainSoon();
        return done(reply, 'reset', member.username);
      }),
  );

  app.get<WithId>(
    '/admin/members/:id/delete',
    { schema: { params: IdParams }, preHandler: ADMIN_PAGE },
    async (request, reply) => {
      const ui = request.ui;
      const member = await memberOf(ui.site.id, request.params.id);
      const consequences = `${member.username} \
<${member.email}> \
goes: their account, sessions and forum tokens. Their topics and posts stay, shown as by a former member.`;
      const view = confirmView(
        ui,
        'members',
        `Delete ${member.username}?`,
        consequences,
        `/admin/members/${member.id}/delete`,
        'Delete member',
        '/admin/members',
      );
      return sendPage(reply, ui, 'Delete member', view, { private: true });
    },
  );

  app.post<WithId>(
    '/admin/members/:id/delete',
    { schema: { params: IdParams }, preHandler: ADMIN_FORM },
    async (request, reply) =>
      change(request, reply, async () => {
        const member = await deleteMember(db, request.ui.site.id, request.params.id);
        return done(reply, 'deleted', member.username);
      }),
  );
}
