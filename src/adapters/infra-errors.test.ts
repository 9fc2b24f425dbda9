// Errors of connections that recover on their own are warned about, not swallowed (issue #14).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestDatabase, testCaches, testDatabases, testRedisUrl } from '../../test/helpers/databases.js';
import { eventually } from '../../test/helpers/eventually.js';
import { startTcpProxy, viaProxy } from '../../test/helpers/tcp-proxy.js';
import { openDatabase } from '../db/client.js';
import { createRedisCache } from './cache/redis.js';

function recorder() {
  const lines: string[] = [];
  return { lines, logger: { warn: (_fields: Record<string, unknown>, message: string) => void lines.push(message) } };
}

describe('infrastructure errors', () => {
  if (testDatabases.includes('postgres')) {
    it('warns when the database drops an idle pooled connection', async () => {
      const testDb = await createTestDatabase('postgres');
      const handle = await openDatabase({ databaseUrl: testDb.url, poolSize: 1 });
      try {
        const { lines, logger } = recorder();
        handle.errors.attach(logger);
        await handle.ping();
        await testDb.handle.db.execute(
          sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`,
        );
        await eventually('the pool to warn', () => lines.find((line) => line.startsWith('database pool: ')));
        // The pool replaces the connection: the next query works.
        await handle.ping();
      } finally {
        await handle.close();
        await testDb.drop();
      }
    });
  }

  if (testCaches.includes('redis')) {
    it('warns when the Redis connections fail, once per source', async () => {
      const redis = new URL(testRedisUrl());
      const proxy = await startTcpProxy({ host: redis.hostname, port: Number(redis.port || 6379) });
      const cache = await createRedisCache(viaProxy(testRedisUrl(), proxy), 'blume-infra-errors:');
      try {
        const { lines, logger } = recorder();
        cache.pubsub.errors.attach(logger);
        await proxy.cut();
        await eventually('both connections to warn', () =>
          lines.some((line) => line.startsWith('redis client: ')) &&
          lines.some((line) => line.startsWith('redis subscriber: '))
            ? true
            : undefined,
        );
        assert.equal(
          lines.filter((line) => line.startsWith('redis client: ')).length,
          1,
          'reconnect attempts within the minute are held back',
        );
      } finally {
        await cache.close();
      }
    });
  }
});
