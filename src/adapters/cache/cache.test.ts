import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { randomAlnum } from '../../lib/ids.js';
import { testCaches, testRedisUrl } from '../../../test/helpers/databases.js';
import { eventually } from '../../../test/helpers/eventually.js';
import { createMemoryCache } from './memory.js';
import { createRedisCache } from './redis.js';
import type { CacheAdapter } from './types.js';

for (const kind of testCaches) {
  describe(`cache adapter [${kind}]`, () => {
    const prefix = `blume-test-${randomAlnum(8)}:`;
    let a: CacheAdapter;
    let b: CacheAdapter;

    // Two adapters on one prefix stand for two app nodes.
    before(async () => {
      a = kind === 'redis' ? await createRedisCache(testRedisUrl(), prefix) : createMemoryCache(prefix);
      b = kind === 'redis' ? await createRedisCache(testRedisUrl(), prefix) : a;
    });
    after(async () => {
      await a.close();
      if (b !== a) await b.close();
    });

    it('stores, reads, expires and deletes values', async () => {
      await a.cache.set('k', 'v');
      assert.equal(await b.cache.get('k'), 'v');
      await a.cache.delete('k');
      assert.equal(await b.cache.get('k'), undefined);
      await a.cache.set('short', 'v', 1);
      assert.equal(await a.cache.get('short'), 'v');
      await eventually(
        'the value to expire',
        async () => ((await a.cache.get('short')) === undefined ? true : undefined),
        3_000,
      );
    });

    it('counts in a window shared by every node', async () => {
      assert.equal((await a.cache.increment('hits', 1)).count, 1);
      assert.equal((await b.cache.increment('hits', 1)).count, 2);
      assert.equal((await a.cache.increment('hits', 1)).count, 3);
      await eventually(
        'the window to end',
        async () => ((await b.cache.get('hits')) === undefined ? true : undefined),
        3_000,
      );
      assert.equal((await b.cache.increment('hits', 1)).count, 1);
    });

    it('delivers published messages to subscribers on every node until they unsubscribe', async () => {
      const received: string[] = [];
      const unsubscribe = await b.pubsub.subscribe('chan', (message) => received.push(message));
      await a.pubsub.publish('chan', 'one');
      await a.pubsub.publish('other', 'ignored');
      await eventually('the message', () => (received.length === 1 ? true : undefined), 2_000);
      assert.deepEqual(received, ['one']);
      await unsubscribe();
      // Messages reach a node in the order they were published: once a later one on another channel
      // arrived, the one after the unsubscribe would have too.
      const markers: string[] = [];
      await b.pubsub.subscribe('marker', (message) => markers.push(message));
      await a.pubsub.publish('chan', 'two');
      await a.pubsub.publish('marker', 'after');
      await eventually('the marker', () => (markers.length === 1 ? true : undefined), 2_000);
      assert.deepEqual(received, ['one']);
    });

    it('answers ping', async () => {
      await a.cache.ping();
    });
  });
}
