// buildApp: one Fastify instance with every surface. It never listens; main.ts does, tests inject.
import cookie from '@fastify/cookie';
import rateLimit from '@fastify/rate-limit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import type { BlobStore } from './adapters/blobs/index.js';
import type { CacheAdapter } from './adapters/cache/index.js';
import type { Mailer } from './adapters/mail/index.js';
import { cmsPlugin } from './cms/plugin.js';
import { cmsEditorPlugin } from './cms/ui/plugin.js';
import { helpdeskPagesPlugin } from './helpdesk/ui/plugin.js';
import { helpdeskPlugin } from './helpdesk/plugin.js';
import { WebhookDispatcher } from './cms/webhooks.js';
import type { Config } from './config/index.js';
import { PlanMatrix } from './core/plans/matrix.js';
import { settingsPlugin } from './core/settings/plugin.js';
import { VerifiedCredentials } from './core/credentials/verified.js';
import { SiteDirectory } from './core/sites/directory.js';
import type { DatabaseHandle } from './db/client.js';
import { MailOutbox } from './forum/mail/outbox.js';
import { TopicPageMarks } from './forum/page-marks.js';
import { forumPlugin } from './forum/plugin.js';
import { consolePlugin } from './console/plugin.js';
import { forumUiPlugin } from './forum/ui/plugin.js';
import { healthRoutes } from './health/routes.js';
import { deployPlugin } from './deploy/plugin.js';
import { AppError } from './http/errors.js';
import type { HostTarget } from './http/hosts.js';
import { registerProblemHandlers, sendProblem } from './http/problem.js';
import { AccessLog } from './http/access-log.js';
import { drainUnreadBodies } from './http/unread-body.js';
import { createFastLanes } from './http/fast-lane.js';
import type { FastLane } from './http/lane.js';
import { createSurfaceRouting, type SurfaceRouting } from './http/surface.js';
import { validatorCompiler } from './http/validation.js';
import { defaultApiRateLimit } from './http/rate-limit.js';
import { instancesPlugin } from './instances/plugin.js';
import { ErrorReporter } from './lib/error-reporter.js';
import { AllowedMethods } from './http/allowed-methods.js';
import { LoginThrottle } from './http/login-throttle.js';
import { requestIdFactory } from './lib/ids.js';
import { portalPlugin } from './portal/plugin.js';
import { purchasePlugin } from './purchase/plugin.js';
import { mcpPlugin } from './mcp/plugin.js';

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
  /** Failed logins per account name and address, shared by every node (decision 0033). */
  loginThrottle: LoginThrottle;
  /** Sends Content API webhooks queued by entry writes. */
  cmsWebhooks: WebhookDispatcher;
  /** Verifies and revokes tokens and keys, caching the rows of verified ones per node (decision 0084). */
  credentials: VerifiedCredentials;
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
  const credentials = new VerifiedCredentials(deps.database.db, deps.cache.pubsub);
  await credentials.start();

  const surfaces = createSurfaceRouting({
    sitesDomain: config.sitesDomain,
    trustProxy: config.trustProxy,
    directory: sites,
    singleSite: deps.mode === 'single' ? deps.singleSite : undefined,
  });
  const httpErrors = new ErrorReporter();
  const lanes = createFastLanes({ warn: (message) => app.log.warn(message), errors: httpErrors });
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
  // Infrastructure that recovers on its own warns through the app's log, rate-limited.
  for (const errors of [httpErrors, deps.database.errors, deps.cache.pubsub.errors]) errors.attach(app.log);
  const mailOutbox = new MailOutbox(deps.database.db, deps.mailer, app.log, { embeddedDatabase: deps.database.driver === 'pglite' });
  const cmsWebhooks = new WebhookDispatcher(deps.database.db, config.secretKey, app.log, {
    embeddedDatabase: deps.database.driver === 'pglite',
    allowPrivateTargets: config.webhooksAllowPrivate,
  });
  app.decorate('services', { sites, plans, mailOutbox, topicMarks: new TopicPageMarks(), loginThrottle: new LoginThrottle(deps.cache.cache, config.secretKey), cmsWebhooks, credentials });
  app.decorate('surfaces', surfaces);
  app.decorate('apiDocuments', []);
  app.decorate('addFastLane', lanes.add);
  // At `info` the lanes' answers go to their own buffered access log (docs/decisions/0031).
  if (['trace', 'debug', 'info'].includes(app.log.level)) {
    const accessLog = new AccessLog();
    lanes.logTo(accessLog);
    app.addHook('onClose', async () => accessLog.flush());
  }
  app.addHook('onReady', async () => {
    await lanes.ready();
  });
  app.decorateRequest<HostTarget | null>('target', null);
  app.setValidatorCompiler(validatorCompiler);
  // JSON only by default; a surface that takes other bodies (uploads, webhooks) adds its own parser.
  app.removeContentTypeParser('text/plain');
  registerProblemHandlers(app);
  drainUnreadBodies(app);

  // A callback hook, not an async one: it runs on every request, static ones included.
  app.addHook('onRequest', (request, _reply, done) => {
    request.target = request.raw.blumeTarget ?? { kind: 'portal' };
    done();
  });
  // Mail queued by an earlier run (or a node that stopped) goes out once this node is up.
  app.addHook('onReady', async () => {
    await mailOutbox.start();
    await cmsWebhooks.start();
  });
  app.addHook('onClose', async () => {
    await mailOutbox.stop();
    await cmsWebhooks.stop();
    await sites.stop();
    await plans.stop();
    await credentials.stop();
  });

  await app.register(cookie);
  const allowedMethods = new AllowedMethods();
  app.addHook('onRoute', allowedMethods.record);
  // Runs before the rate-limit plugin's own onRoute hook, which reads the route's limit.
  app.addHook('onRoute', defaultApiRateLimit(config.rateLimit.apiPerMinute));
  await app.register(rateLimit, {
    global: false,
    redis: deps.cache.redis,
    nameSpace: `${deps.cache.prefix}rate:`,
    // Redis unreachable: the request goes on (the shared limits in http/rate-limit.ts and the login
    // throttle fall back to per-node counts meanwhile; decision 0070).
    skipOnError: true,
    errorResponseBuilder: (_request, context) =>
      new AppError('rate_limited', `Too many requests; try again in ${Math.ceil(context.ttl / 1000)} s.`, {}, { 'Retry-After': String(Math.ceil(context.ttl / 1000)) }),
  });

  await app.register(settingsPlugin);
  await app.register(healthRoutes);
  await app.register(portalPlugin);
  await app.register(purchasePlugin);
  await app.register(deployPlugin);
  await app.register(instancesPlugin);
  await app.register(forumPlugin);
  await app.register(forumUiPlugin);
  await app.register(consolePlugin);
  await app.register(cmsPlugin);
  await app.register(cmsEditorPlugin);
  await app.register(helpdeskPagesPlugin);
  await app.register(helpdeskPlugin);
  await app.register(mcpPlugin);

  app.setNotFoundHandler((request, reply) => {
    const target = request.target ?? request.raw.blumeTarget;
    if (target && target.kind !== 'portal') {
      const site = sites.peek(target.site);
      if (!site) return sendProblem(reply, new AppError('site_not_found', `No site answers at ${request.hostname}.`));
      // A suspended or canceled site has no surface: every request to its hosts lands here.
      if (site.status !== 'active') return sendProblem(reply, new AppError('site_suspended', `Site "${site.id}" is ${site.status}.`, {}, { 'Retry-After': '3600' }));
    }
    const path = request.url.split('?')[0]!;
    const allow = allowedMethods.allowed(surfaces.peek({ headers: request.headers, remoteAddress: request.socket.remoteAddress })?.surface, path);
    if (allow.length > 0) {
      return sendProblem(reply, new AppError('method_not_allowed', `${request.method} is not allowed on ${path}; it answers ${allow.join(', ')}.`, {}, { Allow: allow.join(', ') }));
    }
    return sendProblem(reply, new AppError('not_found', `No route ${request.method} ${path}.`));
  });

  return app;
}
