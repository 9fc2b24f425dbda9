import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { presentUser } from '../core/accounts/presenters.js';
import { LoginBody, SignupBody, UserOut } from '../core/accounts/schemas.js';
import { authenticate, createAccount, endSession, SESSION_TTL_MS, startSession } from '../core/accounts/service.js';
import { requireSession, SESSION_COOKIE } from '../core/auth.js';
import { AppError } from '../http/errors.js';
import { problems } from '../http/openapi.js';

function setSessionCookie(request: FastifyRequest, reply: FastifyReply, value: string): void {
  reply.setCookie(SESSION_COOKIE, value, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: request.server.deps.config.production || request.protocol === 'https',
    maxAge: SESSION_TTL_MS / 1000,
  });
}

export async function authRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { config } = app.deps;
  const db = app.deps.database.db;
  const throttle = app.services.loginThrottle;
  const loginLimit = { max: config.rateLimit.loginPerMinute, timeWindow: 60_000 };

  app.post(
    '/auth/signup',
    {
      schema: {
        tags: ['auth'],
        summary: 'Create an account and log in',
        body: SignupBody,
        response: { 201: UserOut, ...problems(409, 422) },
      },
      config: { rateLimit: loginLimit },
    },
    async (request, reply) => {
      if (!config.signupOpen)
        throw new AppError('signup_closed', 'Sign-up is closed on this platform; ask an administrator.');
      const user = await createAccount(db, request.body);
      setSessionCookie(request, reply, await startSession(db, user.id));
      return reply.code(201).send(presentUser(user));
    },
  );

  app.post(
    '/auth/login',
    {
      schema: {
        tags: ['auth'],
        summary: 'Log in with username or e-mail',
        body: LoginBody,
        response: { 200: UserOut, ...problems(401) },
      },
      config: { rateLimit: loginLimit },
    },
    async (request, reply) => {
      const { login, password } = request.body;
      await throttle.check(request, 'portal', login);
      const user = await authenticate(db, login, password);
      // One answer for unknown user and wrong password: no account enumeration.
      if (!user) {
        await throttle.failed(request, 'portal', login);
        throw new AppError('invalid_credentials', 'The login or password is wrong.');
      }
      setSessionCookie(request, reply, await startSession(db, user.id));
      await throttle.succeeded(request, reply, 'portal', login);
      return presentUser(user);
    },
  );

  app.post(
    '/auth/logout',
    {
      schema: { tags: ['auth'], summary: 'End the session', response: { 204: Type.Null() } },
      preHandler: requireSession,
    },
    async (request, reply) => {
      const cookie = request.cookies[SESSION_COOKIE];
      if (cookie) await endSession(db, cookie);
      reply.clearCookie(SESSION_COOKIE, { path: '/' });
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/me',
    {
      schema: { tags: ['auth'], summary: 'The logged-in account', response: { 200: UserOut } },
      preHandler: requireSession,
    },
    async (request) => presentUser(request.user!),
  );
}
