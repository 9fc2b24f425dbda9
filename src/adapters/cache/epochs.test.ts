// The cache seam on its own, over a real database: a kept value holds until its scope moves, found
// by a poll or heard in a message; the off switch turns answers off and keeps directories; each
// cache counts hits, misses and evictions; a move no message announced is counted as missed; a
// cache that tells what a change affects keeps values through described moves, by poll and message.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { createTestDatabase, testDatabases, type TestDatabase } from '../../../test/helpers/databases.js';
import { eventually } from '../../../test/helpers/eventually.js';
import { queryRows } from '../../db/client.js';
import { CacheEpochs } from './epochs.js';
import { createMemoryCache } from './memory.js';
import type { CacheAdapter } from './types.js';

for (const database of testDatabases) {
  describe(`cache epochs [${database}]`, () => {
    let shared: TestDatabase;
    let bus: CacheAdapter;
    let epochs: CacheEpochs;
    const move = (scope: string) => shared.handle.db.execute(sql`select cache_epochs_move(array[${scope}]::text[])`);

    before(async () => {
      shared = await createTestDatabase(database);
      bus = createMemoryCache();
      // Polled by hand: the test says when.
      epochs = new CacheEpochs(shared.handle.db, bus.pubsub, { answers: false, pollMs: 3_600_000 });
      await epochs.start();
    });
    after(async () => {
      await epochs.stop();
      await bus.close();
      await shared.drop();
    });

    it('keeps a directory value until its scope moves; answers are not kept when switched off', async () => {
      const directory = epochs.cache<number>({ name: 'directory', kind: 'directory', maxBytes: 1024 });
      const answers = epochs.cache<number>({ name: 'answers', kind: 'answer', maxBytes: 1024 });
      let loads = 0;
      const load = async () => ++loads;
      assert.equal(await directory.cached('s:1', 'k', load), 1);
      assert.equal(await directory.cached('s:1', 'k', load), 1, 'kept');
      assert.equal(await answers.cached('s:1', 'k', load), 2);
      assert.equal(await answers.cached('s:1', 'k', load), 3, 'answers off: never kept');
      await move('s:2');
      assert.deepEqual(await epochs.poll(), ['s:2']);
      assert.equal(await directory.cached('s:1', 'k', load), 1, 'another scope moved');
      await move('s:1');
      assert.deepEqual(await epochs.poll(), ['s:1']);
      assert.equal(await directory.cached('s:1', 'k', load), 4, 'its scope moved: loaded anew');
      assert.deepEqual(await epochs.poll(), [], 'a move is found once');
      assert.deepEqual(directory.takeStats(), {
        cache: 'directory',
        kind: 'directory',
        hits: 2,
        misses: 2,
        evictions: 0,
        entries: 1,
        bytes: 64 + 2,
        max_bytes: 1024,
      });
      assert.equal(directory.takeStats(), undefined, 'no use since: nothing to log');
    });

    it('reads the epoch every node reads alike, and trusts nothing kept from before an epoch it read', async () => {
      const directory = epochs.cache<number>({ name: 'tagged', kind: 'directory', maxBytes: 1024 });
      let loads = 0;
      const load = async () => ++loads;
      assert.equal(await directory.cached('s:7', 'k', load), 1);
      await move('s:7');
      // No poll yet: the node keeps what it read, but an epoch read now is newer than that.
      assert.equal(await epochs.epochOf('s:7'), 1);
      assert.equal(await directory.cached('s:7', 'k', load), 2, 'the epoch read moved the scope here');
      assert.equal(await directory.cached('s:7', 'k', load), 2, 'kept under it');
      await move('s:7');
      assert.equal(await epochs.epochOf('s:7'), 1, 'held while this node learned of no move');
      assert.deepEqual(await epochs.poll(), ['s:7']);
      assert.equal(await epochs.epochOf('s:7'), 2, 'the poll told it');
      assert.equal(await directory.cached('s:7', 'k', load), 3);
      assert.equal(await epochs.epochOf('s:never'), 0, 'a scope never moved');
    });

    it('evicts past its bound, and counts it', async () => {
      const small = epochs.cache<string>({ name: 'small', kind: 'directory', maxBytes: 400, weigh: () => 100 });
      for (const key of ['a', 'b', 'c']) await small.cached('s:3', key, async () => key);
      assert.equal(small.takeStats()!.evictions, 1);
    });

    it("logs each used cache's counters and what the caches hold when it stops", async () => {
      const own = createMemoryCache();
      const node = new CacheEpochs(shared.handle.db, own.pubsub, { answers: true, pollMs: 3_600_000 });
      const lines: Array<{ message: string; fields: Record<string, unknown> }> = [];
      node.attach({
        info: (fields, message) => lines.push({ message, fields }),
        warn: () => {},
      });
      await node.start();
      const pages = node.cache<string>({ name: 'pages', kind: 'answer', maxBytes: 4096 });
      node.cache<string>({ name: 'unused', kind: 'answer', maxBytes: 4096 });
      await pages.cached('s:7', 'k', async () => 'page');
      await pages.cached('s:7', 'k', async () => 'page');
      await node.stop();
      await own.close();
      assert.deepEqual(
        lines.map((line) => line.message),
        ['cache pages', 'caches'],
      );
      assert.equal(lines[0]!.fields.hits, 1);
      assert.equal(lines[0]!.fields.misses, 1);
      assert.equal(lines[1]!.fields.bytes, lines[0]!.fields.bytes);
      assert.ok((lines[1]!.fields.rss as number) > 0 && (lines[1]!.fields.heap_used as number) > 0);
    });

    it('drops at once on a message, and counts only a move no message announced', async () => {
      // A node of its own: moves made before it started are none of its business, even where a
      // transaction open elsewhere (another database of the cluster) holds the poll's horizon back.
      const open = shared.url ? new pg.Client({ connectionString: shared.url }) : undefined;
      await open?.connect();
      await open?.query('begin; select pg_current_xact_id()');
      await move('s:6');
      const own = createMemoryCache();
      const node = new CacheEpochs(shared.handle.db, own.pubsub, { answers: true, pollMs: 3_600_000 });
      await node.start();
      await open?.end();
      try {
        const directory = node.cache<number>({ name: 'heard', kind: 'directory', maxBytes: 1024 });
        let loads = 0;
        const load = async () => ++loads;
        await directory.cached('s:4', 'k', load);
        await move('s:4');
        await own.pubsub.publish('cache:epochs', JSON.stringify({ scopes: ['s:4'], nonce: 'n' }));
        assert.equal(await directory.cached('s:4', 'k', load), 2, 'dropped on the message');
        assert.deepEqual(await node.poll(), ['s:4'], 'the poll finds the move the message announced');
        await move('s:5');
        assert.deepEqual(await node.poll(), ['s:5']);
        await eventually('the unannounced move to be counted', async () => {
          await node.poll();
          return node.missed > 0 ? true : undefined;
        });
        assert.equal(node.missed, 1, 'only the move no message announced');
        assert.ok(node.missedWithin(60_000));
      } finally {
        await node.stop();
        await own.close();
      }
    });

    it('keeps through a described move what none of its changes affect, found by a poll or heard in a message', async () => {
      const bus = createMemoryCache();
      const nodes = [0, 1].map(
        () => new CacheEpochs(shared.handle.db, bus.pubsub, { answers: true, pollMs: 3_600_000 }),
      );
      for (const node of nodes) await node.start();
      const [a, b] = nodes as [CacheEpochs, CacheEpochs];
      const describe = (changes: unknown) =>
        shared.handle.db.execute(sql`select cache_epochs_move_described(${JSON.stringify({ 's:9': changes })}::jsonb)`);
      try {
        const kept = b.cache<string>({
          name: 'described',
          kind: 'answer',
          maxBytes: 1024,
          affected: (value, change) => (change as { key: string }).key === value,
        });
        const loads: string[] = [];
        const read = (key: string) => kept.cached('s:9', key, async () => (loads.push(key), key));
        // A scope with no row when the nodes started stood at epoch 0: its first move is told too.
        await read('x');
        await read('y');
        await describe([{ key: 'z' }]);
        await a.poll();
        assert.deepEqual(await b.poll(), ['s:9']);
        await read('x');
        await read('y');
        assert.deepEqual(loads, ['x', 'y'], 'kept through a change of neither');
        await describe([{ key: 'x' }]);
        assert.deepEqual(await b.poll(), ['s:9']);
        await read('x');
        await read('y');
        assert.deepEqual(loads, ['x', 'y', 'x'], 'only the value its change affected is read anew');
        await describe([{ key: 'y' }]);
        await a.announce();
        await read('x');
        await read('y');
        assert.deepEqual(loads, ['x', 'y', 'x', 'y'], 'the message carried the change');
        assert.deepEqual(await b.poll(), [], 'the poll finds the move the message applied');
        await describe(null);
        await b.poll();
        await read('x');
        await read('y');
        assert.deepEqual(loads, ['x', 'y', 'x', 'y', 'x', 'y'], 'a statement that filed nothing ends every value');
        await move('s:9');
        await b.poll();
        await read('x');
        assert.deepEqual(loads.length, 7, 'as does another trigger');
        const [filed] = await queryRows<{ n: number }>(
          shared.handle.db,
          sql`select count(*)::int as n from cache_changes where scope = 's:9'`,
        );
        assert.equal(filed!.n, 3, 'each described move filed once');
        // The last 256 moves' changes are kept, each in its slot: a node further behind can tell
        // nothing, and ends every value.
        for (let i = 0; i < 300; i += 1) await describe([{ key: 'neither' }]);
        const [kept256] = await queryRows<{ n: number; oldest: number }>(
          shared.handle.db,
          sql`select count(*)::int as n, min(epoch)::int as oldest from cache_changes where scope = 's:9'`,
        );
        const [{ epoch }] = (await queryRows<{ epoch: number }>(
          shared.handle.db,
          sql`select epoch::int as epoch from cache_epochs where scope = 's:9'`,
        )) as [{ epoch: number }];
        assert.deepEqual(kept256, { n: 256, oldest: epoch - 255 }, 'the last 256 moves, no more');
        await b.poll();
        await read('x');
        assert.deepEqual(loads.length, 8, 'a move past what is kept ends every value');
        await describe([{ key: 'neither' }]);
        await b.poll();
        await read('x');
        assert.deepEqual(loads.length, 8, 'and the next described move is told again');
      } finally {
        for (const node of nodes) await node.stop();
        await bus.close();
      }
    });
  });
}
