// buildApp: one Fastify instance with every surface. It never listens; main.ts does, tests inject.
import cookie from '@fastify/cookie';
import rateLimit from '@fastify/rate-limit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import type { BlobStore } from './adapters/blobs/index.js';
import type { CacheAdapter } from './adapters/cache/index.js';
import type { Mailer } from './adapters/mail/index.js';
import type { Config } from './config/index.js';
import { PlanMatrix } from './core/plans/matrix.js';
import { settingsPlugin } from './core/settings/plugin.js';
import { SiteDirectory } from './core/sites/directory.js';
import type { DatabaseHandle } from './db/client.js';
import { MailOutbox } from './forum/mail/outbox.js';
import { TopicPageMarks } from './forum/page-marks.js';
import { forumPlugin } from './forum/plugin.js';
import { forumUiPlugin } from './forum/ui/plugin.js';
import { healthRoutes } from './health/routes.js';
import { deployPlugin } from './deploy/plugin.js';
import { AppError } from './http/errors.js';
import type { HostTarget } from './http/hosts.js';
import { registerProblemHandlers, sendProblem } from './http/problem.js';
import { createFastLanes, type FastLane } from './http/fast-lane.js';
import { createSurfaceRouting, type SurfaceRouting } from './http/surface.js';
import { validatorCompiler } from './http/validation.js';
import { defaultApiRateLimit } from './http/rate-limit.js';
import { instancesPlugin } from './instances/plugin.js';
import { requestIdFactory } from './lib/ids.js';
import { portalPlugin } from './portal/plugin.js';

export interface AppDeps {
  config: Config;
  database: DatabaseHandle;
  cache: CacheAdapter;
  blobs: BlobStore;
  mailer: Mailer;
  mode: 'platform' | 'single';
  /** The community site served on every host in single mode. */
  singleSite?: string;
  /** Pino options or false; tests pass false. */
  logger?: boolean | Record<string, unknown>;
}

export interface AppServices {
  sites: SiteDirectory;
  /** Which plans include which feature, as every site API checks it. */
  plans: PlanMatrix;
  /** Sends queued community mail after the transactions that queue it commit. */
  mailOutbox: MailOutbox;
  /** Where this node seeks deep pages of forum topic lists from (docs/decisions/0022-forum-deep-pages.md). */
  topicMarks: TopicPageMarks;
}

declare module 'fastify' {
  interface FastifyInstance {
    deps: AppDeps;
    services: AppServices;
    /** Which surface a request's host reaches (the router's `surface` constraint). */
    surfaces: SurfaceRouting;
    /** Puts a lane in front of the router for the server `listen` starts (not for `inject`). */
    addFastLane(lane: FastLane): void;
  }
  interface FastifyRequest {
    target: HostTarget;
  }
}

export type App = FastifyInstance;
export type TypedApp = ReturnType<FastifyInstance['withTypeProvider']> & FastifyInstance;

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const sites = new SiteDirectory(deps.database.db, deps.cache.pubsub);
  await sites.start();
  const plans = new PlanMatrix(deps.database.db, deps.cache.pubsub);
  await plans.start();

  const surfaces = createSurfaceRouting({
    sitesDomain: config.sitesDomain,
    trustProxy: config.trustProxy,
    directory: sites,
    singleSite: deps.mode === 'single' ? deps.singleSite : undefined,
  });
  const lanes = createFastLanes();
  const app = Fastify({
    logger: deps.logger ?? { level: config.logLevel },
    serverFactory: lanes.serverFactory,
    trustProxy: config.trustProxy,
    bodyLimit: 1024 * 1024,
    genReqId: requestIdFactory(),
    requestIdHeader: false,
    return503OnClosing: true,
    routerOptions: {
      ignoreTrailingSlash: false,
      maxParamLength: 200,
      constraints: { surface: surfaces.strategy },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate('deps', deps);
  const mailOutbox = new MailOutbox(deps.database.db, deps.mailer, app.log);
  app.decorate('services', { sites, plans, mailOutbox, topicMarks: new TopicPageMarks() });
  app.decorate('surfaces', surfaces);
  app.decorate('addFastLane', lanes.add);
  app.decorateRequest<HostTarget | null>('target', null);
  app.setValidatorCompiler(validatorCompiler);
  // JSON only by default; a surface that takes other bodies (uploads, webhooks) adds its own parser.
  app.removeContentTypeParser('text/plain');
  registerProblemHandlers(app);

  // A callback hook, not an async one: it runs on every request, static ones included.
  app.addHook('onRequest', (request, _reply, done) => {
    request.target = request.raw.blumeTarget ?? { kind: 'portal' };
    done();
  });
  // Mail queued by an earlier run (or a node that stopped) goes out once this node is up.
  app.addHook('onReady', async () => {
    mailOutbox.start();
  });
  app.addHook('onClose', async () => {
    await mailOutbox.stop();
    await sites.stop();
    await plans.stop();
  });

  await app.register(cookie);
  // Runs before the rate-limit plugin's own onRoute hook, which reads the route's limit.
  app.addHook('onRoute', defaultApiRateLimit(config.rateLimit.apiPerMinute));
  await app.register(rateLimit, {
    global: false,
    redis: deps.cache.redis,
    nameSpace: `${deps.cache.prefix}rate:`,
    errorResponseBuilder: (_request, context) =>
      new AppError('rate_limited', `Too many requests; try again in ${Math.ceil(context.ttl / 1000)} s.`, {}, { 'Retry-After': String(Math.ceil(context.ttl / 1000)) }),
  });

  await app.register(settingsPlugin);
  await app.register(healthRoutes);
  await app.register(portalPlugin);
  await app.register(deployPlugin);
  await app.register(instancesPlugin);
  await app.register(forumPlugin);
  await app.register(forumUiPlugin);

  app.setNotFoundHandler((request, reply) => {
    const target = request.target ?? request.raw.blumeTarget;
    if (target && target.kind !== 'portal' && !sites.peek(target.site)) {
      return sendProblem(reply, new AppError('site_not_found', `No site answers at ${request.hostname}.`));
    }
    return sendProblem(reply, new AppError('not_found', `No route ${request.method} ${request.url.split('?')[0]}.`));
  });

  return app;
}
