// A static site's actions in the console: upload a folder or archive (or Markdown to build), promote,
// stage, unstage and roll back after a confirmation that names the release, follow and cancel builds,
// connect a repository and mint or revoke deploy tokens. Each calls the service the deploy API calls,
// under the same rules (assertDeployable), and comes back to the site's page saying what happened.
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { mintCredential } from '../core/credentials/service.js';
import { presentSite, urlContext } from '../core/sites/presenters.js';
import { authorizeSite } from '../core/sites/policy.js';
import { findSite } from '../core/sites/service.js';
import type { SiteRow } from '../core/sites/tables.js';
import { findBuild, readBuildLogs } from '../deploy/builds/queue.js';
import { cancelBuild, queueSourceUpload } from '../deploy/builds/service.js';
import { packDirectory } from '../deploy/cli.js';
import { webhookUrl } from '../deploy/git/routes.js';
import { connectRepository, disconnectRepository } from '../deploy/git/service.js';
import { ingestArchive, ingestFolder, uploadOrigin } from '../deploy/ingest.js';
import { assertDeployable } from '../deploy/policy.js';
import { PREVIEW_LINK_CHOICES } from '../deploy/preview-links.js';
import { previewUrl } from '../deploy/presenters.js';
import {
  clearStage,
  ensureAliases,
  findRelease,
  makePreviewLink,
  promoteRelease,
  replacePreviewPassword,
  rollbackRelease,
  rollbackTarget,
  setStage,
  type AliasChange,
} from '../deploy/service.js';
import { tempName } from '../deploy/temp-dirs.js';
import { verifyCsrf } from '../http/csrf.js';
import { AppError } from '../http/errors.js';
import { field, seeOther } from '../http/forms.js';
import { html } from '../lib/html.js';
import { consoleActor, CSRF_SCOPE, loadConsole, loadViewer, signedIn } from './context.js';
import { attempt, sendPage } from './page.js';
import { sendSitePage } from './site-page.js';
import {
  buildView,
  confirmView,
  shownOnce,
  shownPreviewLink,
  type AliasAction,
  type BuiltRelease,
} from './static-views.js';
import { receiveUpload } from './upload.js';

type SiteParams = { Params: { id: string } };
type ReleaseParams = { Params: { id: string; release: string; action: string } };
type BuildParams = { Params: { id: string; build: string } };

/** How often an unfinished build's page reloads to follow its log. */
const BUILD_REFRESH_SECONDS = 2;

export async function staticSiteRoutes(app: FastifyInstance): Promise<void> {
  const db = app.deps.database.db;
  const deploy = app.deploy;
  const opts = { preHandler: loadConsole };
  const ingest = () => ({ db, blobs: app.deps.blobs, limits: deploy.limits, tmpDir: deploy.tmpDir });
  // The upload form is the one multipart form: its parts are read, CSRF field first, by the handler.
  await app.register(multipart);

  /** The signed-in account's static site that takes deploys; 404, 403 or 503 otherwise. */
  const deployableSite = async (request: FastifyRequest<SiteParams>): Promise<SiteRow> => {
    const { site } = await authorizeSite(
      db,
      signedIn(request),
      await findSite(db, request.params.id),
      request.params.id,
      'developer',
    );
    assertDeployable(site);
    return site;
  };

  /** The release a build made, as its page offers it: a preview, and Promote when it may go live. */
  const builtRelease = async (
    request: FastifyRequest,
    site: SiteRow,
    releaseId: string | null,
  ): Promise<BuiltRelease | undefined> => {
    const release = releaseId ? await findRelease(db, site.id, releaseId) : undefined;
    if (!release) return undefined;
    const aliases = await ensureAliases(db, site.id);
    return {
      previewUrl: previewUrl(urlContext(request), site.id, release.id),
      promotable: release.promotable && aliases.liveReleaseId !== release.id && site.status === 'active',
      live: aliases.liveReleaseId,
    };
  };

  /** What the confirmation of an alias change names: the release it will serve (or stop serving). */
  const target = async (site: SiteRow, action: AliasAction, releaseId: string | undefined) => {
    const aliases = await ensureAliases(db, site.id);
    const id =
      action === 'rollback'
        ? await rollbackTarget(db, aliases)
        : action === 'unstage'
          ? aliases.stageReleaseId
          : releaseId;
    if (!id && action === 'rollback')
      throw new AppError('no_previous_release', 'There is no earlier live release to roll back to.');
    if (!id) throw new AppError('release_not_found', 'Nothing is staged.');
    const release = await findRelease(db, site.id, id);
    if (!release) throw new AppError('release_not_found', `Site "${site.id}" has no release "${id}".`);
    return { release, live: aliases.liveReleaseId };
  };

  const actionUrl = (siteId: string, action: AliasAction, releaseId: string) =>
    action === 'promote' || action === 'stage'
      ? `/sites/${siteId}/releases/${releaseId}/${action}`
      : `/sites/${siteId}/${action}`;

  const showConfirm = async (
    request: FastifyRequest<SiteParams>,
    reply: FastifyReply,
    action: AliasAction,
    releaseId?: string,
  ) => {
    const site = await deployableSite(request);
    const { release, live } = await target(site, action, releaseId);
    const page = confirmView(
      request.console,
      presentSite(site, urlContext(request)),
      action,
      release,
      live,
      actionUrl(site.id, action, release.id),
    );
    return sendPage(request, reply, `${action} ${release.id}`, page);
  };

  const change = async (
    request: FastifyRequest<SiteParams>,
    reply: FastifyReply,
    action: AliasAction,
    releaseId?: string,
  ) => {
    const site = await deployableSite(request);
    const live = field(request, 'live', 64);
    const expected = live === undefined || live === '' ? undefined : live === 'none' ? null : live;
    return attempt(
      async () => {
        let result: AliasChange;
        if (action === 'promote') result = await promoteRelease(db, site.id, releaseId!, expected);
        else if (action === 'rollback') result = await rollbackRelease(db, site.id, expected);
        else if (action === 'stage') result = await setStage(db, site.id, releaseId!);
        else result = { release: undefined, aliases: await clearStage(db, site.id) };
        await deploy.cache.aliasesChanged(site.id);
        return seeOther(
          reply,
          `/sites/${site.id}?done=${action}${result.release ? `&release=${result.release.id}` : ''}#releases-h`,
        );
      },
      (error) =>
        sendSitePage(
          request,
          reply,
          site,
          { message: { kind: 'error', text: `Nothing changed: ${error.message}` } },
          error.status,
        ),
    );
  };

  for (const action of ['promote', 'stage'] as const) {
    app.get<ReleaseParams>(`/sites/:id/releases/:release/${action}`, opts, (request, reply) =>
      showConfirm(request, reply, action, request.params.release),
    );
    app.post<ReleaseParams>(`/sites/:id/releases/:release/${action}`, opts, (request, reply) =>
      change(request, reply, action, request.params.release),
    );
  }
  for (const action of ['unstage', 'rollback'] as const) {
    app.get<SiteParams>(`/sites/:id/${action}`, opts, (request, reply) => showConfirm(request, reply, action));
    app.post<SiteParams>(`/sites/:id/${action}`, opts, (request, reply) => change(request, reply, action));
  }

  app.post<SiteParams>('/sites/:id/upload', { preHandler: loadViewer }, async (request, reply) => {
    const site = await deployableSite(request);
    const checkCsrf = (token: string | undefined) => verifyCsrf(request, CSRF_SCOPE, request.console.sessionId, token);
    return attempt(
      async () => {
        const upload = await receiveUpload(request, deploy.limits, deploy.tmpDir, checkCsrf);
        try {
          if (upload.mode === 'files') {
            const origin = uploadOrigin(consoleActor(request));
            const release = upload.archive
              ? await ingestArchive(ingest(), site.id, createReadStream(upload.archive), origin)
              : await ingestFolder(ingest(), site.id, upload.root, origin);
            return seeOther(reply, `/sites/${site.id}?done=uploaded&release=${release.id}#releases-h`);
          }
          let archive = upload.archive;
          if (!archive) {
            archive = path.join(deploy.tmpDir, `${tempName('source')}.tar.gz`);
            await packDirectory(upload.root, archive);
          }
          try {
            const build = await queueSourceUpload(ingest(), site.id, createReadStream(archive), consoleActor(request));
            deploy.builds.wake();
            return seeOther(reply, `/sites/${site.id}/builds/${build.id}`);
          } finally {
            if (archive !== upload.archive) await rm(archive, { force: true });
          }
        } finally {
          await upload.dispose();
        }
      },
      (error) =>
        sendSitePage(
          request,
          reply,
          site,
          { message: { kind: 'error', text: `Nothing was uploaded: ${error.message}` } },
          error.status,
        ),
    );
  });

  app.get<BuildParams>('/sites/:id/builds/:build', opts, async (request, reply) => {
    const { site } = await authorizeSite(
      db,
      signedIn(request),
      await findSite(db, request.params.id),
      request.params.id,
      'viewer',
    );
    const build = await findBuild(db, site.id, request.params.build);
    if (!build) throw new AppError('build_not_found', `Site "${site.id}" has no build "${request.params.build}".`);
    const running = build.state === 'queued' || build.state === 'running';
    const page = buildView(
      request.console,
      presentSite(site, urlContext(request)),
      build,
      await readBuildLogs(db, build.id),
      await builtRelease(request, site, build.releaseId),
    );
    return sendPage(
      request,
      reply,
      `Build ${build.id}`,
      page,
      200,
      running ? { refreshSeconds: BUILD_REFRESH_SECONDS } : {},
    );
  });

  app.post<BuildParams>('/sites/:id/builds/:build/cancel', opts, async (request, reply) => {
    const site = await deployableSite(request);
    const by = consoleActor(request);
    return attempt(
      async () => {
        await cancelBuild(
          { db, blobs: app.deps.blobs, pubsub: app.deps.cache.pubsub },
          site.id,
          request.params.build,
          by,
        );
        return seeOther(reply, `/sites/${site.id}/builds/${request.params.build}`);
      },
      async (error) => {
        const build = await findBuild(db, site.id, request.params.build);
        if (!build) throw error;
        const page = buildView(
          request.console,
          presentSite(site, urlContext(request)),
          build,
          await readBuildLogs(db, build.id),
          undefined,
          error.message,
        );
        return sendPage(request, reply, `Build ${build.id}`, page, error.status);
      },
    );
  });

  app.post<SiteParams>('/sites/:id/preview-links', opts, async (request, reply) => {
    const site = await deployableSite(request);
    const seconds = Number(field(request, 'expires', 10));
    const releaseId = field(request, 'release', 64) ?? '';
    return attempt(
      async () => {
        if (!PREVIEW_LINK_CHOICES.some(([choice]) => choice === seconds))
          throw new AppError('validation_failed', 'Choose how long the link works: 1 hour, 1 day, 7 days or 30 days.');
        const link = await makePreviewLink(
          db,
          app.deps.config.secretKey,
          site.id,
          releaseId,
          previewUrl(urlContext(request), site.id, releaseId),
          seconds,
        );
        const shown = shownPreviewLink(link.release.id, link.url, link.expiresAt);
        return sendSitePage(request, reply, site, { shown }, 201);
      },
      (error) =>
        sendSitePage(
          request,
          reply,
          site,
          { message: { kind: 'error', text: `No link was made: ${error.message}` } },
          error.status,
        ),
    );
  });

  app.post<SiteParams>('/sites/:id/preview-password', opts, async (request, reply) => {
    const site = await deployableSite(request);
    await replacePreviewPassword(db, site.id);
    await deploy.cache.aliasesChanged(site.id);
    return seeOther(reply, `/sites/${site.id}?done=preview-password&password=show#releases-h`);
  });

  app.post<SiteParams>('/sites/:id/repository', opts, async (request, reply) => {
    const site = await deployableSite(request);
    const kind = field(request, 'kind', 20);
    return attempt(
      async () => {
        if (kind !== 'static' && kind !== 'markdown')
          throw new AppError('validation_failed', 'Choose whether the folder holds the site or Markdown to build.');
        const input = {
          repository: field(request, 'repository', 201) ?? '',
          branch: field(request, 'branch', 200) ?? '',
          path: field(request, 'path', 1024) || undefined,
          kind,
        } as const;
        const { secret } = await connectRepository(db, app.deps.config.secretKey, site.id, input);
        const shown = html`${shownOnce(
          'The repository is connected. Add a webhook to it with this URL and secret (content type ' +
            'application/json, push events).',
          secret,
          'webhook-secret',
        )}<p>Webhook URL: <code>${webhookUrl(app.deps.config.publicUrl, site.id)}</code></p>`;
        return sendSitePage(request, reply, site, { shown }, 201);
      },
      (error) =>
        sendSitePage(
          request,
          reply,
          site,
          { message: { kind: 'error', text: `The repository was not connected: ${error.message}` } },
          error.status,
        ),
    );
  });

  app.post<SiteParams>('/sites/:id/repository/disconnect', opts, async (request, reply) => {
    const site = await deployableSite(request);
    await disconnectRepository(db, site.id);
    return seeOther(reply, `/sites/${site.id}?done=disconnected#repo-h`);
  });

  app.post<SiteParams>('/sites/:id/tokens', opts, async (request, reply) => {
    const site = await deployableSite(request);
    const name = field(request, 'name', 100)?.trim() ?? '';
    if (!name)
      return sendSitePage(
        request,
        reply,
        site,
        { message: { kind: 'error', text: 'Give the token a name (1 to 100 characters), such as ci.' } },
        422,
      );
    const minted = await mintCredential(db, {
      kind: 'deploy_token',
      siteId: site.id,
      subjectId: request.console.user!.id,
      name,
    });
    return sendSitePage(
      request,
      reply,
      site,
      { shown: shownOnce(`Deploy token "${name}" was minted.`, minted.token, 'new-token') },
      201,
    );
  });

  app.post<{ Params: { id: string; token: string } }>(
    '/sites/:id/tokens/:token/revoke',
    opts,
    async (request, reply) => {
      const site = await deployableSite(request);
      if (!(await app.services.credentials.revoke(request.params.token, { kind: 'deploy_token', siteId: site.id }))) {
        return sendSitePage(
          request,
          reply,
          site,
          { message: { kind: 'error', text: 'That deploy token does not exist or was revoked already.' } },
          404,
        );
      }
      return seeOther(reply, `/sites/${site.id}?done=revoked#tokens-h`);
    },
  );
}
