// CORS of the site APIs (forum, content, help desk): a site's applied API_CORS_ORIGINS decide, per request.
import cors from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { InstanceSettings } from './allowlist.js';

/** The CORS answer for a request: its origin when the site's applied settings allow it. */
function allowedOrigin(settings: InstanceSettings, origin: string | undefined): string | false {
  if (!origin || settings.corsOrigins.length === 0) return false;
  if (settings.corsOrigins[0] === '*') return '*';
  return settings.corsOrigins.includes(origin.toLowerCase()) ? origin : false;
}

/** The CORS answer of the site APIs, but for the origin. */
const CORS_ANSWER = {
  methods: ['GET', 'HEAD', 'POST', 'PATCH', 'PUT', 'DELETE'],
  allowedHeaders: ['Authentication-Token', 'Authorization', 'Content-Type', 'If-Match', 'If-None-Match'],
  exposedHeaders: ['X-Pagination', 'Link', 'Retry-After', 'WWW-Authenticate', 'ETag'],
  credentials: false,
  maxAge: 600,
};
const NO_CORS = { ...CORS_ANSWER, origin: false as const };
const ANY_ORIGIN = { ...CORS_ANSWER, origin: '*' };
const corsAnswer = (origin: string | false) =>
  origin === false ? NO_CORS : origin === '*' ? ANY_ORIGIN : { ...CORS_ANSWER, origin };

/**
 * CORS for a site API, decided per request from the applied settings of the site the host names.
 * A callback, not an async function: it runs on every API request, and one without an `Origin`
 * header (a server's) needs no settings. The plugin answers `Vary: Origin` either way.
 */
export async function registerSiteApiCors(app: FastifyInstance): Promise<void> {
  await app.register(cors, {
    hideOptionsRoute: true,
    delegator: (
      request: FastifyRequest,
      callback: (error: Error | null, options?: typeof NO_CORS | typeof ANY_ORIGIN) => void,
    ) => {
      const target = request.target ?? request.raw.blumeTarget;
      const origin = request.headers.origin;
      if (!origin || !target || target.kind !== 'site') return callback(null, NO_CORS);
      app.instanceSettings.applied(target.site).then(
        (settings) => callback(null, corsAnswer(allowedOrigin(settings, origin))),
        (error: Error) => callback(error),
      );
    },
  });
}
