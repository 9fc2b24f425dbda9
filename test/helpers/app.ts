// buildTestApp: the real app on a fresh database, with the real cache (memory or Redis) and a local
// blob store in a temporary folder. Tests talk to it with `app.inject`.
import { randomUUID } from 'node:crypto';
import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { OperationContext } from '../../src/cli/operation-context.js';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { createBlobStore } from '../../src/adapters/blobs/index.js';
import { createCache, type CacheAdapter } from '../../src/adapters/cache/index.js';
import { createMailer, type Mailer } from '../../src/adapters/mail/index.js';
import { buildApp, type AppDeps } from '../../src/app.js';
import { loadConfig, type Config, type Env } from '../../src/config/index.js';
import { createAccount } from '../../src/core/accounts/service.js';
import type { UserRow } from '../../src/core/accounts/tables.js';
import { seedFeatures } from '../../src/core/plans/service.js';
import { createSite } from '../../src/core/sites/service.js';
import { randomAlnum } from '../../src/lib/ids.js';
import { createTestDatabase, testRedisUrl, type CacheKind, type DatabaseKind, type TestDatabase } from './databases.js';

export const PORTAL_HOST = 'blume.test';

export interface TestAppOptions {
  database: DatabaseKind;
  cache?: CacheKind;
  env?: Env;
  mode?: AppDeps['mode'];
  singleSite?: string;
  /** Share a database made by the caller (several app nodes on one database). */
  sharedDatabase?: TestDatabase;
  /** Cache key and channel prefix; nodes of one test deployment share it to hear each other. */
  cachePrefix?: string;
  /** Defaults to the mailer BLUME_MAIL_* in `env` selects (disabled unless a server is set). */
  mailer?: Mailer;
  /** Pino options for the app's log (default: no log), and where its access log writes. */
  logger?: AppDeps['logger'];
  accessLogSink?: AppDeps['accessLogSink'];
}

export interface TestApp {
  app: FastifyInstance;
  config: Config;
  deps: AppDeps;
  cache: CacheAdapter;
  testDatabase: TestDatabase;
  dataDir: string;
  close(): Promise<void>;
}

const ROOT = path.join(import.meta.dirname, '../..');

/**
 * The test file that is building an app, from the call's stack: in a process that several quick
 * files share (decision 0144), `process.argv[1]` names the shared entry, not the file.
 */
function callingTestFile(): string {
  for (const line of new Error().stack?.split('\n') ?? []) {
    const found = /(?:file:\/\/)?(\/[^\s:()]+\.test\.ts)\b/.exec(line);
    if (found) return path.relative(ROOT, found[1]!);
  }
  return path.relative(ROOT, process.argv[1] ?? '');
}

export async function buildTestApp(options: TestAppOptions): Promise<TestApp> {
  const caller = callingTestFile();
  const dataDir = await mkdtemp(path.join(tmpdir(), 'blume-test-'));
  const cacheKind = options.cache ?? 'memory';
  const config = loadConfig({
    BLUME_DATA_DIR: dataDir,
    BLUME_PUBLIC_URL: `http://${PORTAL_HOST}`,
    SECRET_KEY: 'test-secret-key-test-secret-key-test-secret-key',
    BLUME_LOG_LEVEL: 'silent',
    BLUME_REDIS_ENABLED: cacheKind === 'redis' ? 'True' : 'False',
    BLUME_REDIS_URL: cacheKind === 'redis' ? (options.env?.BLUME_REDIS_URL ?? testRedisUrl()) : undefined,
    // Test clients send forms at once; the sign-up time trap has its own test.
    BLUME_SIGNUP_MIN_SECONDS: '0',
    ...options.env,
  });
  const testDatabase = options.sharedDatabase ?? (await createTestDatabase(options.database));
  await seedFeatures(testDatabase.handle.db);
  const cache = await createCache(config, options.cachePrefix ?? `blume-test-${randomAlnum(8)}:`);
  const blobs = await createBlobStore(config.blobs);
  const mailer = options.mailer ?? (await createMailer(config.mail));
  const deps: AppDeps = {
    config,
    database: testDatabase.handle,
    cache,
    blobs,
    mailer,
    mode: options.mode ?? 'platform',
    singleSite: options.singleSite,
    logger: options.logger ?? false,
    accessLogSink: options.accessLogSink,
  };
  const app = await buildApp(deps);
  const statusLog = process.env.BLUME_RECORD_STATUSES;
  if (statusLog) {
    // test/openapi-statuses.test.ts: which status each API route really answered, to compare with
    // the route's OpenAPI document, and in which test file, on which database and cache.
    const where = `${caller} ${testDatabase.handle.driver} ${cacheKind}`;
    app.addHook('onResponse', async (request, reply) => {
      const route = request.routeOptions.url;
      if (route?.startsWith('/api/'))
        await appendFile(statusLog, `${where} ${request.method} ${route} ${reply.statusCode}\n`);
    });
  }
  await app.ready();
  return {
    app,
    config,
    deps,
    cache,
    testDatabase,
    dataDir,
    close: async () => {
      await app.close();
      await cache.close();
      await mailer.close();
      if (!options.sharedDatabase) await testDatabase.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Actor {
  user: UserRow;
  cookie: string;
  password: string;
}

/** Creates an account and logs it in through the API; answers the session cookie. */
export async function signIn(
  app: FastifyInstance,
  username: string,
  options: { admin?: boolean } = {},
): Promise<Actor> {
  const password = `pw-${username}-0123456789`;
  const user = await createAccount(app.deps.database.db, {
    username,
    email: `${username}@example.test`,
    password,
    isAdmin: options.admin ?? false,
  });
  const response = await app.inject({
    method: 'POST',
    url: '/api/auth/login',
    headers: { host: PORTAL_HOST },
    payload: { login: username, password },
  });
  if (response.statusCode !== 200) throw new Error(`login failed: ${response.body}`);
  const cookie = response.cookies.find((c) => c.name === 'blume_session');
  return { user, cookie: `blume_session=${cookie!.value}`, password };
}

/** `app.inject` on the portal host, as the actor when one is given. */
export function portal(
  app: FastifyInstance,
  actor: Actor | undefined,
  options: InjectOptions,
): Promise<LightMyRequestResponse> {
  return app.inject({
    ...options,
    headers: { host: PORTAL_HOST, ...(actor ? { cookie: actor.cookie } : {}), ...options.headers },
  } as InjectOptions);
}

export function json<T = Record<string, unknown>>(response: LightMyRequestResponse): T {
  return response.json() as T;
}

export interface TwoNodes {
  a: TestApp;
  b: TestApp;
  /** The one database both nodes use. */
  shared: TestDatabase;
  close(): Promise<void>;
}

/** Two app nodes on one fresh database and one Redis namespace, as two processes of one instance are. */
export async function buildTwoNodes(database: DatabaseKind, env?: Env): Promise<TwoNodes> {
  const shared = await createTestDatabase(database);
  const cachePrefix = `blume-test-${randomAlnum(8)}:`;
  const a = await buildTestApp({ database, sharedDatabase: shared, cache: 'redis', cachePrefix, env });
  const b = await buildTestApp({ database, sharedDatabase: shared, cache: 'redis', cachePrefix, env });
  return {
    a,
    b,
    shared,
    close: async () => {
      await a.close();
      await b.close();
      await shared.drop();
    },
  };
}

/**
 * Resolves once the node of `cache` has heard every broadcast published before the call: its own
 * marker comes back on the one connection that brings it the others, after them. Nodes in one test
 * share this process, so a request injected into one right after a change on another may otherwise
 * run before its event loop reads the change off its socket.
 */
export async function caughtUp(cache: CacheAdapter): Promise<void> {
  const marker = randomUUID();
  let heard!: () => void;
  const back = new Promise<void>((resolve) => (heard = resolve));
  const unsubscribe = await cache.pubsub.subscribe('test-caught-up', (message) => {
    if (message === marker) heard();
  });
  try {
    await cache.pubsub.publish('test-caught-up', marker);
    await back;
  } finally {
    await unsubscribe();
  }
}

/**
 * A second app node on the test app's database and cache: the same in-memory cache, or its own
 * connection to the same Redis namespace, as another process would have.
 */
export async function startSecondNode(
  t: TestApp,
): Promise<{ app: FastifyInstance; caughtUp(): Promise<void>; close(): Promise<void> }> {
  const cache = t.cache.driver === 'redis' ? await createCache(t.config, t.cache.prefix) : t.cache;
  const app = await buildApp({ ...t.deps, cache });
  await app.ready();
  return {
    app,
    caughtUp: () => caughtUp(cache),
    close: async () => {
      await app.close();
      if (cache !== t.cache) await cache.close();
    },
  };
}

/** What an operator command run by this app's process gets, as `blume serve` hands it (src/cli/serve.ts). */
export function operationsOf(app: FastifyInstance, singleSite?: string): OperationContext {
  return {
    database: app.deps.database,
    singleSite,
    blobs: app.deps.blobs,
    edge: app.deploy.cache,
    epochs: app.services.epochs,
    secretKey: app.deps.config.secretKey,
  };
}

/**
 * A single-instance app on PGlite for the browser tests: the community `town` on `plan`, its
 * creation announced, and logins not throttled.
 */
export async function buildTownInstance(plan: 'free' | 'pro' | 'business', env: Env = {}): Promise<TestApp> {
  const t = await buildTestApp({
    database: 'pglite',
    mode: 'single',
    singleSite: 'town',
    env: { BLUME_RATE_LOGIN_PER_MINUTE: '100', ...env },
  });
  await createSite(t.app.deps.database.db, null, { id: 'town', kind: 'community', plan });
  await t.app.services.epochs.announce();
  return t;
}
