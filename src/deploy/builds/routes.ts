// Build endpoints of the deploy API: Markdown uploads (`POST /source`, answered when the build ends),
// the build list and detail, and canceling a build. DESIGN.md section 4; spec section 7.1.
import { urlContext } from '../../core/sites/presenters.js';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../http/errors.js';
import { PageQuery, setPaginationHeaders, toPage } from '../../http/pagination.js';
import { validatorCompiler } from '../../http/validation.js';
import { deployTokenActor, requireSiteDeployToken } from '../policy.js';
import { presentRelease } from '../presenters.js';
import { DeploySiteParams } from '../schemas.js';
import { findRelease } from '../service.js';
import { presentBuild, presentLogLine } from './presenters.js';
import type { BuildLogRow } from './tables.js';
import { findBuild, listBuilds, readBuildLogs, readLogTails } from './queue.js';
import { BuildOut, BuildParams, BuildsOut, BuiltReleaseOut, SourceUpload } from './schemas.js';
import { cancelBuild, queueSourceUpload, waitForBuild } from './service.js';

const security = [{ deployToken: [] }];
const WARNING_PREFIX = 'warning: ';
/** Log lines each build carries in the list; the detail call has them all. */
const LIST_LOG_TAIL = 20;
/** Time a queued build may wait for a free worker before /source stops waiting. */
const QUEUE_WAIT_MS = 60_000;
/** Time the cancel call waits for a running build to stop before answering 202. */
const CANCEL_WAIT_MS = 5_000;

export async function buildRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app.deps.database;
  const settings = app.deps.config.builds;
  const deploy = app.deploy;

  app.post(
    '/api/deploy/:id/source',
    {
      schema: {
        tags: ['builds'],
        summary: 'Build a docs site from Markdown in the sandbox and answer when the build ends',
        description:
          "multipart/form-data with the field `archive`: a tar or tar.gz of Markdown. 201 with the new release (not live until promoted), its `build_id` and the build's `warnings`; 422 `build_failed` with `build_id` and `logs` when the build fails, and nothing changes; 409 `build_canceled` with `build_id` and `logs` when the build is canceled meanwhile; 202 with the build when it has not ended within the build time limit (follow it with GET /builds/{build_id}).",
        consumes: ['multipart/form-data'],
        security,
        params: DeploySiteParams,
        body: SourceUpload,
        response: { 201: BuiltReleaseOut, 202: BuildOut },
      },
      // The multipart body is read by the handler as a stream; its schema only documents the form.
      validatorCompiler: (route) => (route.httpPart === 'body' ? () => true : validatorCompiler(route)),
      preHandler: requireSiteDeployToken,
    },
    async (request, reply) => {
      const siteId = request.params.id;
      const part = await request.file({ limits: { fileSize: deploy.limits.compressedBytes + 1 } });
      if (!part || part.fieldname !== 'archive') {
        part?.file.resume();
        throw new AppError(
          'source_missing',
          'Send the Markdown sources as a tar or tar.gz in the multipart field `archive`.',
        );
      }
      const queued = await queueSourceUpload(
        { db, blobs: app.deps.blobs, limits: deploy.limits, tmpDir: deploy.tmpDir },
        siteId,
        part.file,
        deployTokenActor(request),
      );
      deploy.builds.wake();
      const build = await waitForBuild(db, siteId, queued.id, settings.timeoutMs + settings.leaseMs + QUEUE_WAIT_MS);
      const logs = await readBuildLogs(db, build.id);
      if (build.state === 'succeeded' && build.releaseId) {
        const release = await findRelease(db, siteId, build.releaseId);
        if (release)
          return reply.code(201).send({
            ...presentRelease(release, urlContext(request)),
            build_id: build.id,
            warnings: buildWarnings(logs),
          });
      }
      if (build.state === 'queued' || build.state === 'running') return reply.code(202).send(presentBuild(build, logs));
      if (build.state === 'canceled')
        throw new AppError('build_canceled', build.error ?? 'The build was canceled.', {
          build_id: build.id,
          state: build.state,
          logs: logs.map(presentLogLine),
        });
      throw new AppError('build_failed', build.error ?? `The build ended ${build.state}.`, {
        build_id: build.id,
        state: build.state,
        logs: logs.map(presentLogLine),
      });
    },
  );

  app.get(
    '/api/deploy/:id/builds',
    {
      schema: {
        tags: ['builds'],
        summary: 'Builds of the site, newest first (paginated; each with the last lines of its log)',
        security,
        params: DeploySiteParams,
        querystring: PageQuery,
        response: { 200: BuildsOut },
      },
      preHandler: requireSiteDeployToken,
    },
    async (request, reply) => {
      const page = toPage(request.query);
      const { rows, total } = await listBuilds(db, request.params.id, page);
      const tails = await readLogTails(
        db,
        rows.map((row) => row.id),
        LIST_LOG_TAIL,
      );
      setPaginationHeaders(request, reply, page, total);
      return { builds: rows.map((row) => presentBuild(row, tails.get(row.id) ?? [])) };
    },
  );

  app.get(
    '/api/deploy/:id/builds/:build_id',
    {
      schema: {
        tags: ['builds'],
        summary: 'One build with its whole log',
        security,
        params: BuildParams,
        response: { 200: BuildOut },
      },
      preHandler: (request) => requireSiteDeployToken(request as FastifyRequest<{ Params: { id: string } }>),
    },
    async (request) => {
      const build = await findBuild(db, request.params.id, request.params.build_id);
      if (!build)
        throw new AppError('build_not_found', `Site "${request.params.id}" has no build "${request.params.build_id}".`);
      return presentBuild(build, await readBuildLogs(db, build.id));
    },
  );

  app.post(
    '/api/deploy/:id/builds/:build_id/cancel',
    {
      schema: {
        tags: ['builds'],
        summary: 'Cancel a build: a queued one at once, a running one is stopped by its worker',
        description:
          'A queued build is canceled at once and never runs. A running build is stopped by the worker running it (on whichever node); it ends `canceled`, creates no release and changes no alias. 200 with the build once it is canceled (also when it already was); 202 with the build, `cancel_requested_at` set, when it has not stopped within a few seconds; 409 `build_finished` with its `state` when it had already succeeded or failed.',
        security,
        params: BuildParams,
        response: { 200: BuildOut, 202: BuildOut },
      },
      preHandler: (request) => requireSiteDeployToken(request as FastifyRequest<{ Params: { id: string } }>),
    },
    async (request, reply) => {
      const { id: siteId, build_id: buildId } = request.params;
      const by = deployTokenActor(request);
      let build = await cancelBuild({ db, blobs: app.deps.blobs, pubsub: app.deps.cache.pubsub }, siteId, buildId, by);
      if (build.state === 'running') build = await waitForBuild(db, siteId, buildId, CANCEL_WAIT_MS);
      return reply
        .code(build.state === 'running' ? 202 : 200)
        .send(presentBuild(build, await readBuildLogs(db, build.id)));
    },
  );
}

/** The builder prints each warning as a `warning: ` line of its standard output (build-entry.ts). */
function buildWarnings(logs: BuildLogRow[]): string[] {
  return logs
    .filter((row) => row.stream === 'stdout' && row.line.startsWith(WARNING_PREFIX))
    .map((row) => row.line.slice(WARNING_PREFIX.length));
}
