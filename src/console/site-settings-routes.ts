// The console pages of a site's team, build environment variables and custom domains (decision
// 0142), and the page that accepts an invitation. Each action calls the service the API calls,
// under the same roles, and comes back to its page saying what happened.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { presentSite, urlContext } from '../core/sites/presenters.js';
import { authorizeSite } from '../core/sites/policy.js';
import { findSite } from '../core/sites/service.js';
import type { SiteRole, SiteRow } from '../core/sites/tables.js';
import { invitationUrl, sendTeamInvitation } from '../core/sites/team-mail.js';
import {
  acceptInvitation,
  findInvitation,
  inviteMember,
  listInvitations,
  listTeam,
  removeMember,
  revokeInvitation,
  roleAllows,
  SITE_ROLES,
} from '../core/sites/team.js';
import { addDomain, listDomains, removeDomain } from '../deploy/domains.js';
import { deleteEnvVar, listEnvVars, setEnvVar, type EnvVarContext } from '../deploy/env-vars.js';
import { assertDeployable } from '../deploy/policy.js';
import { presentDomain, presentEnvVar } from '../deploy/presenters.js';
import { platformHosts } from '../deploy/site-config-routes.js';
import type { AppError } from '../http/errors.js';
import { field, seeOther } from '../http/forms.js';
import { loadConsole, signedIn } from './context.js';
import { attempt, sendPage } from './page.js';
import { domainsView, envView, invitationView, teamView, type PageMessage } from './site-settings-views.js';

type SiteParams = { Params: { id: string } };
const CONTEXTS: readonly EnvVarContext[] = ['all', 'production', 'preview'];

export async function siteSettingsRoutes(app: FastifyInstance): Promise<void> {
  const db = app.deps.database.db;
  const secretKey = app.deps.config.secretKey;
  const portalOrigin = app.deps.config.publicUrl.origin;
  const opts = { preHandler: loadConsole };

  const siteAs = async (request: FastifyRequest<SiteParams>, needed: SiteRole) =>
    authorizeSite(db, signedIn(request), await findSite(db, request.params.id), request.params.id, needed);
  const staticSiteAs = async (request: FastifyRequest<SiteParams>, needed: SiteRole) => {
    const found = await siteAs(request, needed);
    assertDeployable(found.site);
    return found;
  };
  const done = (query: unknown): PageMessage | undefined => {
    const text = (query as Record<string, string | undefined>).done;
    return text && /^[\w .,'@-]{1,200}$/.test(text) ? { kind: 'ok', text } : undefined;
  };
  const back = (reply: FastifyReply, path: string, text: string) =>
    seeOther(reply, `${path}?done=${encodeURIComponent(text)}`);

  const teamPage = async (
    request: FastifyRequest<SiteParams>,
    reply: FastifyReply,
    found: { site: SiteRow; role: SiteRole },
    message?: PageMessage,
    status = 200,
    acceptUrl?: string,
  ) => {
    const data = {
      team: await listTeam(db, found.site),
      invitations: found.role === 'owner' ? await listInvitations(db, found.site.id) : [],
      role: found.role,
      ...(acceptUrl === undefined ? {} : { acceptUrl }),
    };
    const site = presentSite(found.site, urlContext(request));
    return sendPage(request, reply, `Team of ${site.id}`, teamView(request.console, site, data, message), status);
  };
  const refusedOn = (render: (message: PageMessage, status: number) => Promise<FastifyReply>) => (error: AppError) =>
    render({ kind: 'error', text: error.message }, error.status);

  app.get<SiteParams>('/sites/:id/team', opts, async (request, reply) =>
    teamPage(request, reply, await siteAs(request, 'viewer'), done(request.query)),
  );
  app.post<SiteParams>('/sites/:id/team/invite', opts, async (request, reply) => {
    const found = await siteAs(request, 'owner');
    const email = field(request, 'email', 254) ?? '';
    const role = SITE_ROLES.find((r) => r === field(request, 'role', 16)) ?? 'viewer';
    return attempt(
      async () => {
        const mailed = app.mailOutbox.enabled;
        const invited = await db.transaction(async (tx) => {
          const made = await inviteMember(tx, found.site, signedIn(request), { email, role });
          if (mailed) await sendTeamInvitation(tx, portalOrigin, made.invitation, made.token, signedIn(request));
          return made;
        });
        if (mailed) {
          app.mailOutbox.drainSoon();
          return back(reply, `/sites/${found.site.id}/team`, `Invitation mailed to ${invited.invitation.email}.`);
        }
        const text = `Invitation made for ${invited.invitation.email}.`;
        return teamPage(request, reply, found, { kind: 'ok', text }, 200, invitationUrl(portalOrigin, invited.token));
      },
      refusedOn((message, status) => teamPage(request, reply, found, message, status)),
    );
  });
  app.post<{ Params: { id: string; user: string } }>('/sites/:id/team/:user/remove', opts, async (request, reply) => {
    const found = await siteAs(request, 'owner');
    return attempt(
      async () => {
        await removeMember(db, found.site.id, request.params.user);
        return back(reply, `/sites/${found.site.id}/team`, 'Removed from the team.');
      },
      refusedOn((message, status) => teamPage(request, reply, found, message, status)),
    );
  });
  app.post<{ Params: { id: string; invitation: string } }>(
    '/sites/:id/team/invitations/:invitation/withdraw',
    opts,
    async (request, reply) => {
      const found = await siteAs(request, 'owner');
      await revokeInvitation(db, found.site.id, request.params.invitation);
      return back(reply, `/sites/${found.site.id}/team`, 'The invitation was withdrawn.');
    },
  );

  app.get<{ Params: { token: string } }>('/invitations/:token', opts, async (request, reply) => {
    const found = await findInvitation(db, request.params.token);
    const invitation = found && { siteId: found.site.id, role: found.invitation.role, email: found.invitation.email };
    return sendPage(
      request,
      reply,
      'Invitation',
      invitationView(request.console, invitation, request.params.token),
      found ? 200 : 404,
    );
  });
  app.post<{ Params: { token: string } }>('/invitations/:token', opts, async (request, reply) => {
    const user = signedIn(request);
    const found = await findInvitation(db, request.params.token);
    if (!found)
      return sendPage(
        request,
        reply,
        'Invitation',
        invitationView(request.console, undefined, request.params.token),
        404,
      );
    const invitation = { siteId: found.site.id, role: found.invitation.role, email: found.invitation.email };
    return attempt(
      async () => {
        const role = await acceptInvitation(db, found, user);
        return back(reply, `/sites/${found.site.id}/team`, `You joined ${found.site.id} as ${role}.`);
      },
      (error) =>
        sendPage(
          request,
          reply,
          'Invitation',
          invitationView(request.console, invitation, request.params.token, error.message),
          error.status,
        ),
    );
  });

  const envPage = async (
    request: FastifyRequest<SiteParams>,
    reply: FastifyReply,
    found: { site: SiteRow; role: SiteRole },
    message?: PageMessage,
    status = 200,
  ) => {
    const site = presentSite(found.site, urlContext(request));
    const variables = (await listEnvVars(db, site.id)).map((row) => presentEnvVar(row, secretKey));
    const page = envView(request.console, site, variables, roleAllows(found.role, 'developer'), message);
    return sendPage(request, reply, `Environment variables of ${site.id}`, page, status);
  };
  app.get<SiteParams>('/sites/:id/env', opts, async (request, reply) =>
    envPage(request, reply, await staticSiteAs(request, 'viewer'), done(request.query)),
  );
  app.post<SiteParams>('/sites/:id/env', opts, async (request, reply) => {
    const found = await staticSiteAs(request, 'developer');
    const name = field(request, 'name', 128) ?? '';
    const context = CONTEXTS.find((c) => c === field(request, 'context', 16)) ?? 'all';
    return attempt(
      async () => {
        await setEnvVar(db, secretKey, found.site.id, {
          name,
          context,
          value: field(request, 'value', 16384) ?? '',
          secret: field(request, 'secret', 4) === '1',
        });
        return back(reply, `/sites/${found.site.id}/env`, `Saved ${name} for ${context} builds.`);
      },
      refusedOn((message, status) => envPage(request, reply, found, message, status)),
    );
  });
  app.post<{ Params: { id: string; name: string; context: string } }>(
    '/sites/:id/env/:name/:context/delete',
    opts,
    async (request, reply) => {
      const found = await staticSiteAs(request, 'developer');
      const context = CONTEXTS.find((c) => c === request.params.context) ?? 'all';
      return attempt(
        async () => {
          await deleteEnvVar(db, found.site.id, request.params.name, context);
          return back(reply, `/sites/${found.site.id}/env`, `Deleted ${request.params.name} for ${context} builds.`);
        },
        refusedOn((message, status) => envPage(request, reply, found, message, status)),
      );
    },
  );

  const domainsPage = async (
    request: FastifyRequest<SiteParams>,
    reply: FastifyReply,
    found: { site: SiteRow; role: SiteRole },
    message?: PageMessage,
    status = 200,
  ) => {
    const site = presentSite(found.site, urlContext(request));
    const domains = (await listDomains(db, site.id)).map(presentDomain);
    const checkUrl = `${portalOrigin}/api/domains/check`;
    const page = domainsView(request.console, site, domains, checkUrl, roleAllows(found.role, 'developer'), message);
    return sendPage(request, reply, `Domains of ${site.id}`, page, status);
  };
  app.get<SiteParams>('/sites/:id/domains', opts, async (request, reply) =>
    domainsPage(request, reply, await staticSiteAs(request, 'viewer'), done(request.query)),
  );
  app.post<SiteParams>('/sites/:id/domains', opts, async (request, reply) => {
    const found = await staticSiteAs(request, 'developer');
    return attempt(
      async () => {
        const row = await addDomain(db, found.site.id, field(request, 'domain', 254) ?? '', platformHosts(app));
        return back(reply, `/sites/${found.site.id}/domains`, `${row.domain} now serves ${found.site.id}.`);
      },
      refusedOn((message, status) => domainsPage(request, reply, found, message, status)),
    );
  });
  app.post<{ Params: { id: string; domain: string } }>(
    '/sites/:id/domains/:domain/remove',
    opts,
    async (request, reply) => {
      const found = await staticSiteAs(request, 'developer');
      await removeDomain(db, found.site.id, request.params.domain);
      return back(reply, `/sites/${found.site.id}/domains`, `${request.params.domain} was removed.`);
    },
  );
}
