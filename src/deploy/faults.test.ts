// Two nodes on one PostgreSQL database, one Redis and one S3 server, node B reaching each through a
// TCP proxy the test cuts (docs/decisions/0069, 0070). Node A keeps its direct connections: it is the
// healthy node a load balancer would still send traffic to.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import S3rver from 's3rver';
import { buildTestApp, PORTAL_HOST, signIn, type TestApp } from '../../test/helpers/app.js';
import { siteArchive } from '../../test/helpers/archives.js';
import { createTestDatabase, testRedisUrl, type TestDatabase } from '../../test/helpers/databases.js';
import { createStaticSite, deployApi, deployRelease, edge, upload } from '../../test/helpers/deploy.js';
import { eventually } from '../../test/helpers/eventually.js';
import { startTcpProxy, viaProxy, type TcpProxy } from '../../test/helpers/tcp-proxy.js';
import { openDatabase, type DatabaseHandle } from '../db/client.js';
import { randomAlnum } from '../lib/ids.js';

const ready = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);

function proxyTo(url: string, defaultPort: number): Promise<TcpProxy> {
  const parsed = new URL(url);
  return startTcpProxy({ host: parsed.hostname, port: Number(parsed.port || defaultPort) });
}

function s3Env(endpoint: string): Record<string, string> {
  return { BLUME_BLOBS: 's3', BLUME_S3_BUCKET: 'blume', BLUME_S3_ENDPOINT: endpoint, BLUME_S3_ACCESS_KEY_ID: 'S3RVER', BLUME_S3_SECRET_ACCESS_KEY: 'S3RVER', BLUME_S3_PREFIX: 'faults/' };
}

describe('two nodes under faults [postgres, redis, s3]', { skip: ready ? false : 'needs TEST_DATABASE_URL and TEST_REDIS_URL' }, () => {
  let shared: TestDatabase;
  let s3: S3rver;
  let dir: string;
  let proxies: { pg: TcpProxy; redis: TcpProxy; s3: TcpProxy };
  let bDatabase: DatabaseHandle;
  let a: TestApp;
  let b: TestApp;
  let token: string;
  let prefix: string;
  const releases: string[] = [];

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'blume-faults-'));
    s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: path.join(dir, 's3'), configureBuckets: [{ name: 'blume', configs: [] }] });
    const { port: s3Port } = (await s3.run()) as { port: number };
    const s3Url = `http://127.0.0.1:${s3Port}`;
    shared = await createTestDatabase('postgres');
    proxies = { pg: await proxyTo(shared.url!, 5432), redis: await proxyTo(testRedisUrl(), 6379), s3: await proxyTo(s3Url, 80) };
    bDatabase = await openDatabase({ databaseUrl: viaProxy(shared.url!, proxies.pg), poolSize: 3 });
    prefix = `blume-test-${randomAlnum(8)}:`;
    a = await buildTestApp({ database: 'postgres', sharedDatabase: shared, cache: 'redis', cachePrefix: prefix, env: s3Env(s3Url) });
    b = await buildTestApp({
      database: 'postgres',
      sharedDatabase: { handle: bDatabase, drop: () => bDatabase.close() },
      cache: 'redis',
      cachePrefix: prefix,
      env: { ...s3Env(viaProxy(s3Url, proxies.s3).replace(/\/$/, '')), BLUME_REDIS_URL: viaProxy(testRedisUrl(), proxies.redis) },
    });
    const alice = await signIn(a.app, 'alice');
    token = await createStaticSite(a.app, alice, 'news');
    for (const edition of ['monday', 'tuesday', 'wednesday']) releases.push(await deployRelease(a.app, token, 'news', await siteArchive({ 'index.html': edition })));
    const promoted = await deployApi(a.app, token, 'POST', '/api/deploy/news/promote', { release: releases[0] });
    assert.equal(promoted.statusCode, 200, promoted.body);
    // Each node has heard the other on the bus before the faults begin.
    await eventually('the nodes to hear each other', () => (a.cache.pubsub.nodes.peers().includes(b.cache.pubsub.nodes.nodeId) && b.cache.pubsub.nodes.peers().includes(a.cache.pubsub.nodes.nodeId) ? true : undefined));
  });
  after(async () => {
    for (const proxy of Object.values(proxies ?? {})) await proxy.restore().catch(() => undefined);
    await b?.close();
    await a?.close();
    await shared?.drop();
    await s3?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Promotes through node A; node B must serve the release on the request right after the answer. */
  async function promoteAndCheck(release: string, body: string): Promise<{ confirmed: string[]; unconfirmed: string[] }> {
    assert.equal((await edge(b.app, 'news.blume.test', '/')).statusCode, 200, 'node B has the old pointers in memory');
    const promoted = await deployApi(a.app, token, 'POST', '/api/deploy/news/promote', { release });
    assert.equal(promoted.statusCode, 200, promoted.body);
    assert.equal((await edge(b.app, 'news.blume.test', '/')).body, body, 'node B serves the new release once promote answered');
    return (promoted.json() as { propagation: { confirmed: string[]; unconfirmed: string[] } }).propagation;
  }

  it('confirms a promote from every node on the bus', async () => {
    const propagation = await promoteAndCheck(releases[1]!, 'tuesday');
    assert.deepEqual([...propagation.confirmed].sort(), [a.cache.pubsub.nodes.nodeId, b.cache.pubsub.nodes.nodeId].sort());
    assert.deepEqual(propagation.unconfirmed, []);
  });

  it('never answers a promote while node B, its subscriber killed, could still serve the old release', async () => {
    const admin = new Redis(testRedisUrl());
    try {
      // Only node B's subscriber connection: other test files share this Redis.
      const clients = String(await admin.call('CLIENT', 'LIST', 'TYPE', 'pubsub'));
      const name = `${prefix}${b.cache.pubsub.nodes.nodeId}:subscriber`;
      const id = /\bid=(\d+)\b/.exec(clients.split('\n').find((line) => line.includes(` name=${name} `)) ?? '')?.[1];
      assert.ok(id, `node B's subscriber is connected as ${name}`);
      await admin.call('CLIENT', 'KILL', 'ID', id);
    } finally {
      admin.disconnect();
    }
    await promoteAndCheck(releases[2]!, 'wednesday');
  });

  it('waits out the bound for node B when it cannot confirm, and B serves from the database meanwhile', async () => {
    await proxies.redis.cut();
    try {
      const propagation = await promoteAndCheck(releases[0]!, 'monday');
      assert.deepEqual(propagation.unconfirmed, [b.cache.pubsub.nodes.nodeId]);
      assert.deepEqual(propagation.confirmed, [a.cache.pubsub.nodes.nodeId]);
      // Without Redis node B answers its APIs: rate limits and login throttles count per node.
      const releasesList = await deployApi(b.app, token, 'GET', '/api/deploy/news/releases');
      assert.equal(releasesList.statusCode, 200, releasesList.body);
      const login = await b.app.inject({ method: 'POST', url: '/api/auth/login', headers: { host: PORTAL_HOST }, payload: { login: 'alice', password: 'pw-alice-0123456789' } });
      assert.equal(login.statusCode, 200, login.body);
      const health = await b.app.inject({ method: 'GET', url: '/up/databases' });
      assert.equal(health.statusCode, 200, 'a node without Redis stays in the load balancer');
      assert.equal((health.json() as { status: string }).status, 'degraded');
    } finally {
      await proxies.redis.restore();
    }
  });

  it('refuses a promote whose If-Match names a live release that was replaced', async () => {
    const listed = await deployApi(a.app, token, 'GET', '/api/deploy/news/releases');
    const etag = listed.headers.etag as string;
    assert.equal(etag, `"${releases[0]}"`);
    const first = await a.app.inject({ method: 'POST', url: '/api/deploy/news/promote', headers: { host: PORTAL_HOST, authorization: `Bearer ${token}`, 'if-match': etag }, payload: { release: releases[1] } });
    assert.equal(first.statusCode, 200, first.body);
    const second = await b.app.inject({ method: 'POST', url: '/api/deploy/news/promote', headers: { host: PORTAL_HOST, authorization: `Bearer ${token}`, 'if-match': etag }, payload: { release: releases[2] } });
    assert.equal(second.statusCode, 412, second.body);
    assert.equal((second.json() as { code: string; live_release: string }).code, 'live_release_changed');
    assert.equal((second.json() as { live_release: string }).live_release, releases[1]);
    const rollback = await a.app.inject({ method: 'POST', url: '/api/deploy/news/rollback', headers: { host: PORTAL_HOST, authorization: `Bearer ${token}`, 'if-match': '"none"' } });
    assert.equal(rollback.statusCode, 412, 'nothing changes: a release is live');
    assert.equal((await edge(b.app, 'news.blume.test', '/')).body, 'tuesday');
  });

  it('answers 503 for uploads and uncached files while the blob store is down, and the health check says so', async () => {
    const fresh = await siteArchive({ 'index.html': 'thursday', 'extra.html': 'only in the new release' });
    const thursday = await deployRelease(a.app, token, 'news', fresh);
    await deployApi(a.app, token, 'POST', '/api/deploy/news/promote', { release: thursday });
    await proxies.s3.cut();
    try {
      const uploaded = await upload(b.app, token, 'news', await siteArchive({ 'index.html': 'friday' }));
      assert.equal(uploaded.statusCode, 503, uploaded.body);
      assert.equal((uploaded.json() as { code: string }).code, 'blob_store_unavailable');
      assert.ok(uploaded.headers['retry-after']);
      const page = await edge(b.app, 'news.blume.test', '/extra.html');
      assert.equal(page.statusCode, 503, page.body);
      assert.match(String(page.headers['content-type']), /^text\/html/);
      assert.ok(page.headers['retry-after']);
      const health = await b.app.inject({ method: 'GET', url: '/up/databases' });
      assert.equal(health.statusCode, 503);
      assert.equal((health.json() as { checks: Record<string, { status: string }> }).checks.blob_store!.status, 'fail');
    } finally {
      await proxies.s3.restore();
    }
    assert.equal((await edge(b.app, 'news.blume.test', '/extra.html')).body, 'only in the new release');
  });

  it('answers 503 database_unavailable with Retry-After, never 500, while the database is down', async () => {
    await proxies.pg.cut();
    try {
      const listed = await deployApi(b.app, token, 'GET', '/api/deploy/news/releases');
      assert.equal(listed.statusCode, 503, listed.body);
      assert.equal((listed.json() as { code: string }).code, 'database_unavailable');
      assert.ok(listed.headers['retry-after']);
      // The epoch read fails too, so node B stops trusting its pointers and says it cannot serve.
      const page = await eventually('the edge to notice', async () => {
        const answer = await edge(b.app, 'news.blume.test', '/');
        return answer.statusCode === 503 ? answer : undefined;
      });
      assert.match(String(page.headers['content-type']), /^text\/html/);
      assert.equal((await b.app.inject({ method: 'GET', url: '/up/databases' })).statusCode, 503);
    } finally {
      await proxies.pg.restore();
    }
    await eventually('node B to serve again', async () => ((await edge(b.app, 'news.blume.test', '/')).statusCode === 200 ? true : undefined));
  });
});
