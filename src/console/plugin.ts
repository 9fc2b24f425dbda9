// The console: the portal's web UI at `{portal_url}/`, server-rendered pages that work without
// JavaScript (one script adds drag-and-drop, upload progress and copy buttons). An encapsulated plugin, so its security headers, form parser and HTML error pages stay
// with its routes and the JSON API under /api keeps its own.
import helmet from '@fastify/helmet';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../http/errors.js';
import { registerFormParser } from '../http/forms.js';
import { toAppError } from '../http/problem.js';
import { consoleAdminRoutes } from './admin-routes.js';
import { communitySiteRoutes } from './community-routes.js';
import { sendPage } from './page.js';
import { passwordRoutes } from './password-routes.js';
import { consoleRoutes } from './routes.js';
import { CONSOLE_JS } from './script.js.js';
import { staticSiteRoutes } from './static-routes.js';
import { CONSOLE_CSS } from './style.css.js';
import { errorView } from './views.js';

/** Room for the longest console form (a few short fields). */
const FORM_BODY_LIMIT = 64 * 1024;

function renderError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const known = toAppError(error) ?? new AppError('internal_error', `Something went wrong; quote request id ${request.id} when reporting it.`);
  if (known.status >= 500) request.log.error({ err: error }, 'unhandled error');
  for (const [name, value] of Object.entries(known.headers)) reply.header(name, value);
  // Signed out on a page that needs an account: log in, then come back.
  if (known.status === 401 && request.method === 'GET') return reply.code(303).header('Location', `/login?next=${encodeURIComponent(request.url)}`).send();
  request.console ??= { user: undefined, sessionId: undefined, csrf: '' };
  return sendPage(request, reply, known.title, errorView(known.title, known.message, known.status === 401 ? '/login' : undefined), known.status);
}

export async function consolePlugin(app: FastifyInstance): Promise<void> {
  app.addHook('onRoute', (route) => {
    route.constraints = { ...route.constraints, surface: 'portal' };
  });
  app.decorateRequest('console', null as never);
  const production = app.deps.config.production;
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        styleSrc: ["'self'"],
        scriptSrc: ["'self'"],
        connectSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
        ...(production ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    strictTransportSecurity: production ? { maxAge: 15552000, includeSubDomains: false } : false,
    crossOriginEmbedderPolicy: false,
    referrerPolicy: { policy: 'same-origin' },
  });
  registerFormParser(app, FORM_BODY_LIMIT);
  app.setErrorHandler(renderError);
  app.get('/assets/console.css', async (_request, reply) => reply.header('Cache-Control', 'public, max-age=3600').type('text/css; charset=utf-8').send(CONSOLE_CSS));
  app.get('/assets/console.js', async (_request, reply) => reply.header('Cache-Control', 'public, max-age=3600').type('text/javascript; charset=utf-8').send(CONSOLE_JS));
  await app.register(consoleRoutes);
  await app.register(passwordRoutes);
  await app.register(staticSiteRoutes);
  await app.register(communitySiteRoutes);
  await app.register(consoleAdminRoutes);
}
