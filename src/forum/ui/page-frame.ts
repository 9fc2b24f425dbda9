// The frame every server-rendered page scope of a community host shares: the community surface,
// security headers, the form parser and HTML error pages.
import helmet from '@fastify/helmet';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../http/errors.js';
import { registerFormParser } from '../../http/forms.js';
import { toAppError } from '../../http/problem.js';
import { GUEST } from '../policy.js';
import type { UiContext } from './context.js';
import { FORM_BODY_LIMIT, sendPage } from './forms.js';
import { errorView } from './read-views.js';

/** What an error page needs when the failure came before the site was loaded. */
function fallbackContext(request: FastifyRequest): UiContext {
  return { site: null as never, settings: null as never, viewer: GUEST, sessionId: undefined, title: request.hostname, registrationOpen: false, csrf: '' };
}

function renderError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const known = toAppError(error) ?? new AppError('internal_error', `Something went wrong; quote request id ${request.id} when reporting it.`);
  if (known.status >= 500) request.log.error({ err: error }, 'unhandled error');
  for (const [name, value] of Object.entries(known.headers)) reply.header(name, value);
  const ui = request.ui ?? fallbackContext(request);
  // A guest who needs to log in to see a page gets there, and back, in one step.
  if (known.status === 401 && request.method === 'GET' && request.ui) return reply.code(303).header('Location', `/login?next=${encodeURIComponent(request.url)}`).send();
  const loginHref = known.status === 401 ? '/login' : undefined;
  return sendPage(reply, ui, known.title, errorView(known.status, known.title, known.message, loginHref), { status: known.status, private: true });
}

/**
 * What every server-rendered page scope of a community host shares: the community surface, security
 * headers (no script at all, unless `scripts` lets the scope's pages load scripts of this origin),
 * the form parser and HTML error pages. The forum UI, the CMS editor (src/cms/ui) and the help desk
 * pages (src/helpdesk/ui) each register it in their own encapsulated scope.
 */
export async function registerPageFrame(app: FastifyInstance, options: { scripts?: boolean } = {}): Promise<void> {
  app.addHook('onRoute', (route) => {
    route.constraints = { ...route.constraints, surface: 'community' };
  });
  app.decorateRequest('ui', null as never);
  const production = app.deps.config.production;
  await app.register(helmet, {
    // Pages carry no script (or only our own files); styles come from our one stylesheet; images in posts may be remote.
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        styleSrc: ["'self'"],
        // Scripts of this origin, and their requests back to it (the forum composer's preview and uploads).
        ...(options.scripts ? { scriptSrc: ["'self'"], connectSrc: ["'self'"] } : {}),
        imgSrc: ["'self'", 'https:', 'data:'],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
        ...(production ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    // HSTS only where HTTPS is promised; a plain-HTTP development host must stay reachable.
    strictTransportSecurity: production ? { maxAge: 15552000, includeSubDomains: false } : false,
    crossOriginEmbedderPolicy: false,
    referrerPolicy: { policy: 'same-origin' },
  });
  registerFormParser(app, FORM_BODY_LIMIT);
  app.setErrorHandler(renderError);
}
