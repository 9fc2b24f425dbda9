// The PostgreSQL pool as the server opens it: its sessions' settings, and a connection that drops
// while a transaction holds it fails that transaction and nothing else; the process keeps running (a
// client in use has no listener of the pool's, and an unheard 'error' event would end the process).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestDatabase, testDatabases, type TestDatabase } from '../../test/helpers/databases.js';
import { startTcpProxy, viaProxy, type TcpProxy } from '../../test/helpers/tcp-proxy.js';
import { openDatabase, queryRows, type DatabaseHandle } from './client.js';

describe(
  'PostgreSQL pool [postgres]',
  { skip: !testDatabases.includes('postgres') && 'TEST_DATABASE_URL is not set' },
  () => {
    let database: TestDatabase;
    let proxy: TcpProxy;
    let handle: DatabaseHandle;

    before(async () => {
      database = await createTestDatabase('postgres', { migrate: false });
      const url = new URL(database.url!);
      proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
      handle = await openDatabase({ databaseUrl: viaProxy(database.url!, proxy), poolSize: 2 });
    });
    after(async () => {
      await handle?.close();
      await database?.drop();
    });

    it('opens sessions that plan as the prepared statements expect and compile nothing', async () => {
      const settings = await queryRows<{ name: string; setting: string }>(
        handle.db,
        sql`select name, setting from pg_settings
            where name in ('plan_cache_mode', 'max_parallel_workers_per_gather', 'jit') order by name`,
      );
      assert.deepEqual(settings, [
        { name: 'jit', setting: 'off' },
        { name: 'max_parallel_workers_per_gather', setting: '0' },
        { name: 'plan_cache_mode', setting: 'force_generic_plan' },
      ]);
    });

    it('fails a transaction whose connection drops between statements, and keeps serving', async () => {
      const uncaught: unknown[] = [];
      const onUncaught = (error: unknown): void => {
        uncaught.push(error);
      };
      // node:test turns an uncaught exception into a failure of whichever test runs; counting them
      // here names this one.
      process.prependListener('uncaughtException', onUncaught);
      // The pool tells its reporter when a client hears its connection end: the event this test waits on.
      let heard!: () => void;
      const connectionEnded = new Promise<void>((resolve) => (heard = resolve));
      handle.errors.attach({ warn: () => heard() });
      try {
        await assert.rejects(
          handle.db.transaction(async (tx) => {
            await tx.execute(sql`select 1`);
            await proxy.cut();
            // The client hears its connection end while no statement of it runs.
            await connectionEnded;
            await tx.execute(sql`select 2`);
          }),
        );
        await proxy.restore();
        assert.deepEqual(await queryRows<{ n: number }>(handle.db, sql`select 3 as n`), [{ n: 3 }]);
        assert.deepEqual(uncaught, []);
      } finally {
        process.off('uncaughtException', onUncaught);
      }
    });
  },
);
