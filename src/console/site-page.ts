// A site's page: the heading and delete form every site has, and what its kind adds (a static site's
// releases, uploads, builds, repository and tokens; a community site's links, settings and API keys).
// Every action on the page comes back here.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { listCredentials } from '../core/credentials/service.js';
import { presentSite, urlContext } from '../core/sites/presenters.js';
import type { SiteRow } from '../core/sites/tables.js';
import { roleAllows, siteRole } from '../core/sites/team.js';
import { listBuilds } from '../deploy/builds/queue.js';
import { webhookUrl } from '../deploy/git/routes.js';
import { findConnection } from '../deploy/git/service.js';
import { presentUrls, previewUrl } from '../deploy/presenters.js';
import { listReleases, rollbackTarget } from '../deploy/service.js';
import { diffSettings, loadSettings } from '../core/settings/service.js';
import { communitySections, type CommunitySiteData } from './community-views.js';
import { signedIn } from './context.js';
import { sendPage } from './page.js';
import { staticSections, type StaticSiteData } from './static-views.js';
import { siteView, type SitePageParts } from './views.js';

/** Releases and builds the page lists; older ones stay reachable through the deploy API. */
const RELEASES_SHOWN = 30;
const BUILDS_SHOWN = 10;

/** What a redirect after an action says on the page it lands on (`?done=...&release=...`). */
const DONE: Record<string, (query: Record<string, string | undefined>) => string> = {
  promote: (q) => `Release ${q.release} is live.`,
  rollback: (q) => `Rolled back: release ${q.release} is live again.`,
  stage: (q) => `Release ${q.release} is staged.`,
  unstage: () => 'Nothing is staged now.',
  uploaded: (q) => `Release ${q.release} was uploaded. Preview it, then promote it when it is right.`,
  revoked: () => 'The deploy token was revoked; it no longer works.',
  disconnected: () => 'The repository was disconnected; pushes no longer build.',
  settings: () => 'The settings were saved. Restart to apply them.',
  restarted: (q) => `Restarted: ${q.count === '1' ? '1 change' : `${q.count} changes`} applied on every node.`,
  'key-revoked': () => 'The API key was revoked; it no longer works.',
  'preview-password': () =>
    'The preview password changed: the old one and every shared preview link no longer open previews.',
};

export function doneMessage(query: Record<string, string | undefined>): SitePageParts['message'] {
  const say = query.done ? DONE[query.done] : undefined;
  if (
    !say ||
    (query.release !== undefined && !/^[A-Za-z0-9]{1,40}$/.test(query.release)) ||
    (query.count !== undefined && !/^\d{1,3}$/.test(query.count))
  )
    return undefined;
  return { kind: 'ok', text: say(query) };
}

type SitePageOptions = Omit<SitePageParts, 'sections' | 'summary'>;

async function staticData(request: FastifyRequest, site: SiteRow, canDeploy: boolean): Promise<StaticSiteData> {
  const db = request.server.deps.database.db;
  const urls = urlContext(request);
  const { releases, aliases } = await listReleases(db, site.id);
  const { rows: builds } = await listBuilds(db, site.id, { offset: 0, pageSize: BUILDS_SHOWN });
  const connection = await findConnection(db, site.id);
  return {
    releases: releases.slice(0, RELEASES_SHOWN),
    aliases,
    rollbackTo: await rollbackTarget(db, aliases),
    builds,
    connection: connection && { ...connection, webhookUrl: webhookUrl(request.server.deps.config.publicUrl, site.id) },
    tokens: await listCredentials(db, { kind: 'deploy_token', siteId: site.id }),
    previewUrl: (releaseId) => previewUrl(urls, site.id, releaseId),
    stageUrl: presentUrls(urls, site.id).stage,
    showPassword: (request.query as Record<string, unknown>).password === 'show',
    canDeploy,
  };
}

async function communityData(request: FastifyRequest, site: SiteRow): Promise<CommunitySiteData> {
  const db = request.server.deps.database.db;
  const settings = await loadSettings(db, site.id);
  return {
    desired: settings.desired,
    pending: diffSettings(settings.applied, settings.desired),
    apiKeys: await listCredentials(db, { kind: 'api_key', siteId: site.id }),
  };
}

export async function sendSitePage(
  request: FastifyRequest,
  reply: FastifyReply,
  site: SiteRow,
  options: SitePageOptions = {},
  status = 200,
): Promise<FastifyReply> {
  const presented = presentSite(site, urlContext(request));
  const role = (await siteRole(request.server.deps.database.db, signedIn(request), site)) ?? 'viewer';
  const parts =
    site.kind === 'static'
      ? staticSections(request.console, presented, await staticData(request, site, roleAllows(role, 'developer')))
      : communitySections(
          request.console,
          presented,
          role === 'owner' ? await communityData(request, site) : undefined,
        );
  return sendPage(
    request,
    reply,
    site.id,
    siteView(request.console, presented, { ...options, ...parts, owner: role === 'owner' }),
    status,
  );
}
