// The frame every server-rendered page scope of a community host shares.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { registerHtmlFrame } from '../../http/html-frame.js';
import { GUEST } from '../policy.js';
import type { UiContext } from './context.js';
import { FORM_BODY_LIMIT, sendPage } from './forms.js';
import { errorView } from './read-views.js';

/** What an error page needs when the failure came before the site was loaded. */
function fallbackContext(request: FastifyRequest): UiContext {
  return {
    site: null as never,
    settings: null as never,
    viewer: GUEST,
    sessionId: undefined,
    title: request.hostname,
    registrationOpen: false,
    csrf: '',
  };
}

/**
 * What every server-rendered page scope of a community host shares (src/http/html-frame.ts): no
 * script at all unless `scripts` lets the scope's pages load scripts of this origin; images in posts
 * may be remote. The forum UI, the CMS editor (src/cms/ui) and the help desk pages (src/helpdesk/ui)
 * each register it in their own encapsulated scope.
 */
export async function registerPageFrame(app: FastifyInstance, options: { scripts?: boolean } = {}): Promise<void> {
  app.decorateRequest('ui', null as never);
  await registerHtmlFrame(app, {
    surface: 'community',
    scripts: options.scripts ?? false,
    remoteImages: true,
    formBodyLimit: FORM_BODY_LIMIT,
    // A guest who needs to log in to see a page gets there, and back, in one step.
    loginRedirect: (request) => Boolean(request.ui),
    errorPage: (appError, request, reply) => {
      const loginHref = appError.status === 401 ? '/login' : undefined;
      return sendPage(
        reply,
        request.ui ?? fallbackContext(request),
        appError.title,
        errorView(appError.status, appError.title, appError.message, loginHref),
        { status: appError.status, private: true },
      );
    },
  });
}
