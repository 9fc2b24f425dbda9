// The server on PostgreSQL and Redis: health goes 503 naming the failing check when either goes
// away, and a database that is down at start stops the server with a clear message.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { runBlume, startBlume } from '../helpers/process.js';
import { startTcpProxy, viaProxy } from '../helpers/tcp-proxy.js';

const postgresUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;

describe('blume on PostgreSQL and Redis', { skip: !postgresUrl || !redisUrl ? 'needs TEST_DATABASE_URL and TEST_REDIS_URL' : false }, () => {
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

  it('answers /up/databases 503 naming the database, then the cache, when each goes away', async () => {
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
      // runBlume blocks this process, and with it the in-process proxies: the command goes direct.
      const direct = { ...env, DATABASE_URL: database.url!, BLUME_REDIS_URL: redisUrl! };
      const created = runBlume(['create-admin', '-u', 'admin', '-e', 'admin@example.test', '-p', 'correct horse battery'], direct);
      assert.equal(created.status, 0, created.stderr);
      assert.doesNotMatch(created.stdout, /running server/, 'PostgreSQL mode needs no control socket');
      const healthy = await fetch(`${server.url}/up/databases`);
      assert.equal(healthy.status, 200);

      await redisProxy.cut();
      const noCache = await fetch(`${server.url}/up/databases`);
      assert.equal(noCache.status, 503);
      const noCacheBody = (await noCache.json()) as { checks: Record<string, { status: string }> };
      assert.equal(noCacheBody.checks.cache!.status, 'fail');
      assert.equal(noCacheBody.checks.database!.status, 'ok');

      await pgProxy.cut();
      const down = await fetch(`${server.url}/up/databases`);
      assert.equal(down.status, 503);
      const body = (await down.json()) as { status: string; checks: Record<string, { status: string; error?: string }> };
      assert.equal(body.status, 'fail');
      assert.equal(body.checks.database!.status, 'fail');
      assert.ok(body.checks.database!.error);
      assert.equal((await fetch(`${server.url}/up/`)).status, 200, 'liveness does not depend on the database');
    } finally {
      await server.stop();
    }
  });

  it('exits non-zero with a clear message when the database is down at start', async () => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 });
    await proxy.cut();
    const result = await startBlume([], { BLUME_DATA_DIR: dataDir, DATABASE_URL: viaProxy(database.url!, proxy) }).then(
      (server) => server.stop().then(() => 'started'),
      (error: Error) => error.message,
    );
    assert.match(result, /exited with 1/);
    assert.match(result, /Cannot reach the database at postgres:\/\/postgres@127\.0\.0\.1:\d+\/blume_t_/);
  });
});
