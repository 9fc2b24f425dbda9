import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonDepthWithin, MAX_JSON_DEPTH } from './json-depth.js';

describe('jsonDepthWithin', () => {
  const nested = (depth: number): unknown => {
    let value: unknown = 1;
    for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
    return value;
  };

  it('counts arrays and objects as levels and scalars as none', () => {
    assert.equal(jsonDepthWithin('text', 0), true);
    assert.equal(jsonDepthWithin(null, 0), true);
    assert.equal(jsonDepthWithin([], 0), false);
    assert.equal(jsonDepthWithin(nested(MAX_JSON_DEPTH)), true);
    assert.equal(jsonDepthWithin(nested(MAX_JSON_DEPTH + 1)), false);
    assert.equal(jsonDepthWithin({ wide: Array.from({ length: 10_000 }, () => ({ x: [1] })) }), true);
  });

  it('measures a value a million levels deep without overflowing the stack', () => {
    assert.equal(jsonDepthWithin(nested(1_000_000)), false);
  });
});
