// Console pages and their form posts. Handlers call the same services as the portal API; a refused
// form is shown again with the reason in words and nothing changed.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  authenticate,
  changePassword,
  createAccount,
  endOtherSessions,
  endSession,
  listSessions,
  SESSION_TTL_MS,
  startSession,
} from '../core/accounts/service.js';
import { SESSION_COOKIE } from '../core/auth.js';
import { presentSite, urlContext } from '../core/sites/presenters.js';
import { authorizeSite } from '../core/sites/policy.js';
import { createSite, deleteSite, findSite, listSites } from '../core/sites/service.js';
import { deploySummaries } from '../deploy/service.js';
import { listOffers } from '../purchase/service.js';
import { AppError } from '../http/errors.js';
import { field, safeNext, seeOther } from '../http/forms.js';
import { loadConsole, signedIn } from './context.js';
import { attempt, sendPage } from './page.js';
import { doneMessage, sendSitePage } from './site-page.js';
import { accountView, loginView, newSiteView, signupView, sitesView } from './views.js';

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, value: string): void {
  reply.setCookie(SESSION_COOKIE, value, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: request.server.deps.config.production || request.protocol === 'https',
    maxAge: SESSION_TTL_MS / 1000,
  });
}

const USERNAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{1,38}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export async function consoleRoutes(app: FastifyInstance): Promise<void> {
  const { config } = app.deps;
  const db = app.deps.database.db;
  const throttle = app.services.loginThrottle;
  const loginLimit = { max: config.rateLimit.loginPerMinute, timeWindow: 60_000 };
  const opts = { preHandler: loadConsole };

  app.get('/', opts, async (request, reply) => {
    const user = request.console.user;
    if (!user) return sendPage(request, reply, 'Log in', loginView(request.console, {}));
    const rows = await listSites(db, user);
    const sites = rows.map((site) => presentSite(site, urlContext(request)));
    const deploys = await deploySummaries(
      db,
      rows.filter((site) => site.kind === 'static').map((site) => site.id),
    );
    const deleted =
      typeof (request.query as Record<string, unknown>).deleted === 'string'
        ? `Site ${(request.query as Record<string, string>).deleted} was deleted.`
        : undefined;
    const offers = (await listOffers(db, user)).length;
    return sendPage(request, reply, 'Sites', sitesView(request.console, sites, deploys, deleted, offers));
  });

  app.get('/login', opts, async (request, reply) => {
    const next = safeNext((request.query as Record<string, string | undefined>).next);
    if (request.console.user) return seeOther(reply, next);
    return sendPage(request, reply, 'Log in', loginView(request.console, { next }));
  });

  app.post('/login', { ...opts, config: { rateLimit: loginLimit } }, async (request, reply) => {
    const login = field(request, 'login', 254) ?? '';
    const password = field(request, 'password', 200) ?? '';
    const next = safeNext(field(request, 'next', 2000));
    return attempt(
      async () => {
        await throttle.check(request, 'portal', login);
        const user = await authenticate(db, login, password);
        if (!user) {
          await throttle.failed(request, 'portal', login);
          throw new AppError('invalid_credentials', 'The login or password is wrong.');
        }
        setSessionCookie(request, reply, await startSession(db, user.id));
        await throttle.succeeded(request, reply, 'portal', login);
        return seeOther(reply, next);
      },
      (error) =>
        sendPage(
          request,
          reply,
          'Log in',
          loginView(request.console, { login, next, error: error.message }),
          error.status,
        ),
    );
  });

  app.get('/signup', opts, async (request, reply) => {
    if (request.console.user) return seeOther(reply, '/');
    return sendPage(request, reply, 'Sign up', signupView(request.console, {}));
  });

  app.post('/signup', { ...opts, config: { rateLimit: loginLimit } }, async (request, reply) => {
    const username = field(request, 'username', 39) ?? '';
    const email = field(request, 'email', 254) ?? '';
    const password = field(request, 'password', 200) ?? '';
    return attempt(
      async () => {
        if (!config.signupOpen)
          throw new AppError('signup_closed', 'Sign-up is closed on this platform; ask an administrator.');
        if (!USERNAME.test(username))
          throw new AppError(
            'validation_failed',
            'The username must be 2 to 39 letters, digits, _, . or -, not starting with . or -.',
          );
        if (!EMAIL.test(email))
          throw new AppError('validation_failed', 'Enter an e-mail address such as you@example.com.');
        const user = await createAccount(db, { username, email, password });
        setSessionCookie(request, reply, await startSession(db, user.id));
        return seeOther(reply, '/');
      },
      (error) =>
        sendPage(
          request,
          reply,
          'Sign up',
          signupView(request.console, { username, email, error: error.message }),
          error.status,
        ),
    );
  });

  app.post('/logout', opts, async (request, reply) => {
    const cookie = request.cookies[SESSION_COOKIE];
    if (cookie) await endSession(db, cookie);
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return seeOther(reply, '/');
  });

  app.get('/account', opts, async (request, reply) => {
    const user = signedIn(request);
    const done = (request.query as Record<string, string | undefined>).done;
    const message =
      done === 'password'
        ? 'Your password was changed and your other sessions ended.'
        : done === 'sessions'
          ? 'Your other sessions ended.'
          : undefined;
    return sendPage(
      request,
      reply,
      'Your account',
      accountView(
        request.console,
        await listSessions(db, user.id),
        message ? { kind: 'ok', text: message } : undefined,
      ),
    );
  });

  app.post('/account/password', opts, async (request, reply) => {
    const user = signedIn(request);
    return attempt(
      async () => {
        await changePassword(
          db,
          user,
          field(request, 'current', 200) ?? '',
          field(request, 'password', 200) ?? '',
          request.console.sessionId,
        );
        return seeOther(reply, '/account?done=password');
      },
      async (error) =>
        sendPage(
          request,
          reply,
          'Your account',
          accountView(request.console, await listSessions(db, user.id), { kind: 'error', text: error.message }),
          error.status,
        ),
    );
  });

  app.post('/account/sessions/end', opts, async (request, reply) => {
    const user = signedIn(request);
    await endOtherSessions(db, user.id, request.console.sessionId);
    return seeOther(reply, '/account?done=sessions');
  });

  app.get('/sites/new', opts, async (request, reply) => {
    signedIn(request);
    return sendPage(request, reply, 'New site', newSiteView(request.console, {}));
  });

  app.post('/sites', opts, async (request, reply) => {
    const user = signedIn(request);
    const id = field(request, 'id', 64) ?? '';
    const kind = field(request, 'kind', 20);
    return attempt(
      async () => {
        if (kind !== 'static' && kind !== 'community')
          throw new AppError('validation_failed', 'Choose a static or a community site.');
        const site = await createSite(db, user, { id, kind, plan: config.defaultPlan });
        return seeOther(reply, `/sites/${site.id}`);
      },
      (error) =>
        sendPage(
          request,
          reply,
          'New site',
          newSiteView(request.console, { id, kind, error: error.message }),
          error.status,
        ),
    );
  });

  app.get<{ Params: { id: string } }>('/sites/:id', opts, async (request, reply) => {
    const { site } = await authorizeSite(
      db,
      signedIn(request),
      await findSite(db, request.params.id),
      request.params.id,
      'viewer',
    );
    return sendSitePage(request, reply, site, {
      message: doneMessage(request.query as Record<string, string | undefined>),
    });
  });

  app.post<{ Params: { id: string } }>('/sites/:id/delete', opts, async (request, reply) => {
    const { site } = await authorizeSite(
      db,
      signedIn(request),
      await findSite(db, request.params.id),
      request.params.id,
    );
    if (field(request, 'confirm', 64) !== site.id) {
      return sendSitePage(
        request,
        reply,
        site,
        { deleteError: `Type ${site.id} exactly to delete the site; nothing was deleted.` },
        422,
      );
    }
    await deleteSite(db, site.id);
    return seeOther(reply, `/?deleted=${encodeURIComponent(site.id)}`);
  });
}
