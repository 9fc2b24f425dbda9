// Who is using the console: the account the `blume_session` cookie proves (or nobody) and the CSRF
// token its forms carry, scoped to the portal.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sessionIdOf } from '../core/accounts/service.js';
import type { UserRow } from '../core/accounts/tables.js';
import { SESSION_COOKIE, sessionUser } from '../core/auth.js';
import { csrfToken, verifyCsrf } from '../http/csrf.js';
import { AppError } from '../http/errors.js';

export const CSRF_SCOPE = 'portal';

export interface ConsoleContext {
  user: UserRow | undefined;
  sessionId: string | undefined;
  csrf: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    console: ConsoleContext;
  }
}

/** Loads the viewer; the preHandler of a multipart form, whose handler checks the CSRF field itself. */
export async function loadViewer(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const user = await sessionUser(request);
  const cookie = request.cookies[SESSION_COOKIE];
  const sessionId = user && cookie ? sessionIdOf(cookie) : undefined;
  request.console = { user, sessionId, csrf: csrfToken(request, reply, CSRF_SCOPE, sessionId) };
}

/** preHandler of every console route: loads the viewer and, on posts, checks the form's CSRF token. */
export async function loadConsole(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  await loadViewer(request, reply);
  const sessionId = request.console.sessionId;
  if (request.method === 'POST') {
    const form = (request.body ?? {}) as Record<string, string>;
    verifyCsrf(request, CSRF_SCOPE, sessionId, form._csrf);
  }
}

/** The signed-in account; 401 (the error page sends the browser to log in) when there is none. */
export function signedIn(request: FastifyRequest): UserRow {
  const user = request.console.user;
  if (!user) throw new AppError('authentication_required', 'Log in to use the console.');
  return user;
}

/** The signed-in account in words, as releases and build logs name who acted. */
export function consoleActor(request: FastifyRequest): string {
  return `console user "${signedIn(request).username}"`;
}
