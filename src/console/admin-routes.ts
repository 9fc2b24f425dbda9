// The console's pages for platform administrators at /admin: accounts, every site (plan changes,
// suspend and resume), purchase keys and the audit log. Handlers call the services behind the purchase
// API and the portal's admin API; every form an administrator posts here is recorded in the audit log
// beside the purchase API's calls (decision 0087).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { presentUser } from '../core/accounts/presenters.js';
import { listAccounts } from '../core/accounts/service.js';
import type { UserRow } from '../core/accounts/tables.js';
import { presentToken, presentTokenCreated } from '../core/credentials/presenters.js';
import { listCredentials, mintCredential } from '../core/credentials/service.js';
import { urlContext } from '../core/sites/presenters.js';
import { countSitesByOwner, listAllSites } from '../core/sites/service.js';
import { pageNumber, totalPages } from '../forum/ui/forms.js';
import { AppError } from '../http/errors.js';
import { field, seeOther } from '../http/forms.js';
import { toPage, type Page } from '../http/pagination.js';
import { presentWorkspace } from '../purchase/presenters.js';
import { changePlan, listAudit, listPlans, recordCall, setSuspended, type Workspace } from '../purchase/service.js';
import {
  accountsView,
  adminHomeView,
  adminSitesView,
  auditView,
  purchaseKeysView,
  revokeKeyView,
  type Flash,
  type KeyForm,
  type Paging,
} from './admin-views.js';
import { loadConsole, signedIn } from './context.js';
import { attempt, sendPage } from './page.js';

const PAGE_SIZE = 25;

/** The signed-in platform administrator: 401 (log in first) signed out, 403 for anyone else. */
function platformAdmin(request: FastifyRequest): UserRow {
  const user = signedIn(request);
  if (!user.isAdmin)
    throw new AppError('forbidden', 'The admin pages are for platform administrators, and your account is not one.');
  return user;
}

/** The page of a list the query (`?page=`) or a form (`page` field) asks for. */
function pageOf(raw: unknown): Page {
  return toPage({ page: pageNumber(raw), page_size: PAGE_SIZE });
}

function paging(page: Page, total: number, path: string): Paging {
  return {
    page: page.page,
    totalPages: totalPages(total, page.pageSize),
    href: (n) => (n === 1 ? path : `${path}?page=${n}`),
  };
}

type Query = Record<string, string | undefined>;

/** The message after a site change, by the `done` the redirect names. */
const SITE_DONE = new Map<string, (site: string, plan: string) => string>([
  ['plan', (site, plan) => `Site ${site} is now on the ${plan} plan, from its next request on.`],
  ['suspended', (site) => `Site ${site} is suspended: its hosts and APIs answer 503 until you resume it.`],
  ['resumed', (site) => `Site ${site} is active again.`],
]);

export async function consoleAdminRoutes(app: FastifyInstance): Promise<void> {
  const db = app.deps.database.db;
  const opts = { preHandler: loadConsole };

  // What an administrator posts here goes in the audit log with their account, refusals included.
  app.addHook('onResponse', async (request, reply) => {
    const user = request.console?.user;
    if (request.method !== 'POST' || !user?.isAdmin) return;
    await recordCall(db, {
      credentialId: null,
      accountId: user.id,
      method: request.method,
      path: request.url.split('?')[0]!.slice(0, 500),
      target: (request.params as { id?: string }).id?.slice(0, 64) ?? null,
      status: reply.statusCode,
    });
  });

  app.get('/admin', opts, async (request, reply) => {
    platformAdmin(request);
    return sendPage(request, reply, 'Platform administration', adminHomeView());
  });

  app.get('/admin/accounts', opts, async (request, reply) => {
    platformAdmin(request);
    const page = pageOf((request.query as Query).page);
    const { rows, total } = await listAccounts(db, page);
    const sites = await countSitesByOwner(
      db,
      rows.map((row) => row.id),
    );
    const accounts = rows.map((row) => ({ ...presentUser(row), sites: sites.get(row.id) ?? 0 }));
    return sendPage(request, reply, 'Accounts', accountsView(accounts, paging(page, total, '/admin/accounts')));
  });

  const sitesPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    page: Page,
    flash: Flash,
    status = 200,
  ): Promise<FastifyReply> => {
    const { rows, total } = await listAllSites(db, page);
    const sites = rows.map((row) => presentWorkspace(row, urlContext(request)));
    return sendPage(
      request,
      reply,
      'All sites',
      adminSitesView(request.console, sites, await listPlans(db), paging(page, total, '/admin/sites'), flash),
      status,
    );
  };

  app.get('/admin/sites', opts, async (request, reply) => {
    platformAdmin(request);
    const query = request.query as Query;
    const done = query.done !== undefined ? SITE_DONE.get(query.done) : undefined;
    const flash = done && query.site ? { kind: 'ok' as const, text: done(query.site, query.plan ?? '') } : undefined;
    return sitesPage(request, reply, pageOf(query.page), flash);
  });

  /** Runs a change of the site, tells every node, and comes back to the same page of the list. */
  const changeSite = (
    request: FastifyRequest<{ Params: { id: string } }>,
    reply: FastifyReply,
    change: () => Promise<Workspace>,
    done: string,
  ) => {
    platformAdmin(request);
    const page = pageOf(field(request, 'page', 7));
    return attempt(
      async () => {
        const { site } = await change();
        const query = new URLSearchParams({
          ...(page.page > 1 ? { page: String(page.page) } : {}),
          done,
          site: site.id,
          plan: site.plan,
        });
        return seeOther(reply, `/admin/sites?${query.toString()}`);
      },
      (error) =>
        sitesPage(
          request,
          reply,
          page,
          { kind: 'error', text: `Site ${request.params.id} was not changed: ${error.message}` },
          error.status,
        ),
    );
  };

  app.post<{ Params: { id: string } }>('/admin/sites/:id/plan', opts, async (request, reply) =>
    changeSite(
      request,
      reply,
      () => changePlan(db, request.params.id, 'platform_admin', field(request, 'plan', 20) ?? ''),
      'plan',
    ),
  );
  app.post<{ Params: { id: string } }>('/admin/sites/:id/suspend', opts, async (request, reply) =>
    changeSite(request, reply, () => setSuspended(db, request.params.id, 'platform_admin', true), 'suspended'),
  );
  app.post<{ Params: { id: string } }>('/admin/sites/:id/resume', opts, async (request, reply) =>
    changeSite(request, reply, () => setSuspended(db, request.params.id, 'platform_admin', false), 'resumed'),
  );

  const keysPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    form: KeyForm,
    flash: Flash,
    status = 200,
  ): Promise<FastifyReply> => {
    const keys = (await listCredentials(db, { kind: 'purchase_key' })).map(presentToken);
    return sendPage(request, reply, 'Purchase keys', purchaseKeysView(request.console, keys, form, flash), status);
  };

  app.get('/admin/purchase-keys', opts, async (request, reply) => {
    platformAdmin(request);
    const revoked = (request.query as Query).revoked;
    return keysPage(
      request,
      reply,
      {},
      revoked ? { kind: 'ok', text: `The purchase key ${revoked} was revoked.` } : undefined,
    );
  });

  // The new key is answered on this page, not after a redirect: it is shown this once and never stored.
  app.post('/admin/purchase-keys', opts, async (request, reply) => {
    const user = platformAdmin(request);
    const name = field(request, 'name', 100);
    return attempt(
      async () => {
        if (name === undefined) throw new AppError('validation_failed', 'The name can be at most 100 characters.');
        if (!/\S/.test(name))
          throw new AppError('validation_failed', 'Give the key a name, such as the name of your billing system.');
        const minted = await mintCredential(db, { kind: 'purchase_key', subjectId: user.id, name });
        return keysPage(request, reply, { minted: presentTokenCreated(minted) }, undefined, 201);
      },
      (error) => keysPage(request, reply, { name: name ?? '' }, { kind: 'error', text: error.message }, error.status),
    );
  });

  const liveKey = async (id: string) => {
    const key = (await listCredentials(db, { kind: 'purchase_key' })).find((row) => row.id === id);
    if (!key)
      throw new AppError('credential_not_found', 'There is no such purchase key; it may have been revoked already.');
    return presentToken(key);
  };

  app.get<{ Params: { key_id: string } }>('/admin/purchase-keys/:key_id/revoke', opts, async (request, reply) => {
    platformAdmin(request);
    const key = await liveKey(request.params.key_id);
    return sendPage(request, reply, `Revoke ${key.name}`, revokeKeyView(request.console, key));
  });

  app.post<{ Params: { key_id: string } }>('/admin/purchase-keys/:key_id/revoke', opts, async (request, reply) => {
    platformAdmin(request);
    const key = await liveKey(request.params.key_id);
    if (!(await app.services.credentials.revoke(key.id, { kind: 'purchase_key' })))
      throw new AppError('credential_not_found', 'The purchase key was revoked already.');
    return seeOther(reply, `/admin/purchase-keys?revoked=${encodeURIComponent(key.name)}`);
  });

  app.get('/admin/audit-log', opts, async (request, reply) => {
    platformAdmin(request);
    const page = pageOf((request.query as Query).page);
    const { rows, total } = await listAudit(db, page);
    return sendPage(request, reply, 'Audit log', auditView(rows, paging(page, total, '/admin/audit-log')));
  });
}
