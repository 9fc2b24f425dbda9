import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { relativeTimeText } from './relative-time.js';

describe('relativeTimeText', () => {
  const now = new Date('2025-03-10T12:00:00Z');
  const at = (seconds: number) => relativeTimeText(new Date(now.getTime() + seconds * 1000), now);

  it('names the largest whole unit, past and future', () => {
    assert.equal(at(-20), 'now');
    assert.equal(at(-60), '1 minute ago');
    assert.equal(at(-3 * 3600 - 59 * 60), '3 hours ago');
    assert.equal(at(-26 * 3600), 'yesterday');
    assert.equal(at(-9 * 24 * 3600), 'last week');
    assert.equal(at(-65 * 24 * 3600), '2 months ago');
    assert.equal(at(-800 * 24 * 3600), '2 years ago');
    assert.equal(at(2 * 24 * 3600 + 60), 'in 2 days');
    assert.equal(at(90), 'in 1 minute');
  });
});
