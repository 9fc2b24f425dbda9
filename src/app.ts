// buildApp: one Fastify instance with every surface. It never listens; main.ts does, tests inject.
import cookie from '@fastify/cookie';
import rateLimit from '@fastify/rate-limit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { BlobStore } from './adapters/blobs/index.js';
import { CacheEpochs } from './adapters/cache/epochs.js';
import type { CacheAdapter } from './adapters/cache/index.js';
import type { Mailer } from './adapters/mail/index.js';
import { cmsPlugin } from './cms/plugin.js';
import { cmsEditorPlugin } from './cms/ui/plugin.js';
import { helpdeskPagesPlugin } from './helpdesk/ui/plugin.js';
import { helpdeskPlugin, helpdeskRuntimePlugin } from './helpdesk/plugin.js';
import type { Config } from './config/index.js';
import { PlanMatrix } from './core/plans/matrix.js';
import { settingsPlugin } from './core/settings/plugin.js';
import { VerifiedCredentials } from './core/credentials/verified.js';
import { SiteDirectory } from './core/sites/directory.js';
import { DomainDirectory } from './core/sites/domain-directory.js';
import type { DatabaseHandle } from './db/client.js';
import { forumPlugin } from './forum/plugin.js';
import { consolePlugin } from './console/plugin.js';
import { forumUiPlugin } from './forum/ui/plugin.js';
import { healthPlugin } from './health/plugin.js';
import { deployPlugin } from './deploy/plugin.js';
import { AppError } from './http/errors.js';
import type { HostTarget } from './http/hosts.js';
import { registerJsonParser } from './http/json-body.js';
import { registerProblemHandlers, sendProblem } from './http/problem.js';
import { AccessLog, type AccessLogSink } from './http/access-log.js';
import { drainUnreadBodies } from './http/unread-body.js';
import { compressAnswers } from './http/compression.js';
import { conditionalGets } from './http/etags.js';
import { createFastLanes } from './http/fast-lane.js';
import type { FastLane } from './http/lane.js';
import { createSurfaceRouting, type SurfaceRouting } from './http/surface.js';
import { validatorCompiler } from './http/validation.js';
import { defaultApiRateLimit, sharedCacheStore } from './http/rate-limit.js';
import { serializableResponses } from './http/response-schemas.js';
import { instancesPlugin } from './instances/plugin.js';
import { jobsPlugin } from './jobs/plugin.js';
import { ErrorReporter } from './lib/error-reporter.js';
import { AllowedMethods } from './http/allowed-methods.js';
import { LoginThrottle } from './http/login-throttle.js';
import { requestIdFactory } from './lib/ids.js';
import { portalPlugin, siteLlmsPlugin } from './portal/plugin.js';
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
  /** Where the access log writes at `info` and below: standard output unless a test says. */
  accessLogSink?: AccessLogSink;
}

interface AppServices {
  /** The cache seam: every per-node copy is cached on it, and healed by it (decision 0111). */
  epochs: CacheEpochs;
  sites: SiteDirectory;
  /** Which static site each custom domain serves (decision 0142). */
  domains: DomainDirectory;
  /** Which plans include which feature, as every site API checks it. */
  plans: PlanMatrix;
  /** Failed logins per account name and address, shared by every node (decision 0033). */
  loginThrottle: LoginThrottle;
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

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const epochs = new CacheEpochs(deps.database.db, deps.cache.pubsub, {
    answers: config.cacheAnswers,
  });
  await epochs.start();
  const sites = new SiteDirectory(deps.database.db, epochs);
  const plans = new PlanMatrix(deps.database.db, epochs);
  const credentials = new VerifiedCredentials(deps.database.db, epochs);
  const domains = new DomainDirectory(deps.database.db, epochs);

  const surfaces = createSurfaceRouting({
    sitesDomain: config.sitesDomain,
    portalHost: config.publicUrl.hostname.toLowerCase(),
    domains,
    trustProxy: config.trustProxy,
    directory: sites,
    singleSite: deps.mode === 'single' ? deps.singleSite : undefined,
  });
  const httpErrors = new ErrorReporter();
  const lanes = createFastLanes({ warn: (message) => app.log.warn(message), errors: httpErrors });
  const app = Fastify({
    logger: deps.logger ?? { level: config.logLevel },
    // Answers are logged once, in the buffered access log below (decision 0052), not in two lines each.
    logController: new LogController({ disableRequestLogging: true }),
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
  deps.cache.pubsub.conditions.attach(app.log);
  epochs.attach(app.log);
  app.decorate('services', {
    epochs,
    sites,
    domains,
    plans,
    loginThrottle: new LoginThrottle(deps.cache.cache, config.secretKey),
    credentials,
  });
  app.decorate('surfaces', surfaces);
  app.decorate('apiDocuments', []);
  app.decorate('addFastLane', lanes.add);
  // At `info` every answer, the lanes' (decision 0031) and the router's (0052), is one line of a
  // buffered access log: a string per request, one write a second.
  if (['trace', 'debug', 'info'].includes(app.log.level)) {
    const accessLog = new AccessLog(deps.accessLogSink);
    lanes.logTo(accessLog);
    app.addHook('onResponse', (request, reply, done) => {
      accessLog.addRouted({
        reqId: request.id,
        method: request.method,
        url: request.url,
        host: request.headers.host,
        remoteAddress: request.ip,
        status: reply.statusCode,
        responseTimeMs: reply.elapsedTime,
      });
      done();
    });
    app.addHook('onClose', async () => accessLog.flush());
  }
  app.addHook('onReady', async () => {
    await lanes.ready();
  });
  app.decorateRequest<HostTarget | null>('target', null);
  app.setValidatorCompiler(validatorCompiler);
  // JSON only by default; a surface that takes other bodies (uploads, webhooks) adds its own parser.
  app.removeContentTypeParser('text/plain');
  registerJsonParser(app);
  registerProblemHandlers(app);
  drainUnreadBodies(app);
  // Before the compression: an answer's tag is made of its plain bytes when no version names it.
  conditionalGets(app);
  compressAnswers(app);

  // A callback hook, not an async one: it runs on every request, static ones included.
  app.addHook('onRequest', (request, _reply, done) => {
    request.target = request.raw.blumeTarget ?? { kind: 'portal' };
    done();
  });
  app.addHook('onClose', () => epochs.stop());
  // Whatever a write request changed, every node drops its copies before the answer leaves (the
  // epochs its statements moved, announced on the cache bus). Best-effort: `announce` never throws,
  // and a node that misses the message finds the move with its next poll.
  app.addHook('onSend', async (request, _reply, payload) => {
    if (!READS.has(request.method)) await epochs.announce();
    return payload;
  });

  await app.register(cookie);
  app.addHook('onRoute', serializableResponses);
  const allowedMethods = new AllowedMethods();
  app.addHook('onRoute', allowedMethods.record);
  // Runs before the rate-limit plugin's own onRoute hook, which reads the route's limit.
  app.addHook('onRoute', defaultApiRateLimit(config.rateLimit.apiPerMinute));
  await app.register(rateLimit, {
    global: false,
    // Counted in the shared cache, which counts per node while Redis fails (decisions 0070, 0113).
    store: sharedCacheStore(deps.cache.cache),
    errorResponseBuilder: (_request, context) =>
      new AppError(
        'rate_limited',
        `Too many requests; try again in ${Math.ceil(context.ttl / 1000)} s.`,
        {},
        { 'Retry-After': String(Math.ceil(context.ttl / 1000)) },
      ),
  });

  // Each domain builds its own services in its plugin; this only puts the domains together.
  await app.register(settingsPlugin);
  await app.register(jobsPlugin);
  await app.register(healthPlugin);
  await app.register(portalPlugin);
  await app.register(siteLlmsPlugin);
  await app.register(purchasePlugin);
  await app.register(deployPlugin);
  await app.register(instancesPlugin);
  await app.register(forumPlugin);
  await app.register(forumUiPlugin);
  await app.register(consolePlugin);
  await app.register(cmsPlugin);
  await app.register(cmsEditorPlugin);
  await app.register(helpdeskRuntimePlugin);
  await app.register(helpdeskPagesPlugin);
  await app.register(helpdeskPlugin);
  await app.register(mcpPlugin);

  app.setNotFoundHandler((request, reply) => {
    const target = request.target ?? request.raw.blumeTarget;
    if (target && target.kind !== 'portal') {
      const site = sites.peek(target.site);
      if (!site) return sendProblem(reply, new AppError('site_not_found', `No site answers at ${request.hostname}.`));
      // A suspended or canceled site has no surface: every request to its hosts lands here.
      if (site.status !== 'active')
        return sendProblem(
          reply,
          new AppError('site_suspended', `Site "${site.id}" is ${site.status}.`, {}, { 'Retry-After': '3600' }),
        );
    }
    const path = request.url.split('?')[0]!;
    const allow = allowedMethods.allowed(
      surfaces.peek({ headers: request.headers, remoteAddress: request.socket.remoteAddress })?.surface,
      path,
    );
    if (allow.length > 0) {
      return sendProblem(
        reply,
        new AppError(
          'method_not_allowed',
          `${request.method} is not allowed on ${path}; it answers ${allow.join(', ')}.`,
          {},
          { Allow: allow.join(', ') },
        ),
      );
    }
    return sendProblem(reply, new AppError('not_found', `No route ${request.method} ${path}.`));
  });

  return app;
}
