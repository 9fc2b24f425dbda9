// Workspaces a billing system provisioned for an existing account's address: the account sees them
// at /workspace-offers (linked from its mail and its sites page) and accepts or declines each. Until
// it accepts, the site is not the account's (docs/decisions/0118).
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { urlContext, presentSite } from '../core/sites/presenters.js';
import { seeOther } from '../http/forms.js';
import { OFFERS_PATH } from '../purchase/offer-mail.js';
import { answerOffer, listOffers } from '../purchase/service.js';
import { loadConsole, signedIn } from './context.js';
import { sendPage } from './page.js';
import { offersView } from './views.js';

const OfferParams = Type.Object({ site: Type.String({ minLength: 1, maxLength: 64 }) });

export async function offerRoutes(app: FastifyInstance): Promise<void> {
  const db = app.deps.database.db;
  const opts = { preHandler: loadConsole, schema: { params: OfferParams } };

  app.get<{ Querystring: { declined?: string } }>(OFFERS_PATH, { preHandler: loadConsole }, async (request, reply) => {
    const offers = (await listOffers(db, signedIn(request))).map((site) => presentSite(site, urlContext(request)));
    const declined = typeof request.query.declined === 'string' ? request.query.declined.slice(0, 64) : undefined;
    return sendPage(request, reply, 'Workspaces offered to you', offersView(request.console, offers, declined));
  });

  for (const [action, accept] of [
    ['accept', true],
    ['decline', false],
  ] as const) {
    app.post<{ Params: { site: string } }>(`${OFFERS_PATH}/:site/${action}`, opts, async (request, reply) => {
      const site = await answerOffer(db, request.params.site, signedIn(request), accept);
      return seeOther(reply, accept ? `/sites/${site.id}` : `${OFFERS_PATH}?declined=${site.id}`);
    });
  }
}
