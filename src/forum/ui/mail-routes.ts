// Links members follow from mail and the forms behind them: confirming the e-mail address, the
// forgotten-password flow and one-click unsubscribe. Reset requests answer the same whether or not
// an account matches, and are limited per client (like login) and per account (silently).
import { field, seeOther } from '../../http/forms.js';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { findMember } from '../members.js';
import { mailContext } from '../mail/context.js';
import { spendAccountMailBudget } from '../mail/limits.js';
import {
  confirmEmail,
  findResettableMember,
  resetLinkIsLive,
  resetPassword,
  sendPasswordReset,
} from '../mail/service.js';
import { unsubscribe } from '../mail/settings.js';
import { verifyUnsubscribeToken } from '../mail/tokens.js';
import { MAX_PASSWORD_LENGTH as MAX_PASSWORD, passwordProblem } from '../../lib/password-rules.js';
import { checkForm, loadUi } from './context.js';
import { sendPage } from './forms.js';
import { confirmedView, deadLinkView, forgotSentView, forgotView, resetView, unsubscribeView } from './mail-views.js';
import { notice } from './layout.js';
import { endMemberSession, setMemberCookie, startMemberSession } from './sessions.js';

const TokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) });
type WithToken = { Params: { token: string } };

export async function mailRoutes(app: FastifyInstance): Promise<void> {
  const db = app.deps.database.db;
  const outbox = app.mailOutbox;
  const loginLimit = { rateLimit: { max: app.deps.config.rateLimit.loginPerMinute, timeWindow: 60_000 } };
  const form = [loadUi, checkForm];
  const noMail =
    'Password reset by e-mail is not available: this server sends no mail. Ask an administrator of the community.';

  // Opening the link is the confirmation: it only ever confirms the address the link was sent to.
  app.get<WithToken>(
    '/confirm/:token',
    { schema: { params: TokenParams }, preHandler: loadUi },
    async (request, reply) => {
      const member = await confirmEmail(db, request.ui.site.id, request.params.token);
      if (!member)
        return sendPage(reply, request.ui, 'Link expired', deadLinkView('confirm'), { status: 410, private: true });
      // The page is the first the member sees confirmed: the banner asking to confirm goes with it.
      const viewer = request.ui.viewer;
      if (viewer.kind === 'member' && viewer.member.id === member.id) viewer.member.emailConfirmed = true;
      return sendPage(reply, request.ui, 'E-mail confirmed', confirmedView(), { private: true });
    },
  );

  app.get('/password/forgot', { preHandler: loadUi }, async (request, reply) =>
    sendPage(
      reply,
      request.ui,
      'Forgot password',
      outbox.enabledFor(request.ui.settings) ? forgotView(request.ui, {}) : notice('warn', noMail),
      { private: true },
    ),
  );

  app.post('/password/forgot', { preHandler: form, config: loginLimit }, async (request, reply) => {
    const ui = request.ui;
    if (!outbox.enabledFor(ui.settings))
      return sendPage(reply, ui, 'Forgot password', notice('warn', noMail), { status: 503, private: true });
    const login = field(request, 'login', 254)?.trim() ?? '';
    if (!login)
      return sendPage(reply, ui, 'Forgot password', forgotView(ui, {}, 'Enter your username or e-mail address.'), {
        status: 422,
        private: true,
      });
    const member = await findResettableMember(db, ui.site.id, login);
    if (member && (await spendAccountMailBudget(app, 'reset', ui.site.id, member.id))) {
      await sendPasswordReset(db, await mailContext(request, ui.site), member);
      outbox.drainSoon();
    }
    return sendPage(reply, ui, 'Check your mail', forgotSentView(), { private: true });
  });

  app.get<WithToken>(
    '/password/reset/:token',
    { schema: { params: TokenParams }, preHandler: loadUi },
    async (request, reply) => {
      const live = await resetLinkIsLive(db, request.ui.site.id, request.params.token);
      // The page holds a secret link: keep it out of referrers (same-origin policy) and caches (private).
      if (!live)
        return sendPage(reply, request.ui, 'Link expired', deadLinkView('reset'), { status: 410, private: true });
      return sendPage(reply, request.ui, 'New password', resetView(request.ui, request.params.token), {
        private: true,
      });
    },
  );

  app.post<WithToken>(
    '/password/reset/:token',
    { schema: { params: TokenParams }, preHandler: form, config: loginLimit },
    async (request, reply) => {
      const ui = request.ui;
      const { token } = request.params;
      const password = field(request, 'new_password', MAX_PASSWORD);
      const weak = passwordProblem(password ?? '');
      if (password === undefined || weak) {
        return sendPage(reply, ui, 'New password', resetView(ui, token, `The password ${weak ?? 'is too long'}.`), {
          status: 422,
          private: true,
        });
      }
      const member = await resetPassword(db, ui.site.id, token, password);
      if (!member) return sendPage(reply, ui, 'Link expired', deadLinkView('reset'), { status: 410, private: true });
      // Every session of the member ended with the reset; whoever reset it is logged in afresh.
      if (ui.sessionId) await endMemberSession(db, ui.sessionId);
      setMemberCookie(request, reply, await startMemberSession(db, ui.site.id, member.id));
      return seeOther(reply, '/account');
    },
  );

  app.get<WithToken>(
    '/unsubscribe/:token',
    { schema: { params: TokenParams }, preHandler: loadUi },
    async (request, reply) => {
      const link = verifyUnsubscribeToken(app.deps.config.secretKey, request.ui.site.id, request.params.token);
      if (!link || !(await findMember(db, request.ui.site.id, link.memberId)))
        return sendPage(reply, request.ui, 'Link expired', deadLinkView('confirm'), { status: 404, private: true });
      return sendPage(
        reply,
        request.ui,
        'Unsubscribe',
        unsubscribeView(request.ui, request.params.token, link.scope, false),
        { private: true },
      );
    },
  );

  // RFC 8058 one-click: mail providers POST here from their servers, without our cookies or form
  // token, so there is no CSRF check; the signed token is the authority, and it can only turn mail off.
  app.post<WithToken>(
    '/unsubscribe/:token',
    { schema: { params: TokenParams }, preHandler: loadUi },
    async (request, reply) => {
      const { site } = request.ui;
      const link = verifyUnsubscribeToken(app.deps.config.secretKey, site.id, request.params.token);
      if (!link || !(await findMember(db, site.id, link.memberId)))
        return sendPage(reply, request.ui, 'Link expired', deadLinkView('confirm'), { status: 404, private: true });
      await unsubscribe(db, site.id, link.memberId, link.scope);
      return sendPage(
        reply,
        request.ui,
        'Unsubscribed',
        unsubscribeView(request.ui, request.params.token, link.scope, true),
        { private: true },
      );
    },
  );
}
