// Two nodes on one PostgreSQL database, one Redis and one S3 server, node B reaching each through a
// TCP proxy the test cuts (docs/decisions/0069, 0070). Node A keeps its direct connections: it is the
// healthy node a load balancer would still send traffic to.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { PORTAL_HOST, type TestApp } from '../../test/helpers/app.js';
import { siteArchive } from '../../test/helpers/archives.js';
import { testRedisUrl } from '../../test/helpers/databases.js';
import { deployApi, deployRelease, edge, upload } from '../../test/helpers/deploy.js';
import { eventually } from '../../test/helpers/eventually.js';
import { faultClusterSkip, startFaultCluster, type FaultCluster } from '../../test/helpers/fault-cluster.js';

describe('two nodes under faults [postgres, redis, s3]', { skip: faultClusterSkip }, () => {
  let cluster: FaultCluster;
  let a: TestApp;
  let b: TestApp;
  let token: string;
  let prefix: string;
  let proxies: FaultCluster['proxies'];
  let releases: string[];

  before(async () => {
    cluster = await startFaultCluster({ name: 'faults', editions: ['monday', 'tuesday', 'wednesday'] });
    ({ a, b, token, prefix, proxies, releases } = cluster);
    const promoted = await deployApi(a.app, token, 'POST', '/api/deploy/news/promote', { release: releases[0] });
    assert.equal(promoted.statusCode, 200, promoted.body);
  });
  after(() => cluster?.close());

  /** Promotes through node A; node B must serve the release on the request right after the answer. */
  async function promoteAndCheck(
    release: string,
    body: string,
  ): Promise<{ confirmed: string[]; unconfirmed: string[] }> {
    assert.equal((await edge(b.app, 'news.blume.test', '/')).statusCode, 200, 'node B has the old pointers in memory');
    const promoted = await deployApi(a.app, token, 'POST', '/api/deploy/news/promote', { release });
    assert.equal(promoted.statusCode, 200, promoted.body);
    assert.equal(
      (await edge(b.app, 'news.blume.test', '/')).body,
      body,
      'node B serves the new release once promote answered',
    );
    return (promoted.json() as { propagation: { confirmed: string[]; unconfirmed: string[] } }).propagation;
  }

  it('confirms a promote from every node on the bus', async () => {
    const propagation = await promoteAndCheck(releases[1]!, 'tuesday');
    assert.deepEqual(
      [...propagation.confirmed].sort(),
      [a.cache.pubsub.nodes.nodeId, b.cache.pubsub.nodes.nodeId].sort(),
    );
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
      const login = await b.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        headers: { host: PORTAL_HOST },
        payload: { login: 'alice', password: 'pw-alice-0123456789' },
      });
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
    const first = await a.app.inject({
      method: 'POST',
      url: '/api/deploy/news/promote',
      headers: { host: PORTAL_HOST, authorization: `Bearer ${token}`, 'if-match': etag },
      payload: { release: releases[1] },
    });
    assert.equal(first.statusCode, 200, first.body);
    const second = await b.app.inject({
      method: 'POST',
      url: '/api/deploy/news/promote',
      headers: { host: PORTAL_HOST, authorization: `Bearer ${token}`, 'if-match': etag },
      payload: { release: releases[2] },
    });
    assert.equal(second.statusCode, 412, second.body);
    assert.equal((second.json() as { code: string; live_release: string }).code, 'live_release_changed');
    assert.equal((second.json() as { live_release: string }).live_release, releases[1]);
    const rollback = await a.app.inject({
      method: 'POST',
      url: '/api/deploy/news/rollback',
      headers: { host: PORTAL_HOST, authorization: `Bearer ${token}`, 'if-match': '"none"' },
    });
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
    await eventually('node B to serve again', async () =>
      (await edge(b.app, 'news.blume.test', '/')).statusCode === 200 ? true : undefined,
    );
  });
});
