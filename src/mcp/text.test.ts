// A result's text carries its data as JSON, clipped per string and bounded as a whole.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resultText } from './text.js';

describe('resultText', () => {
  it('is the summary, then the data as compact JSON', () => {
    assert.equal(resultText('One post.', { posts: [{ body: 'Hello' }] }), 'One post.\n{"posts":[{"body":"Hello"}]}');
  });

  it('clips long strings, saying how much is left out, and stops at a bound', () => {
    const long = resultText('Long.', { body: 'x'.repeat(5_000) });
    assert.match(long, /"x{2000}… \[3000 more characters in structuredContent\]"/);
    const many = resultText('Many.', { posts: Array.from({ length: 40 }, () => ({ body: 'y'.repeat(1_500) })) });
    assert.ok(many.length < 24_200, String(many.length));
    assert.match(many, /the result is cut at 24000 characters; ask for a smaller page_size\]$/);
  });
});
