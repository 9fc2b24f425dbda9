// Password links in the console (docs/decisions/0086): the page an invitation or reset link opens,
// and the forgotten-password form. Asking for a link answers the same whether or not an account
// matches; it is limited per client like login, and per account silently.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { findPasswordLink, setPasswordThroughLink } from '../core/accounts/password-links.js';
import { sendPasswordLink } from '../core/accounts/password-mail.js';
import { endSession, findUserByLogin, startSession } from '../core/accounts/service.js';
import { SESSION_COOKIE } from '../core/auth.js';
import { field, seeOther } from '../http/forms.js';
import { withinRateLimit } from '../http/rate-limit.js';
import { ASKED_MAILS_PER_HOUR } from '../jobs/mail-outbox.js';
import { MAX_PASSWORD_LENGTH, passwordProblem } from '../lib/password-rules.js';
import { loadConsole } from './context.js';
import { deadLinkView, forgotSentView, forgotView, setPasswordView } from './password-views.js';
import { sendPage } from './page.js';
import { setSessionCookie } from './routes.js';

const TokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) });
type WithToken = { Params: { token: string } };

export async function passwordRoutes(app: FastifyInstance): Promise<void> {
  const { config } = app.deps;
  const db = app.deps.database.db;
  const outbox = app.mailOutbox;
  const loginLimit = { rateLimit: { max: config.rateLimit.loginPerMinute, timeWindow: 60_000 } };

  // The page holds a secret link: the console keeps it out of referrers (same-origin) and caches (no-store).
  app.get<WithToken>(
    '/password/set/:token',
    { schema: { params: TokenParams }, preHandler: loadConsole },
    async (request, reply) => {
      const link = await findPasswordLink(db, request.params.token);
      if (!link) return sendPage(request, reply, 'Link expired', deadLinkView(), 410);
      return sendPage(
        request,
        reply,
        'Choose a password',
        setPasswordView(
          request.console,
          { purpose: link.token.purpose, username: link.user.username },
          request.params.token,
        ),
      );
    },
  );

  app.post<WithToken>(
    '/password/set/:token',
    { schema: { params: TokenParams }, preHandler: loadConsole, config: loginLimit },
    async (request, reply) => {
      const { token } = request.params;
      const link = await findPasswordLink(db, token);
      if (!link) return sendPage(request, reply, 'Link expired', deadLinkView(), 410);
      const password = field(request, 'password', MAX_PASSWORD_LENGTH);
      const weak = password === undefined ? 'is too long' : passwordProblem(password);
      if (password === undefined || weak) {
        const view = setPasswordView(
          request.console,
          { purpose: link.token.purpose, username: link.user.username },
          token,
          `The password ${weak}.`,
        );
        return sendPage(request, reply, 'Choose a password', view, 422);
      }
      const user = await setPasswordThroughLink(db, link, password);
      if (!user) return sendPage(request, reply, 'Link expired', deadLinkView(), 410);
      // Whoever was logged in in this browser is logged out; the link's holder is logged in.
      const cookie = request.cookies[SESSION_COOKIE];
      if (cookie) await endSession(db, cookie);
      setSessionCookie(request, reply, await startSession(db, user.id));
      return seeOther(reply, '/');
    },
  );

  app.get('/password/forgot', { preHandler: loadConsole }, async (request, reply) =>
    sendPage(request, reply, 'Forgot password', forgotView(request.console, outbox.enabled, {})),
  );

  app.post('/password/forgot', { preHandler: loadConsole, config: loginLimit }, async (request, reply) => {
    if (!outbox.enabled)
      return sendPage(request, reply, 'Forgot password', forgotView(request.console, false, {}), 503);
    const login = field(request, 'login', 254)?.trim() ?? '';
    if (!login)
      return sendPage(
        request,
        reply,
        'Forgot password',
        forgotView(request.console, true, { error: 'Enter your username or e-mail address.' }),
        422,
      );
    const user = await findUserByLogin(db, login);
    if (
      user &&
      (await withinRateLimit(app.deps.cache.cache, `portal:mail:reset:${user.id}`, ASKED_MAILS_PER_HOUR, 3600))
    ) {
      await sendPasswordLink(db, config.publicUrl.origin, user);
      outbox.drainSoon();
    }
    return sendPage(request, reply, 'Check your mail', forgotSentView());
  });
}
