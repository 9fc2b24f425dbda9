// The frame every server-rendered page scope shares (the console on the portal; the forum, CMS
// editor and help desk pages on a community host): its surface, security headers, the form parser
// and HTML error pages. Each scope registers it inside its own encapsulated plugin, so the JSON APIs
// keep their own headers and problem+json errors.
import helmet from '@fastify/helmet';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from './errors.js';
import { registerFormParser } from './forms.js';
import { toAppError } from './problem.js';

interface HtmlFrame {
  surface: 'portal' | 'community';
  /** Pages may load scripts of this origin, and those scripts call back to it. Without it, no script at all. */
  scripts: boolean;
  /** Images from any https: origin too (posts may show remote images). */
  remoteImages: boolean;
  formBodyLimit: number;
  /** Whether a failed GET answered 401 sends the browser to log in and back (the default). */
  loginRedirect?: (request: FastifyRequest) => boolean;
  /** Renders the page for an error; its status, headers and log line are taken care of. */
  errorPage: (known: AppError, request: FastifyRequest, reply: FastifyReply) => FastifyReply;
}

export async function registerHtmlFrame(app: FastifyInstance, frame: HtmlFrame): Promise<void> {
  app.addHook('onRoute', (route) => {
    route.constraints = { ...route.constraints, surface: frame.surface };
  });
  const production = app.deps.config.production;
  await app.register(helmet, {
    // Styles come from our one stylesheet, forms post back here, nothing frames the pages.
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        styleSrc: ["'self'"],
        ...(frame.scripts ? { scriptSrc: ["'self'"], connectSrc: ["'self'"] } : {}),
        imgSrc: frame.remoteImages ? ["'self'", 'https:', 'data:'] : ["'self'", 'data:'],
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
  registerFormParser(app, frame.formBodyLimit);
  app.setErrorHandler((error: FastifyError | Error, request, reply) => {
    const appError =
      toAppError(error) ??
      new AppError('internal_error', `Something went wrong; quote request id ${request.id} when reporting it.`);
    if (appError.status >= 500) request.log.error({ err: error }, 'unhandled error');
    for (const [name, value] of Object.entries(appError.headers)) reply.header(name, value);
    if (appError.status === 401 && request.method === 'GET' && (frame.loginRedirect?.(request) ?? true)) {
      return reply
        .code(303)
        .header('Location', `/login?next=${encodeURIComponent(request.url)}`)
        .send();
    }
    return frame.errorPage(appError, request, reply);
  });
}
