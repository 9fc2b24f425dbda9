// Decision records stay short and findable: one number each, a title naming it, under 40 lines, and a
// Status line that says whether the record still holds or which later record overtook it.
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

  it('keeps every record near 400 words', () => {
    // ~400 words with a little room; the cap stops notebooks (figures belong in bench/results/).
    const long = files
      .map((name) => ({ name, words: readFileSync(new URL(name, folder), 'utf8').split(/\s+/).filter(Boolean).length }))
      .filter((record) => record.words > 420);
    assert.deepEqual(long, []);
  });

  it('gives every record a Status line under its title, naming successors that exist', () => {
    const numbers = new Set(files.map((name) => name.slice(0, 4)));
    const status =
      /^Status: (accepted|superseded by (\d{4})|amended by (\d{4}(?: \([^)]*\))?(?:(?:, | and )\d{4}(?: \([^)]*\))?)*))(?:[.\s(]|$)/;
    for (const name of files) {
      const firstLine = readFileSync(new URL(name, folder), 'utf8')
        .split('\n')
        .slice(1)
        .find((line) => line.trim());
      const match = status.exec(firstLine ?? '');
      assert.ok(match, `${name}: the line under the title is not a Status line: ${firstLine}`);
      const successors = [match[2], ...(match[3]?.match(/\d{4}/g) ?? [])].filter((n) => n !== undefined);
      for (const successor of successors) {
        assert.ok(numbers.has(successor), `${name} names ${successor}, which has no record`);
        assert.notEqual(successor, name.slice(0, 4), `${name} names itself as its successor`);
      }
    }
  });
});
