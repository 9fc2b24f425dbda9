// Decision records stay short and findable: one number each, a title naming it, under 40 lines.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

const folder = new URL('../docs/decisions/', import.meta.url);
const files = readdirSync(folder).filter((name) => name.endsWith('.md'));

describe('docs/decisions', () => {
  it('numbers each record once and titles it with its number', () => {
    const numbers = files.map((name) => /^(\d{4})-[a-z0-9-]+\.md$/.exec(name)?.[1]);
    assert.ok(numbers.every(Boolean), `badly named: ${files.filter((_, i) => !numbers[i]).join(', ')}`);
    assert.equal(new Set(numbers).size, files.length, 'two records share a number');
    for (const [i, name] of files.entries()) {
      const title = readFileSync(new URL(name, folder), 'utf8').split('\n', 1)[0];
      assert.match(title ?? '', new RegExp(`^# ${numbers[i]} \\S`), name);
    }
  });

  it('keeps every record under 40 lines', () => {
    const long = files
      .map((name) => ({ name, lines: readFileSync(new URL(name, folder), 'utf8').trimEnd().split('\n').length }))
      .filter((record) => record.lines >= 40);
    assert.deepEqual(long, []);
  });
});
