// Two app nodes on one PostgreSQL database, one Redis and one S3 server, node B reaching each through
// a TCP proxy the test cuts (decisions 0069, 0070). Node A keeps its direct connections: it is the
// healthy node a load balancer would still send traffic to. A static site `news` holds one release
// per edition (its index.html says the edition's name); nothing is promoted yet.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { openDatabase } from '../../src/db/client.js';
import { randomAlnum } from '../../src/lib/ids.js';
import { buildTestApp, signIn, type TestApp } from './app.js';
import { siteArchive } from './archives.js';
import { createTestDatabase, testRedisUrl } from './databases.js';
import { createStaticSite, deployRelease } from './deploy.js';
import { eventually } from './eventually.js';
import { startTcpProxy, viaProxy, type TcpProxy } from './tcp-proxy.js';

/** Whether the services a fault cluster needs are configured; else the test's `skip` reason. */
export const faultClusterSkip =
  process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL ? false : 'needs TEST_DATABASE_URL and TEST_REDIS_URL';

export interface FaultCluster {
  a: TestApp;
  b: TestApp;
  /** Deploy token of `news`. */
  token: string;
  /** Release ids, one per edition, in order. */
  releases: string[];
  /** Node B's ways to PostgreSQL, Redis and the S3 server. */
  proxies: { pg: TcpProxy; redis: TcpProxy; s3: TcpProxy };
  /** Cache key and channel prefix of both nodes (their Redis client names start with it). */
  prefix: string;
  close(): Promise<void>;
}

function proxyTo(url: string, defaultPort: number): Promise<TcpProxy> {
  const parsed = new URL(url);
  return startTcpProxy({ host: parsed.hostname, port: Number(parsed.port || defaultPort) });
}

function s3Env(endpoint: string, prefix: string): Record<string, string> {
  return {
    BLUME_BLOBS: 's3',
    BLUME_S3_BUCKET: 'blume',
    BLUME_S3_ENDPOINT: endpoint,
    BLUME_S3_ACCESS_KEY_ID: 'S3RVER',
    BLUME_S3_SECRET_ACCESS_KEY: 'S3RVER',
    BLUME_S3_PREFIX: `${prefix}/`,
  };
}

export async function startFaultCluster(options: {
  name: string;
  editions: string[];
  env?: Record<string, string>;
}): Promise<FaultCluster> {
  const dir = await mkdtemp(path.join(tmpdir(), `blume-${options.name}-`));
  const s3 = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory: path.join(dir, 's3'),
    configureBuckets: [{ name: 'blume', configs: [] }],
  });
  const { port: s3Port } = (await s3.run()) as { port: number };
  const s3Url = `http://127.0.0.1:${s3Port}`;
  const shared = await createTestDatabase('postgres');
  const proxies = {
    pg: await proxyTo(shared.url!, 5432),
    redis: await proxyTo(testRedisUrl(), 6379),
    s3: await proxyTo(s3Url, 80),
  };
  const bDatabase = await openDatabase({ databaseUrl: viaProxy(shared.url!, proxies.pg), poolSize: 3 });
  const prefix = `blume-test-${randomAlnum(8)}:`;
  const env = options.env ?? {};
  const a = await buildTestApp({
    database: 'postgres',
    sharedDatabase: shared,
    cache: 'redis',
    cachePrefix: prefix,
    env: { ...s3Env(s3Url, options.name), ...env },
  });
  const b = await buildTestApp({
    database: 'postgres',
    sharedDatabase: { handle: bDatabase, drop: () => bDatabase.close() },
    cache: 'redis',
    cachePrefix: prefix,
    env: {
      ...s3Env(viaProxy(s3Url, proxies.s3).replace(/\/$/, ''), options.name),
      BLUME_REDIS_URL: viaProxy(testRedisUrl(), proxies.redis),
      ...env,
    },
  });
  const alice = await signIn(a.app, 'alice');
  const token = await createStaticSite(a.app, alice, 'news');
  const releases: string[] = [];
  for (const edition of options.editions)
    releases.push(await deployRelease(a.app, token, 'news', await siteArchive({ 'index.html': edition })));
  // Each node has heard the other on the bus before the faults begin.
  await eventually('the nodes to hear each other', () =>
    a.cache.pubsub.nodes.peers().includes(b.cache.pubsub.nodes.nodeId) &&
    b.cache.pubsub.nodes.peers().includes(a.cache.pubsub.nodes.nodeId)
      ? true
      : undefined,
  );
  return {
    a,
    b,
    token,
    releases,
    proxies,
    prefix,
    close: async () => {
      for (const proxy of Object.values(proxies)) await proxy.restore();
      await b.close();
      await a.close();
      await shared.drop();
      await s3.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
