// The deploy domain: the deploy API on the portal host and the static edge on site hosts, sharing
// one per-node edge cache (alias pointers and release manifests).
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { DEFAULT_ARCHIVE_LIMITS, type ArchiveLimits } from './archive.js';
import { EdgeBytes } from './edge-bytes.js';
import { EdgeCache } from './edge-cache.js';
import { serveStatic } from './edge.js';
import { deployApiRoutes } from './routes.js';

export interface DeployRuntime {
  /** Archive limits; tests may lower them on a built app. */
  limits: ArchiveLimits;
  cache: EdgeCache;
  tmpDir: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    deploy: DeployRuntime;
  }
}

async function edgeRoutes(app: FastifyInstance): Promise<void> {
  const ctx = { cache: app.deploy.cache, blobs: app.deps.blobs, bytes: new EdgeBytes(app.deps.blobs) };
  app.route({
    method: ['GET', 'HEAD'],
    url: '/*',
    exposeHeadRoute: false,
    constraints: { surface: 'static' },
    handler: (request, reply) => serveStatic(ctx, request, reply),
  });
}

export const deployPlugin = fp(
  async (app: FastifyInstance) => {
    const cache = new EdgeCache(app.deps.database.db, app.deps.cache.pubsub);
    await cache.start();
    app.addHook('onClose', () => cache.stop());
    app.decorate('deploy', { limits: { ...DEFAULT_ARCHIVE_LIMITS }, cache, tmpDir: path.join(app.deps.config.dataDir, 'tmp') } satisfies DeployRuntime);
    await app.register(deployApiRoutes);
    await app.register(edgeRoutes);
  },
  { name: 'blume-deploy' },
);
