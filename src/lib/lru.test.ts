import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WeightedLru } from './lru.js';

describe('WeightedLru', () => {
  it('drops the least recently used values past the weight bound', () => {
    const lru = new WeightedLru<string, string>(6, (value) => value.length);
    lru.set('a', 'aa');
    lru.set('b', 'bb');
    assert.equal(lru.get('a'), 'aa');
    lru.set('c', 'ccc');
    assert.equal(lru.get('b'), undefined);
    assert.equal(lru.get('a'), 'aa');
    assert.equal(lru.get('c'), 'ccc');
    lru.delete('a');
    lru.set('d', 'ddd');
    assert.equal(lru.get('c'), 'ccc');
  });

  it('spares a value used since it was stored, once', () => {
    const lru = new WeightedLru<string, string>(3, (value) => value.length);
    lru.set('a', 'a');
    lru.set('b', 'b');
    lru.set('c', 'c');
    lru.get('a');
    lru.set('d', 'd');
    assert.deepEqual(
      ['a', 'b', 'c', 'd'].map((key) => lru.get(key) !== undefined),
      [true, false, true, true],
    );
    // Every flag is now set (c, d, a in that order): the scan clears them and the oldest goes.
    lru.set('e', 'e');
    assert.deepEqual(
      ['a', 'c', 'd', 'e'].map((key) => lru.get(key) !== undefined),
      [true, false, true, true],
    );
  });

  it('shares one load between concurrent misses and keeps only what it is told to', async () => {
    const lru = new WeightedLru<string, string>(100, (value) => value.length);
    let loads = 0;
    const load = async () => {
      loads += 1;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return 'value';
    };
    const [first, second] = await Promise.all([lru.getOrLoad('k', load), lru.getOrLoad('k', load)]);
    assert.equal(first, 'value');
    assert.equal(second, 'value');
    assert.equal(loads, 1);
    assert.equal(lru.getOrLoad('k', load), 'value');
    assert.equal(await lru.getOrLoad('big', load, () => false), 'value');
    assert.equal(lru.get('big'), undefined);
  });
});
