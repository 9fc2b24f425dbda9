// The console: the portal's web UI at `{portal_url}/`, server-rendered pages that work without
// JavaScript (one script adds drag-and-drop, upload progress and copy buttons). An encapsulated
// plugin, so its page frame (src/http/html-frame.ts) stays with its routes and the JSON API under
// /api keeps its own.
import type { FastifyInstance } from 'fastify';
import { registerHtmlFrame } from '../http/html-frame.js';
import { consoleAdminRoutes } from './admin-routes.js';
import { communitySiteRoutes } from './community-routes.js';
import { sendPage } from './page.js';
import { offerRoutes } from './offer-routes.js';
import { passwordRoutes } from './password-routes.js';
import { consoleRoutes } from './routes.js';
import { CONSOLE_JS } from './script.js.js';
import { siteSettingsRoutes } from './site-settings-routes.js';
import { staticSiteRoutes } from './static-routes.js';
import { CONSOLE_CSS } from './style.css.js';
import { errorView } from './views.js';

/** Room for the longest console form (a few short fields). */
const FORM_BODY_LIMIT = 64 * 1024;

export async function consolePlugin(app: FastifyInstance): Promise<void> {
  app.decorateRequest('console', null as never);
  await registerHtmlFrame(app, {
    surface: 'portal',
    scripts: true,
    remoteImages: false,
    formBodyLimit: FORM_BODY_LIMIT,
    errorPage: (appError, request, reply) => {
      request.console ??= { user: undefined, sessionId: undefined, csrf: '' };
      return sendPage(
        request,
        reply,
        appError.title,
        errorView(appError.title, appError.message, appError.status === 401 ? '/login' : undefined),
        appError.status,
      );
    },
  });
  app.get('/assets/console.css', async (_request, reply) =>
    reply.header('Cache-Control', 'public, max-age=3600').type('text/css; charset=utf-8').send(CONSOLE_CSS),
  );
  app.get('/assets/console.js', async (_request, reply) =>
    reply.header('Cache-Control', 'public, max-age=3600').type('text/javascript; charset=utf-8').send(CONSOLE_JS),
  );
  await app.register(consoleRoutes);
  await app.register(passwordRoutes);
  await app.register(offerRoutes);
  await app.register(staticSiteRoutes);
  await app.register(communitySiteRoutes);
  await app.register(siteSettingsRoutes);
  await app.register(consoleAdminRoutes);
}
