// Authentication strategies, one per credential type. Routes name theirs in `preHandler`; each
// strategy sets what it proved on the request or throws a 401 problem.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { userForSession } from './accounts/service.js';
import type { UserRow } from './accounts/tables.js';
import type { CredentialKind } from './credentials/service.js';
import type { CredentialRow } from './credentials/tables.js';
import { AppError } from '../http/errors.js';
import { declareSecurity } from '../http/openapi.js';

export const SESSION_COOKIE = 'blume_session';

declare module 'fastify' {
  interface FastifyRequest {
    user?: UserRow;
    credential?: CredentialRow;
  }
}

export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const [scheme, value] = header.split(' ', 2);
  return scheme?.toLowerCase() === 'bearer' && value ? value.trim() : undefined;
}

/** The session's account, if the request carries a valid session cookie. */
export async function sessionUser(request: FastifyRequest): Promise<UserRow | undefined> {
  if (request.user) return request.user;
  const cookie = request.cookies[SESSION_COOKIE];
  if (!cookie) return undefined;
  const user = await userForSession(request.server.deps.database.db, cookie);
  if (user) request.user = user;
  return user;
}

/**
 * State-changing requests authenticated by cookie must come from our own pages: browsers send
 * `Origin` on cross-site requests, and SameSite=Lax already withholds the cookie from most of them.
 */
export function checkSameOrigin(request: FastifyRequest): void {
  if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS') return;
  const origin = request.headers.origin;
  if (!origin) return;
  const expected = `${request.protocol}://${request.host}`;
  if (origin !== expected && origin !== request.server.deps.config.publicUrl.origin) {
    throw new AppError('csrf_failed', 'The request came from another origin.');
  }
}

export async function requireSession(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const user = await sessionUser(request);
  if (!user) {
    reply.header('WWW-Authenticate', 'Cookie realm="blume"');
    throw new AppError('authentication_required', 'Log in first: POST /api/auth/login.');
  }
  checkSameOrigin(request);
}

export async function requirePlatformAdmin(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  await requireSession(request, reply);
  if (!request.user?.isAdmin) throw new AppError('forbidden', 'Only platform administrators may do this.');
}

/** Verifies a bearer credential of one kind and puts its row on the request. */
export async function requireBearer(request: FastifyRequest, kind: CredentialKind): Promise<CredentialRow> {
  const token = bearerToken(request);
  if (!token) throw new AppError('authentication_required', 'Send the credential as `Authorization: Bearer <token>`.');
  const row = await request.server.services.credentials.verify(token, kind);
  if (!row) throw new AppError('invalid_token', 'The credential is invalid or has been revoked.');
  request.credential = row;
  return row;
}

declareSecurity(requireSession, [{ session: [] }]);
declareSecurity(requirePlatformAdmin, [{ session: [] }]);
