// CSRF tokens of the server-rendered forms (forum UI and console). Forms carry a synchronizer token:
// an HMAC with SECRET_KEY over the session id, or for visitors without a session over a random value
// in a second cookie (signed double submit). `scope` keeps one surface's tokens from another's: a
// site id for its forum, `portal` for the console.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from './errors.js';

const CSRF_COOKIE = 'blume_csrf';

// CSRF --------------------------------------------------------------------------------------------

function sign(secretKey: string, scope: string, binding: string): string {
  return createHmac('sha256', secretKey).update(`csrf:${scope}:${binding}`).digest('base64url');
}

/**
 * The form token for this request. A visitor without a session gets a random `blume_csrf` cookie
 * (set here when missing) and the token is bound to it; a member's token is bound to the session.
 */
export function csrfToken(
  request: FastifyRequest,
  reply: FastifyReply,
  scope: string,
  sessionId: string | undefined,
): string {
  const secretKey = request.server.deps.config.secretKey;
  if (sessionId) return sign(secretKey, scope, `session:${sessionId}`);
  let nonce = request.cookies[CSRF_COOKIE];
  if (!nonce || !/^[A-Za-z0-9_-]{22,64}$/.test(nonce)) {
    nonce = randomBytes(18).toString('base64url');
    reply.setCookie(CSRF_COOKIE, nonce, {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: request.server.deps.config.production || request.protocol === 'https',
      maxAge: 24 * 3600,
    });
    // Later reads in this request see the same value.
    request.cookies[CSRF_COOKIE] = nonce;
  }
  return sign(secretKey, scope, `visitor:${nonce}`);
}

function sameToken(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Refuses a form post that did not come from our own page: a foreign `Origin` (or, without one, a
 * foreign `Referer`) or a token that does not match the session or visitor cookie.
 */
export function verifyCsrf(
  request: FastifyRequest,
  scope: string,
  sessionId: string | undefined,
  presented: string | undefined,
): void {
  const expectedOrigin = `${request.protocol}://${request.host}`;
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== expectedOrigin)
    throw new AppError('csrf_failed', 'The form was sent from another site.');
  const referer = request.headers.referer;
  if (
    origin === undefined &&
    referer !== undefined &&
    !(referer === expectedOrigin || referer.startsWith(`${expectedOrigin}/`))
  ) {
    throw new AppError('csrf_failed', 'The form was sent from another site.');
  }
  const secretKey = request.server.deps.config.secretKey;
  const nonce = request.cookies[CSRF_COOKIE];
  const candidates = sessionId
    ? [sign(secretKey, scope, `session:${sessionId}`)]
    : nonce
      ? [sign(secretKey, scope, `visitor:${nonce}`)]
      : [];
  if (!presented || !candidates.some((expected) => sameToken(expected, presented))) {
    throw new AppError(
      'csrf_failed',
      'The form has expired or was not sent from this site; reload the page and try again.',
    );
  }
}
