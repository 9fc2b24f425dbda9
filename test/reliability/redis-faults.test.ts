// A node whose Redis fails (decisions 0070, 0113), on a redis-server of the test's own: killed (-9),
// stopped with its connections open (-STOP), and the node's pub/sub silently cut by a proxy that
// holds what Redis sends it. A committed write is never answered 500 and is written exactly once;
// reads do not wait on a Redis that does not answer, beyond the first request that found out; a node
// that stops hearing its own heartbeat says `degraded` on /up/databases until it hears it again.
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import { sql, type SQL } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import { COMMAND_TIMEOUT_MS } from '../../src/adapters/cache/breaker.js';
import { queryRows } from '../../src/db/client.js';
import { cmsApi, mintApiKey } from '../factories/cms.js';
import { forumApi, makeCommunity, mintForumToken } from '../factories/forum.js';
import { helpdeskApi } from '../factories/helpdesk.js';
import { buildTestApp, json, portal, PORTAL_HOST, signIn, type Actor, type TestApp } from '../helpers/app.js';
import { siteArchive } from '../helpers/archives.js';
import { testDatabases } from '../helpers/databases.js';
import { createStaticSite, deployApi, upload } from '../helpers/deploy.js';
import { eventually } from '../helpers/eventually.js';
import { UiClient } from '../helpers/forum-ui.js';
import { redisServerSkip, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { startTcpProxy, viaProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

/** Limits high enough that the test's own requests never meet them. */
const ENV = { BLUME_RATE_API_PER_MINUTE: '100000', BLUME_RATE_LOGIN_PER_MINUTE: '1000' };

interface Health {
  status: string;
  checks: Record<string, { status: string; error?: string }>;
}

async function health(t: TestApp): Promise<{ code: number; body: Health }> {
  const answer = await portal(t.app, undefined, { method: 'GET', url: '/up/databases' });
  return { code: answer.statusCode, body: json<Health>(answer) };
}

/** Resolves once /up/databases answers 200 `ok`: Redis answers and the node hears its heartbeat. */
const healthy = (t: TestApp, what: string) =>
  eventually(what, async () => {
    const { code, body } = await health(t);
    return code === 200 && body.status === 'ok' ? true : undefined;
  });

/** A community `club` with a forum, a static site `news`, and credentials for every API. */
interface Fixture {
  owner: Actor;
  deployToken: string;
  forumToken: string;
  cmsKey: string;
  helpdeskKey: string;
  consoleUi: UiClient;
}

async function setUp(t: TestApp): Promise<Fixture> {
  const owner = await signIn(t.app, 'owner');
  const deployToken = await createStaticSite(t.app, owner, 'news');
  await makeCommunity(t.app, owner, 'club', 'business');
  const forumToken = await mintForumToken(t.app, 'club', 'owner', owner.password);
  const forum = await forumApi(t.app, 'club', forumToken, {
    method: 'POST',
    path: '/forums',
    payload: { name: 'General', slug: 'general' },
  });
  assert.equal(forum.statusCode, 201, forum.body);
  const consoleUi = new UiClient(t.app, PORTAL_HOST);
  await consoleUi.login('owner', owner.password);
  await consoleUi.get('/sites/new');
  return {
    owner,
    deployToken,
    forumToken,
    cmsKey: await mintApiKey(t.app, owner, 'club', ['cms-write']),
    helpdeskKey: await mintApiKey(t.app, owner, 'club', ['helpdesk-write']),
    consoleUi,
  };
}

/** One write through one API, and how many rows it wrote (by a mark only it carries). */
interface Write {
  api: string;
  send(mark: string): Promise<LightMyRequestResponse>;
  written(mark: string): Promise<number>;
}

function writesThroughEveryApi(t: TestApp, f: Fixture): Write[] {
  const count = async (query: SQL): Promise<number> =>
    Number((await queryRows<{ n: number | string }>(t.app.deps.database.db, query))[0]!.n);
  /** The release the upload made, which the promote makes live. */
  let uploaded = '';
  return [
    {
      api: 'deploy (upload)',
      send: async (mark) => {
        const answer = await upload(t.app, f.deployToken, 'news', await siteArchive({ 'index.html': mark }));
        if (answer.statusCode === 201) uploaded = json<{ id: string }>(answer).id;
        return answer;
      },
      // The release's id is in the answer only: the site's releases are counted.
      written: () => count(sql`select count(*) as n from deploy_releases where site_id = 'news'`),
    },
    {
      api: 'deploy (promote)',
      send: () => deployApi(t.app, f.deployToken, 'POST', '/api/deploy/news/promote', { release: uploaded }),
      written: () => count(sql`select count(*) as n from deploy_promotions where site_id = 'news'`),
    },
    {
      api: 'forum',
      send: (mark) =>
        forumApi(t.app, 'club', f.forumToken, {
          method: 'POST',
          path: '/topics',
          payload: { forum_id: 'general', title: mark, body: `Written while Redis fails: ${mark}.` },
        }),
      written: (mark) => count(sql`select count(*) as n from forum_topics where title = ${mark}`),
    },
    {
      api: 'CMS',
      send: (mark) =>
        cmsApi(t.app, 'club', f.cmsKey, {
          method: 'POST',
          path: '/entries/articles',
          payload: { slug: mark, status: 'published', data: { title: mark } },
        }),
      written: (mark) => count(sql`select count(*) as n from cms_entries where slug = ${mark}`),
    },
    {
      api: 'help desk',
      send: (mark) =>
        helpdeskApi(
          t.app,
          'club',
          { key: f.helpdeskKey },
          {
            method: 'POST',
            path: '/tickets',
            payload: { subject: mark, body: 'Please help.', requester: { email: 'erin@example.test', name: 'Erin' } },
          },
        ),
      written: (mark) => count(sql`select count(*) as n from helpdesk_tickets where subject = ${mark}`),
    },
    {
      api: 'instance settings',
      send: (mark) =>
        portal(t.app, f.owner, { method: 'PUT', url: '/api/instances/club/env', payload: { FORUM_TITLE: mark } }),
      written: (mark) =>
        count(
          sql`select count(*) as n from site_settings where site_id = 'club' and desired->>'FORUM_TITLE' = ${mark}`,
        ),
    },
    {
      api: 'console form',
      send: (mark) => f.consoleUi.post('/sites', { id: mark, kind: 'static' }),
      written: (mark) => count(sql`select count(*) as n from sites where id = ${mark}`),
    },
  ];
}

/** Sends each write once; every one answers 2xx having written once, or 503 having written nothing. */
async function writeThroughEveryApi(writes: Write[], phase: string): Promise<void> {
  for (const write of writes) {
    const mark = `${phase}-${write.api.replace(/\W+/g, '-')}-${Math.random().toString(36).slice(2, 8)}`.toLowerCase();
    const before = await write.written(mark);
    const answer = await write.send(mark);
    const written = (await write.written(mark)) - before;
    const what = `${write.api} ${phase}: ${answer.statusCode} ${answer.body.slice(0, 300)}`;
    if (answer.statusCode === 503) {
      assert.ok(answer.headers['retry-after'], what);
      assert.equal(written, 0, `${what}: a refused write wrote nothing`);
    } else {
      assert.ok(answer.statusCode >= 200 && answer.statusCode < 400, what);
      assert.equal(written, 1, `${what}: written exactly once`);
    }
  }
}

/** Times each request of `send` in turn, in ms. */
async function timed(sends: (() => Promise<LightMyRequestResponse>)[], expect: number[]): Promise<number[]> {
  const durations: number[] = [];
  for (const [i, send] of sends.entries()) {
    const start = performance.now();
    const answer = await send();
    durations.push(performance.now() - start);
    assert.equal(answer.statusCode, expect[i], answer.body);
  }
  return durations;
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

for (const database of testDatabases) {
  describe(`a node whose Redis is killed or stopped [${database}]`, { skip: redisServerSkip }, () => {
    let redis: RedisServer;
    let t: TestApp;
    let f: Fixture;

    before(async () => {
      redis = await startRedisServer();
      t = await buildTestApp({ database, cache: 'redis', env: { ...ENV, BLUME_REDIS_URL: redis.url } });
      f = await setUp(t);
      await healthy(t, 'the node to hear its heartbeat');
    });
    after(async () => {
      await t?.close();
      await redis?.close();
    });

    it('answers every write through every API with its own 2xx once, or a 503 that wrote nothing, with Redis killed', async () => {
      const writes = writesThroughEveryApi(t, f);
      await writeThroughEveryApi(writes, 'up');
      await redis.kill();
      try {
        // The first round meets the broken connection, the second the open breaker.
        await writeThroughEveryApi(writes, 'killed');
        await writeThroughEveryApi(writes, 'still-killed');
        const { code, body } = await health(t);
        assert.equal(code, 200);
        assert.equal(body.status, 'degraded');
        assert.equal(body.checks.cache?.status, 'fail');
      } finally {
        await redis.start();
      }
      await healthy(t, 'the node to use Redis again once it is back');
      await writeThroughEveryApi(writes, 'back');
    });

    it('answers reads without waiting on a stopped Redis, and counts in Redis again once it answers', async () => {
      let logins = 0;
      const reads = [
        () => forumApi(t.app, 'club', f.forumToken, { method: 'GET', path: '/topics?forum_id=general' }),
        () => cmsApi(t.app, 'club', f.cmsKey, { method: 'GET', path: '/entries/articles' }),
        () => helpdeskApi(t.app, 'club', { key: f.helpdeskKey }, { method: 'GET', path: '/tickets' }),
        () => deployApi(t.app, f.deployToken, 'GET', '/api/deploy/news/releases'),
        () => portal(t.app, f.owner, { method: 'GET', url: '/api/instances/club/env' }),
        () => portal(t.app, f.owner, { method: 'GET', url: '/api/sites' }),
        // A failed login (a new name each time, so no account locks): the route's own limit, then the login throttle.
        () =>
          portal(t.app, undefined, {
            method: 'POST',
            url: '/api/auth/login',
            payload: { login: `nobody-${(logins += 1)}`, password: 'not the password' },
          }),
        () => forumApi(t.app, 'club', f.forumToken, { method: 'GET', path: '/forums' }),
      ];
      const expected = [200, 200, 200, 200, 200, 200, 401, 200];
      const rounds = [...reads, ...reads, ...reads];
      const expectedRounds = [...expected, ...expected, ...expected];
      await timed(reads, expected);
      const baseline = await timed(rounds, expectedRounds);

      redis.stop();
      try {
        const stopped = await timed(rounds, expectedRounds);
        // Before the breaker, each of these requests waited a full command timeout (or several).
        assert.ok(
          median(stopped) < median(baseline) + COMMAND_TIMEOUT_MS,
          `with Redis stopped a request takes ${median(stopped).toFixed(0)} ms (median), with Redis up ${median(baseline).toFixed(0)} ms`,
        );
        const waited = stopped.map((ms) => ms > COMMAND_TIMEOUT_MS + 2 * Math.max(...baseline));
        assert.ok(
          !waited.some((slow, i) => slow && waited[i + 1]),
          `no two requests in a row wait on Redis: ${stopped.map((ms) => ms.toFixed(0)).join(', ')} ms`,
        );
        // Writes on top: they commit and answer without waiting for their broadcasts' echoes.
        await writeThroughEveryApi(writesThroughEveryApi(t, f), 'stopped');
      } finally {
        redis.resume();
      }

      await healthy(t, 'the node to use Redis again once it answers');
      const admin = new Redis(redis.url);
      try {
        await t.cache.cache.increment('after-resume', 60);
        assert.equal(await admin.get(`${t.cache.prefix}after-resume`), '1', 'counted in Redis, not on the node');
      } finally {
        admin.disconnect();
      }
    });
  });

  describe(`a node whose pub/sub is silently cut [${database}]`, { skip: redisServerSkip }, () => {
    let redis: RedisServer;
    let proxy: TcpProxy;
    let t: TestApp;
    let f: Fixture;

    before(async () => {
      redis = await startRedisServer();
      proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(redis.url).port) });
      const url = viaProxy(redis.url, proxy);
      t = await buildTestApp({ database, cache: 'redis', env: { ...ENV, BLUME_REDIS_URL: url } });
      f = await setUp(t);
      await healthy(t, 'the node to hear its heartbeat');
    });
    after(async () => {
      proxy?.release();
      await t?.close();
      await proxy?.cut();
      await redis?.close();
    });

    it('reports degraded on /up/databases within seconds, writes without waiting for echoes, and ok again after', async () => {
      // Only the subscriber connection goes silent: commands still answer.
      proxy.hold(/subscribe/i);
      const { body } = await eventually(
        'the node to notice it does not hear the bus',
        async () => {
          const answer = await health(t);
          return answer.body.status === 'degraded' ? answer : undefined;
        },
        10_000,
      );
      assert.equal(body.checks.pubsub?.status, 'fail');
      assert.match(body.checks.pubsub?.error ?? '', /heartbeat/);
      assert.equal(body.checks.cache?.status, 'ok');
      assert.equal(body.checks.database?.status, 'ok');

      // Each of these used to wait the full echo timeout (2 s) for a message that could not come back.
      const topics = await timed(
        [1, 2, 3].map(
          (n) => () =>
            forumApi(t.app, 'club', f.forumToken, {
              method: 'POST',
              path: '/topics',
              payload: { forum_id: 'general', title: `Cut ${n}`, body: 'Written while the bus is cut.' },
            }),
        ),
        [201, 201, 201],
      );
      assert.ok(sum(topics) < 3 * 2_000, `three writes took ${topics.map((ms) => ms.toFixed(0)).join(', ')} ms`);

      proxy.release();
      await eventually(
        'the node to hear the bus again',
        async () => ((await health(t)).body.status === 'ok' ? true : undefined),
        10_000,
      );
    });
  });
}
