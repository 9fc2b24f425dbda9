// The deploy domain: the deploy API on the portal host and the static edge on site hosts, sharing
// one per-node edge cache (alias pointers and release manifests).
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../http/errors.js';
import { toAppError } from '../http/problem.js';
import { DEFAULT_ARCHIVE_LIMITS, type ArchiveLimits } from './archive.js';
import { BuildWorker } from './builds/worker.js';
import { EdgeBytes } from './edge-bytes.js';
import { EdgeCache } from './edge-cache.js';
import { edgeFastLane, serveStatic } from './edge.js';
import { deployApiRoutes } from './routes.js';

interface DeployRuntime {
  /** Archive limits; tests may lower them on a built app. */
  limits: ArchiveLimits;
  cache: EdgeCache;
  tmpDir: string;
  /** This node's build worker; `blume serve` starts it, tests start it or call runNext(). */
  builds: BuildWorker;
}

declare module 'fastify' {
  interface FastifyInstance {
    deploy: DeployRuntime;
  }
}

const UNAVAILABLE_PAGE =
  '<!doctype html><meta charset="utf-8"><title>Temporarily unavailable</title><h1>Temporarily unavailable</h1><p>This site cannot be served right now. Please try again in a moment.</p>\n';

async function edgeRoutes(app: FastifyInstance): Promise<void> {
  const ctx = {
    cache: app.deploy.cache,
    blobs: app.deps.blobs,
    bytes: new EdgeBytes(app.deps.blobs),
    secretKey: app.deps.config.secretKey,
    secureCookies: app.deps.config.production,
  };
  app.route({
    method: ['GET', 'HEAD'],
    url: '/*',
    exposeHeadRoute: false,
    constraints: { surface: 'static' },
    config: { compress: false },
    handler: (request, reply) => serveStatic(ctx, request, reply),
  });
  // A dependency outage answers visitors with a page, not JSON (decision 0070); other errors go on to
  // the root handler.
  app.setErrorHandler((error: Error, _request, reply) => {
    const appError = toAppError(error);
    if (appError?.status !== 503) throw error;
    for (const [name, value] of Object.entries(appError.headers)) reply.header(name, value);
    return reply
      .code(503)
      .header('Content-Type', 'text/html; charset=utf-8')
      .header('Cache-Control', 'no-store')
      .send(UNAVAILABLE_PAGE);
  });
  // A static site is read-only: other methods are refused as such, not as a missing page.
  app.route({
    method: ['POST', 'PUT', 'DELETE', 'PATCH'],
    url: '/*',
    constraints: { surface: 'static' },
    handler: (request) => {
      throw new AppError(
        'method_not_allowed',
        `A static site answers GET and HEAD only, not ${request.method}.`,
        {},
        { Allow: 'GET, HEAD' },
      );
    },
  });
  // On by default; its answers are logged by the lanes' own access log (docs/decisions/0031).
  if (app.deps.config.edgeFastPath) {
    let closing = false;
    app.addHook('preClose', (done) => {
      closing = true;
      done();
    });
    app.addFastLane(
      edgeFastLane(
        ctx,
        (request) => app.surfaces.peek(request),
        () => closing,
      ),
    );
  }
}

export const deployPlugin = fp(
  async (app: FastifyInstance) => {
    const cache = new EdgeCache(app.deps.database.db, app.deps.cache.pubsub);
    await cache.start();
    app.addHook('onClose', () => cache.stop());
    const limits = { ...DEFAULT_ARCHIVE_LIMITS };
    const tmpDir = path.join(app.deps.config.dataDir, 'tmp');
    const builds = new BuildWorker(
      {
        db: app.deps.database.db,
        blobs: app.deps.blobs,
        limits,
        tmpDir,
        settings: app.deps.config.builds,
        secretKey: app.deps.config.secretKey,
      },
      { embeddedDatabase: app.deps.database.driver === 'pglite', logger: app.log },
    );
    await builds.listen(app.deps.cache.pubsub);
    // Stopped before the database closes (onClose hooks of the root run after this plugin's).
    app.addHook('onClose', () => builds.stop());
    app.decorate('deploy', { limits, cache, tmpDir, builds } satisfies DeployRuntime);
    await app.register(deployApiRoutes);
    await app.register(edgeRoutes);
  },
  { name: 'blume-deploy' },
);
