// Build endpoints of the deploy API: Markdown uploads (`POST /source`, answered when the build ends)
// and the build list and detail. DESIGN.md section 4; spec section 7.1.
import { urlContext } from '../../core/sites/presenters.js';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../http/errors.js';
import { PageQuery, setPaginationHeaders, toPage } from '../../http/pagination.js';
import { validatorCompiler } from '../../http/validation.js';
import { requireSiteDeployToken } from '../policy.js';
import { presentRelease } from '../presenters.js';
import { DeploySiteParams, ReleaseOut } from '../schemas.js';
import { findRelease } from '../service.js';
import { presentBuild, presentLogLine } from './presenters.js';
import { findBuild, listBuilds, readBuildLogs, readLogTails } from './queue.js';
import { BuildOut, BuildParams, BuildsOut, SourceUpload } from './schemas.js';
import { queueSourceUpload, waitForBuild } from './service.js';

const security = [{ bearer: [] }];
/** Log lines each build carries in the list; the detail call has them all. */
const LIST_LOG_TAIL = 20;
/** Time a queued build may wait for a free worker before /source stops waiting. */
const QUEUE_WAIT_MS = 60_000;

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
          'multipart/form-data with the field `archive`: a tar or tar.gz of Markdown. 201 with the new release (not live until promoted); 422 `build_failed` with `build_id` and `logs` when the build fails, and nothing changes; 202 with the build when it has not ended within the build time limit (follow it with GET /builds/{build_id}).',
        consumes: ['multipart/form-data'],
        security,
        params: DeploySiteParams,
        body: SourceUpload,
        response: { 201: ReleaseOut, 202: BuildOut },
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
        throw new AppError('source_missing', 'Send the Markdown sources as a tar or tar.gz in the multipart field `archive`.');
      }
      const queued = await queueSourceUpload({ db, blobs: app.deps.blobs, limits: deploy.limits, tmpDir: deploy.tmpDir }, siteId, part.file);
      deploy.builds.wake();
      const build = await waitForBuild(db, siteId, queued.id, settings.timeoutMs + settings.leaseMs + QUEUE_WAIT_MS);
      if (build.state === 'succeeded' && build.releaseId) {
        const release = await findRelease(db, siteId, build.releaseId);
        if (release) return reply.code(201).send(presentRelease(release, urlContext(request)));
      }
      const logs = await readBuildLogs(db, build.id);
      if (build.state === 'queued' || build.state === 'running') return reply.code(202).send(presentBuild(build, logs));
      throw new AppError('build_failed', build.error ?? `The build ended ${build.state}.`, { build_id: build.id, state: build.state, logs: logs.map(presentLogLine) });
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
      const tails = await readLogTails(db, rows.map((row) => row.id), LIST_LOG_TAIL);
      setPaginationHeaders(request, reply, page, total);
      return { builds: rows.map((row) => presentBuild(row, tails.get(row.id) ?? [])) };
    },
  );

  app.get(
    '/api/deploy/:id/builds/:build_id',
    { schema: { tags: ['builds'], summary: 'One build with its whole log', security, params: BuildParams, response: { 200: BuildOut } }, preHandler: (request) => requireSiteDeployToken(request as FastifyRequest<{ Params: { id: string } }>) },
    async (request) => {
      const build = await findBuild(db, request.params.id, request.params.build_id);
      if (!build) throw new AppError('build_not_found', `Site "${request.params.id}" has no build "${request.params.build_id}".`);
      return presentBuild(build, await readBuildLogs(db, build.id));
    },
  );
}
