// The server on PostgreSQL and Redis: health goes 503 naming the failing check when either goes
// away (and back to 200 when Redis returns), and a database or a configured Redis that is down at
// start stops the server with one line naming the URL, password hidden, and the cause (decision 0026).
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.js';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { runBlume, startBlume } from '../helpers/process.js';
import { startTcpProxy, viaProxy } from '../helpers/tcp-proxy.js';

const postgresUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;

describe(
  'blume on PostgreSQL and Redis',
  { skip: !postgresUrl || !redisUrl ? 'needs TEST_DATABASE_URL and TEST_REDIS_URL' : false },
  () => {
    let database: TestDatabase;
    let dataDir: string;

    before(async () => {
      database = await createTestDatabase('postgres', { migrate: false });
      dataDir = await mkdtemp(path.join(tmpdir(), 'blume-pg-'));
    });
    after(async () => {
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    });

    it('answers /up/databases degraded without the cache and 503 without the database', async () => {
      const pgProxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(database.url!).port || 5432) });
      const redisProxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(redisUrl!).port || 6379) });
      const env = {
        BLUME_DATA_DIR: dataDir,
        DATABASE_URL: viaProxy(database.url!, pgProxy),
        BLUME_REDIS_ENABLED: 'True',
        BLUME_REDIS_URL: viaProxy(redisUrl!, redisProxy),
      };
      const server = await startBlume([], env);
      try {
        const created = await runBlume(
          ['create-admin', '-u', 'admin', '-e', 'admin@example.test', '-p', 'correct horse battery'],
          env,
        );
        assert.equal(created.status, 0, created.stderr);
        assert.doesNotMatch(created.stdout, /running server/, 'PostgreSQL mode needs no control socket');
        const healthy = await fetch(`${server.url}/up/databases`);
        assert.equal(healthy.status, 200);

        await redisProxy.cut();
        const noCache = await fetch(`${server.url}/up/databases`);
        assert.equal(noCache.status, 200, 'a node serves without Redis: the load balancer keeps it');
        const noCacheBody = (await noCache.json()) as { status: string; checks: Record<string, { status: string }> };
        assert.equal(noCacheBody.status, 'degraded');
        assert.equal(noCacheBody.checks.cache!.status, 'fail');
        assert.equal(noCacheBody.checks.database!.status, 'ok');

        // Redis back: the node reconnects by itself.
        await redisProxy.restore();
        const deadline = Date.now() + 20_000;
        let back = '';
        while (
          Date.now() < deadline &&
          (back = ((await (await fetch(`${server.url}/up/databases`)).json()) as { status: string }).status) !== 'ok'
        )
          await new Promise((resolve) => setTimeout(resolve, 50));
        assert.equal(back, 'ok', 'healthy again once Redis is back');

        await pgProxy.cut();
        const down = await fetch(`${server.url}/up/databases`);
        assert.equal(down.status, 503);
        const body = (await down.json()) as {
          status: string;
          checks: Record<string, { status: string; error?: string }>;
        };
        assert.equal(body.status, 'fail');
        assert.equal(body.checks.database!.status, 'fail');
        assert.ok(body.checks.database!.error);
        assert.equal((await fetch(`${server.url}/up/`)).status, 200, 'liveness does not depend on the database');
      } finally {
        await server.stop();
      }
    });

    it('exits non-zero with one line naming the database and the cause when it is down at start', async () => {
      const proxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 });
      await proxy.cut();
      const url = new URL(viaProxy(database.url!, proxy));
      url.password = 'hunter2-secret';
      const result = await runBlume(['serve', '--single'], {
        BLUME_DATA_DIR: dataDir,
        BLUME_BIND: '127.0.0.1:0',
        DATABASE_URL: url.toString(),
      });
      assert.equal(result.status, 1);
      assert.equal(result.stdout, '');
      assert.match(
        result.stderr,
        /^blume: Cannot reach the database at postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/blume_t_\w+: .*ECONNREFUSED.*\n$/,
      );
      assert.doesNotMatch(result.stderr, /hunter2/);
    });

    it('exits non-zero with one line naming Redis and the cause when a configured Redis is down at start, changing nothing', async () => {
      const proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(redisUrl!).port || 6379) });
      await proxy.cut();
      const url = new URL(viaProxy(redisUrl!, proxy));
      url.password = 'hunter2-secret';
      const fresh = await createTestDatabase('postgres', { migrate: false });
      try {
        const env = {
          BLUME_DATA_DIR: dataDir,
          BLUME_BIND: '127.0.0.1:0',
          DATABASE_URL: fresh.url!,
          BLUME_REDIS_ENABLED: 'True',
          BLUME_REDIS_URL: url.toString(),
        };
        const result = await runBlume(['serve', '--single'], env);
        assert.equal(result.status, 1);
        assert.match(
          result.stderr,
          /^blume: Cannot reach Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:\d+\/?: .*ECONNREFUSED.*\n$/,
        );
        assert.doesNotMatch(result.stderr, /hunter2/);
        const [tables] = await queryRows<{ present: boolean }>(
          fresh.handle.db,
          sql`select to_regclass('public.installation') is not null as present`,
        );
        assert.equal(tables!.present, false, 'nothing was migrated or installed');
        // The same for a one-off command.
        const command = await runBlume(
          ['create-admin', '-u', 'admin', '-e', 'admin@example.test', '-p', 'correct horse battery', '--single'],
          env,
        );
        assert.equal(command.status, 1);
        assert.match(command.stderr, /^blume: Cannot reach Redis at /);
      } finally {
        await fresh.drop();
      }
    });
  },
);
