// Signing up, logging in and out, the member's own profile (password, forum tokens) and banning.
// Login answers one message for unknown logins and wrong passwords, in the same time, and is rate
// limited per client like the API's token minting.
import { activeSuspension, suspensionWords } from '../moderation.js';
import { field, safeNext, seeOther } from '../../http/forms.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { isEmail } from '../../lib/email.js';
import { listCredentials, mintCredential } from '../../core/credentials/service.js';
import { AppError } from '../../http/errors.js';
import { MAX_PASSWORD_LENGTH as MAX_PASSWORD, passwordProblem } from '../../lib/password-rules.js';
import {
  authenticateMember,
  changeMemberPassword,
  createMember,
  effectiveRole,
  findMemberByUsername,
  updateMember,
} from '../members.js';
import { authorizeBan, requireMember } from '../policy.js';
import { confirmsAddresses, mailContext } from '../mail/context.js';
import { spendAccountMailBudget } from '../mail/limits.js';
import { sendConfirmation } from '../mail/service.js';
import { checkForm, loadUi, type UiContext } from './context.js';
import { accountView, loginView, signupView, type AccountPage } from './form-views.js';
import { HONEYPOT_FIELD, signupStamp, signupTrap, STAMP_FIELD, type SignupTrap } from './signup-trap.js';
import { sendPage } from './forms.js';
import {
  clearMemberCookie,
  endMemberSession,
  endOtherMemberSessions,
  setMemberCookie,
  startMemberSession,
} from './sessions.js';

export const USERNAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{1,38}$/;

const NextQuery = Type.Object({ next: Type.Optional(Type.String({ maxLength: 500 })) });

const TRAP_MESSAGES: Record<SignupTrap, string> = {
  honeypot:
    'The account could not be created. If you are a person, leave the hidden field empty and send the form again.',
  stale_form: 'The form expired; check the details and send it again.',
  too_fast: 'That was faster than anyone types; check the details and send the form again.',
};

export async function accountRoutes(app: FastifyInstance): Promise<void> {
  const db = app.deps.database.db;
  const loginLimit = { rateLimit: { max: app.deps.config.rateLimit.loginPerMinute, timeWindow: 60_000 } };
  const form = [loadUi, checkForm];

  async function startSession(request: FastifyRequest, reply: FastifyReply, memberId: string): Promise<void> {
    const previous = request.ui.sessionId;
    if (previous) await endMemberSession(db, previous);
    setMemberCookie(request, reply, await startMemberSession(db, request.ui.site.id, memberId));
  }

  app.get<{ Querystring: { next?: string } }>(
    '/login',
    { schema: { querystring: NextQuery }, preHandler: loadUi },
    async (request, reply) =>
      sendPage(reply, request.ui, 'Log in', loginView(request.ui, { next: safeNext(request.query.next) }), {
        private: true,
      }),
  );

  app.post('/login', { preHandler: form, config: loginLimit }, async (request, reply) => {
    const ui = request.ui;
    const login = field(request, 'login', 254)?.trim() ?? '';
    const password = field(request, 'password', MAX_PASSWORD) ?? '';
    const next = safeNext(field(request, 'next', 500));
    const throttle = app.services.loginThrottle;
    const scope = `site:${ui.site.id}` as const;
    try {
      await throttle.check(request, scope, login);
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'login_locked') throw error;
      reply.headers(error.headers);
      return sendPage(reply, ui, 'Log in', loginView(ui, { login, next }, error.message), {
        status: 429,
        private: true,
      });
    }
    const member = login && password ? await authenticateMember(db, ui.site, login, password) : undefined;
    if (!member) await throttle.failed(request, scope, login);
    else await throttle.succeeded(request, reply, scope, login);
    const suspension = member && activeSuspension(member);
    if (!member || member.banned || suspension) {
      // Banned and suspended members learn it only after proving their password.
      const message = member?.banned
        ? 'This member is banned from the community.'
        : suspension
          ? suspensionWords(suspension)
          : 'The login or password is wrong.';
      return sendPage(reply, ui, 'Log in', loginView(ui, { login, next }, message), {
        status: member ? 403 : 401,
        private: true,
      });
    }
    await startSession(request, reply, member.id);
    return seeOther(reply, next);
  });

  const stamp = (ui: UiContext): string => signupStamp(app.deps.config.secretKey, ui.site.id);
  app.get('/signup', { preHandler: loadUi }, async (request, reply) =>
    sendPage(reply, request.ui, 'Sign up', signupView(request.ui, { stamp: stamp(request.ui) }), { private: true }),
  );

  app.post('/signup', { preHandler: form, config: loginLimit }, async (request, reply) => {
    const ui = request.ui;
    if (!ui.registrationOpen)
      throw new AppError('signup_closed', 'Sign-up is closed in this community; ask an administrator for an account.');
    const username = field(request, 'username', 39)?.trim() ?? '';
    const email = field(request, 'email', 254)?.trim() ?? '';
    const password = field(request, 'password', MAX_PASSWORD);
    const again = (message: string, status = 422) =>
      sendPage(reply, ui, 'Sign up', signupView(ui, { username, email, stamp: stamp(ui) }, message), {
        status,
        private: true,
      });
    const trap = signupTrap(
      app.deps.config.secretKey,
      ui.site.id,
      { honeypot: field(request, HONEYPOT_FIELD, 200), stamp: field(request, STAMP_FIELD, 200) },
      app.deps.config.signupMinSeconds,
    );
    if (trap !== undefined) {
      request.log.info({ trap }, 'sign-up refused by a bot trap');
      return again(TRAP_MESSAGES[trap]);
    }
    if (!USERNAME.test(username))
      return again('The username must be 2 to 39 letters, digits, _, . or -, starting with a letter, digit or _.');
    if (!isEmail(email)) return again('Enter a valid e-mail address.');
    const weak = passwordProblem(password ?? '');
    if (password === undefined || weak) return again(`The password ${weak ?? 'is too long'}.`);
    // Without mail there is no way to confirm an address, so nobody is asked to; nor when the
    // community turns confirmation off (FORUM_EMAIL_CONFIRMATION).
    const mailOn = confirmsAddresses(app.mailOutbox, ui.settings);
    try {
      const member = await createMember(db, ui.site.id, {
        username,
        email,
        password,
        emailConfirmed: !mailOn,
        trustLevel: 0,
      });
      await startSession(request, reply, member.id);
      if (mailOn) {
        await sendConfirmation(db, await mailContext(request, ui.site), member);
        app.mailOutbox.drainSoon();
      }
    } catch (error) {
      if (error instanceof AppError && (error.code === 'username_taken' || error.code === 'email_taken'))
        return again(error.message, 409);
      throw error;
    }
    return seeOther(reply, '/');
  });

  app.post('/logout', { preHandler: form }, async (request, reply) => {
    if (request.ui.sessionId) await endMemberSession(db, request.ui.sessionId);
    clearMemberCookie(reply);
    return seeOther(reply, '/');
  });

  async function accountPage(ui: UiContext, extra: Partial<AccountPage>): Promise<AccountPage> {
    requireMember(ui.viewer);
    const member = ui.viewer.member;
    const [tokens, apiAvailable] = await Promise.all([
      listCredentials(db, { kind: 'forum_token', siteId: ui.site.id, subjectId: member.id }),
      app.services.plans.includes(ui.site.plan, 'forum_api'),
    ]);
    return {
      member,
      role: ui.viewer.role,
      tokens,
      apiAvailable,
      mailEnabled: app.mailOutbox.enabledFor(ui.settings),
      ...extra,
    };
  }

  app.get('/account', { preHandler: loadUi }, async (request, reply) => {
    if (request.ui.viewer.kind === 'guest') return seeOther(reply, '/login?next=%2Faccount');
    return sendPage(reply, request.ui, 'Your profile', accountView(request.ui, await accountPage(request.ui, {})), {
      private: true,
    });
  });

  app.post('/account/password', { preHandler: form, config: loginLimit }, async (request, reply) => {
    const ui = request.ui;
    requireMember(ui.viewer);
    const current = field(request, 'current_password', MAX_PASSWORD) ?? '';
    const next = field(request, 'new_password', MAX_PASSWORD);
    let message: AccountPage['message'];
    const weak = passwordProblem(next ?? '');
    if (next === undefined || weak) message = { kind: 'error', text: `The new password ${weak ?? 'is too long'}.` };
    else if (!(await changeMemberPassword(db, ui.viewer.member, current, next)))
      message = { kind: 'error', text: 'The current password is wrong.' };
    else {
      // Whoever else holds a session with the old password loses it.
      await endOtherMemberSessions(db, ui.viewer.member.id, ui.sessionId);
      message = { kind: 'ok', text: 'Your password is changed; your other sessions have ended.' };
    }
    return sendPage(reply, ui, 'Your profile', accountView(ui, await accountPage(ui, { message })), {
      status: message.kind === 'ok' ? 200 : 422,
      private: true,
    });
  });

  app.post('/account/confirm/resend', { preHandler: form }, async (request, reply) => {
    const ui = request.ui;
    requireMember(ui.viewer);
    const member = ui.viewer.member;
    let message: AccountPage['message'];
    if (member.emailConfirmed) message = { kind: 'ok', text: 'Your e-mail address is already confirmed.' };
    else if (!app.mailOutbox.enabledFor(ui.settings))
      message = { kind: 'error', text: 'This server sends no mail; ask an administrator to confirm your address.' };
    else if (!(await spendAccountMailBudget(app, 'confirm', ui.site.id, member.id)))
      message = { kind: 'error', text: 'We sent several mails already; wait an hour before asking again.' };
    else {
      await sendConfirmation(db, await mailContext(request, ui.site), member);
      app.mailOutbox.drainSoon();
      message = { kind: 'ok', text: `We sent a new confirmation link to ${member.email}.` };
    }
    return sendPage(reply, ui, 'Your profile', accountView(ui, await accountPage(ui, { message })), {
      status: message.kind === 'ok' ? 200 : 429,
      private: true,
    });
  });

  app.post('/account/tokens', { preHandler: form }, async (request, reply) => {
    const ui = request.ui;
    requireMember(ui.viewer);
    const name = field(request, 'name', 100)?.trim() || 'Web token';
    if (!(await app.services.plans.includes(ui.site.plan, 'forum_api')))
      throw new AppError(
        'plan_required',
        "This community's plan does not include the Forum API; a platform administrator can upgrade it " +
          '(docs/plans.md).',
      );
    const minted = await mintCredential(db, {
      kind: 'forum_token',
      siteId: ui.site.id,
      subjectId: ui.viewer.member.id,
      name,
    });
    // Shown on this response only, never stored in a redirect or a cache.
    return sendPage(
      reply,
      ui,
      'Your profile',
      accountView(ui, await accountPage(ui, { minted: { name, token: minted.token } })),
      { status: 201, private: true },
    );
  });

  app.post<{ Params: { id: string } }>(
    '/account/tokens/:id/revoke',
    { schema: { params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }) }, preHandler: form },
    async (request, reply) => {
      const ui = request.ui;
      requireMember(ui.viewer);
      if (
        !(await app.services.credentials.revoke(request.params.id, {
          kind: 'forum_token',
          siteId: ui.site.id,
          subjectId: ui.viewer.member.id,
        }))
      ) {
        throw new AppError('credential_not_found', 'No such token.');
      }
      return sendPage(
        reply,
        ui,
        'Your profile',
        accountView(ui, await accountPage(ui, { message: { kind: 'ok', text: 'The token is revoked.' } })),
        { private: true },
      );
    },
  );

  app.post<{ Params: { username: string } }>(
    '/u/:username/ban',
    { schema: { params: Type.Object({ username: Type.String({ minLength: 1, maxLength: 100 }) }) }, preHandler: form },
    async (request, reply) => {
      const { site, viewer } = request.ui;
      requireMember(viewer);
      const member = await findMemberByUsername(db, site.id, request.params.username);
      if (!member) throw new AppError('member_not_found', `No member "${request.params.username}".`);
      authorizeBan(viewer, member, effectiveRole(site, member));
      const banned = field(request, 'banned', 5) !== 'false';
      await updateMember(db, site.id, member.id, { banned });
      // A ban ends the member's sessions at once; tokens stop working through the API's own check.
      if (banned) await endOtherMemberSessions(db, member.id);
      return seeOther(reply, `/u/${encodeURIComponent(member.username)}`);
    },
  );
}
