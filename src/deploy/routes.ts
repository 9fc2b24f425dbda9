// The deploy API under /api/deploy/{id} on the portal host, authenticated by a deploy token.
import { urlContext, type UrlContext } from '../core/sites/presenters.js';
import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../http/errors.js';
import { problems, registerOpenApi } from '../http/openapi.js';
import { validatorCompiler } from '../http/validation.js';
import { buildRoutes } from './builds/routes.js';
import { githubRoutes } from './git/routes.js';
import { ingestArchive, uploadOrigin } from './ingest.js';
import { siteConfigRoutes } from './site-config-routes.js';
import { deployTokenActor, requireDeployToken, requireSiteDeployToken } from './policy.js';
import { presentAliases, presentPreviewLink, presentRelease, presentUrls, previewUrl } from './presenters.js';
import {
  AliasChangeOut,
  ArchiveUpload,
  DeploySiteParams,
  DeployTokenOut,
  IfMatchHeaders,
  PreviewLinkBody,
  PreviewLinkOut,
  ReleaseBody,
  ReleaseParams,
  ReleaseOut,
  ReleasesOut,
} from './schemas.js';
import {
  clearStage,
  listReleases,
  makePreviewLink,
  promoteRelease,
  replacePreviewPassword,
  rollbackRelease,
  rollbackTarget,
  setStage,
  type AliasChange,
  type ExpectedLive,
} from './service.js';

const security = [{ deployToken: [] }];

/** The live release as an entity tag: its id, or `none`. */
function liveTag(liveReleaseId: string | null): string {
  return `"${liveReleaseId ?? 'none'}"`;
}

/** What `If-Match` names as the live release the change replaces. */
function expectedLive(ifMatch: string | undefined): ExpectedLive {
  if (ifMatch === undefined) return undefined;
  const id = ifMatch.slice(1, -1);
  return id === 'none' ? null : id;
}

export async function deployApiRoutes(fastify: FastifyInstance): Promise<void> {
  fastify.addHook('onRoute', (route) => {
    route.constraints = { ...route.constraints, surface: 'portal' };
  });
  await registerOpenApi(fastify, {
    title: 'Blume deploy API',
    description:
      'Publish static sites as immutable releases, build docs sites from Markdown, connect a repository for push-to-build, preview releases, promote, stage and roll back. Authenticate with `Authorization: Bearer dpl_<id>.<secret>`, a deploy token of the site.',
    prefix: '/api/deploy',
    servedOn: 'portal',
  });
  // Only the archive streams through; the parts' limits sit on the request.file() call.
  await fastify.register(multipart, { limits: { files: 1, fields: 4, fieldSize: 1024, parts: 5 } });

  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app.deps.database;
  const deploy = app.deploy;

  const aliasChange = async (urls: UrlContext, siteId: string, change: AliasChange) => {
    const propagation = await deploy.cache.aliasesChanged(siteId);
    return {
      release: change.release ? presentRelease(change.release, urls) : null,
      aliases: presentAliases(change.aliases),
      urls: presentUrls(urls, siteId),
      propagation,
    };
  };

  app.get(
    '/api/deploy/token',
    {
      schema: {
        tags: ['deploy'],
        summary: 'The site the deploy token in the Authorization header belongs to',
        description: 'Lets a tool that holds only a token (the MCP server, a CI job) find its site.',
        security,
        response: { 200: DeployTokenOut },
      },
      preHandler: requireDeployToken,
    },
    async (request) => ({ site: request.credential!.siteId!, name: request.credential!.name }),
  );

  app.post(
    '/api/deploy/:id',
    {
      schema: {
        tags: ['deploy'],
        summary: 'Upload a tar.gz as a new release (not live until promoted)',
        description:
          'multipart/form-data with the field `archive`. Limits: 200 MiB compressed, 512 MiB uncompressed, 50,000 files; plain files only, no absolute paths or `..` segments.',
        consumes: ['multipart/form-data'],
        security,
        params: DeploySiteParams,
        body: ArchiveUpload,
        response: { 201: ReleaseOut, ...problems(409, 413, 415, 422) },
      },
      // The multipart body is read by the handler as a stream; its schema only documents the form.
      validatorCompiler: (route) => (route.httpPart === 'body' ? () => true : validatorCompiler(route)),
      preHandler: requireSiteDeployToken,
    },
    async (request, reply) => {
      const limits = deploy.limits;
      // One byte over the limit reaches our own counter, which answers with its own code.
      const part = await request.file({ limits: { fileSize: limits.compressedBytes + 1 } });
      if (!part || part.fieldname !== 'archive') {
        part?.file.resume();
        throw new AppError('archive_missing', 'Send the site as a tar.gz in the multipart field `archive`.');
      }
      const release = await ingestArchive(
        { db, blobs: app.deps.blobs, limits, tmpDir: deploy.tmpDir },
        request.params.id,
        part.file,
        uploadOrigin(deployTokenActor(request)),
      );
      return reply.code(201).send(presentRelease(release, urlContext(request)));
    },
  );

  app.get(
    '/api/deploy/:id/releases',
    {
      schema: {
        tags: ['deploy'],
        summary: 'Releases (newest first), aliases and URLs',
        security,
        params: DeploySiteParams,
        response: { 200: ReleasesOut },
      },
      preHandler: requireSiteDeployToken,
    },
    async (request, reply) => {
      const { releases, aliases } = await listReleases(db, request.params.id);
      const urls = urlContext(request);
      reply.header('ETag', liveTag(aliases.liveReleaseId));
      return {
        releases: releases.map((row) => presentRelease(row, urls)),
        aliases: presentAliases(aliases),
        urls: presentUrls(urls, request.params.id),
        rollback_to: await rollbackTarget(db, aliases),
      };
    },
  );

  app.post(
    '/api/deploy/:id/releases/:release/preview-links',
    {
      schema: {
        tags: ['deploy'],
        summary: "Share a release's preview: a signed link that needs no password until it expires",
        description:
          'The link opens the preview host of this release only. Its first request trades the token for a cookie on that host and redirects to the same address without it. Nothing is stored: a link cannot be revoked one by one, but a new preview password (POST /api/deploy/{id}/preview-password) voids every link.',
        security,
        params: ReleaseParams,
        body: PreviewLinkBody,
        response: { 201: PreviewLinkOut, ...problems(404) },
      },
      preHandler: (request) => requireSiteDeployToken(request as FastifyRequest<{ Params: { id: string } }>),
    },
    async (request, reply) => {
      const { id, release } = request.params;
      const link = await makePreviewLink(
        db,
        app.deps.config.secretKey,
        id,
        release,
        previewUrl(urlContext(request), id, release),
        request.body.expires_in,
      );
      return reply.code(201).send(presentPreviewLink(link));
    },
  );

  app.post(
    '/api/deploy/:id/promote',
    {
      schema: {
        tags: ['deploy'],
        summary: 'Make a release live (atomic)',
        description:
          'Answers once every app node serves the release (or the staleness bound has passed); `propagation` says which nodes confirmed. Send `If-Match` to refuse the change when another promote or rollback landed first.',
        security,
        params: DeploySiteParams,
        headers: IfMatchHeaders,
        body: ReleaseBody,
        response: { 200: AliasChangeOut, ...problems(409, 412) },
      },
      preHandler: requireSiteDeployToken,
    },
    async (request) =>
      aliasChange(
        urlContext(request),
        request.params.id,
        await promoteRelease(db, request.params.id, request.body.release, expectedLive(request.headers['if-match'])),
      ),
  );

  app.post(
    '/api/deploy/:id/rollback',
    {
      schema: {
        tags: ['deploy'],
        summary: 'Return production to the release live before the current one',
        security,
        params: DeploySiteParams,
        headers: IfMatchHeaders,
        response: { 200: AliasChangeOut, ...problems(409, 412) },
      },
      preHandler: requireSiteDeployToken,
    },
    async (request) =>
      aliasChange(
        urlContext(request),
        request.params.id,
        await rollbackRelease(db, request.params.id, expectedLive(request.headers['if-match'])),
      ),
  );

  app.put(
    '/api/deploy/:id/stage',
    {
      schema: {
        tags: ['deploy'],
        summary: 'Point the stage alias at a release',
        security,
        params: DeploySiteParams,
        body: ReleaseBody,
        response: { 200: AliasChangeOut, ...problems(409) },
      },
      preHandler: requireSiteDeployToken,
    },
    async (request) =>
      aliasChange(urlContext(request), request.params.id, await setStage(db, request.params.id, request.body.release)),
  );

  await buildRoutes(fastify);
  await githubRoutes(fastify);
  await siteConfigRoutes(fastify);

  app.delete(
    '/api/deploy/:id/stage',
    {
      schema: {
        tags: ['deploy'],
        summary: 'Clear the stage alias',
        security,
        params: DeploySiteParams,
        response: { 200: AliasChangeOut, ...problems(409) },
      },
      preHandler: requireSiteDeployToken,
    },
    async (request) =>
      aliasChange(urlContext(request), request.params.id, {
        release: undefined,
        aliases: await clearStage(db, request.params.id),
      }),
  );

  app.post(
    '/api/deploy/:id/preview-password',
    {
      schema: {
        tags: ['deploy'],
        summary: 'Replace the preview password: the old one and every shared preview link stop working',
        description:
          'The new password is `aliases.auth` of the answer. Answers once every app node refuses the old password and links (or the staleness bound has passed); `propagation` says which nodes confirmed.',
        security,
        params: DeploySiteParams,
        response: { 200: AliasChangeOut },
      },
      preHandler: requireSiteDeployToken,
    },
    async (request) =>
      aliasChange(urlContext(request), request.params.id, {
        release: undefined,
        aliases: await replacePreviewPassword(db, request.params.id),
      }),
  );
}
