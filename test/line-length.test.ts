// Lines a reviewer can read without scrolling: Prettier keeps code to 120 columns, but it cannot break
// template strings (page markup, CSS) or comments, so this check holds the share of source lines
// wider than 120 characters under 1 %. Break a long template line with a `${...}` on lines of its
// own, or with a backslash at the end of the line (the template's text gets nothing from it).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

const root = new URL('../', import.meta.url);
const MAX_WIDTH = 120;
/** The share of lines wider than `MAX_WIDTH` that fails the check. */
const MAX_SHARE = 0.01;

/** Lines in all, and those wider than `MAX_WIDTH` as `file:line (width)`. */
function measure(files: { name: string; text: string }[]): { lines: number; wide: string[] } {
  let lines = 0;
  const wide: string[] = [];
  for (const { name, text } of files) {
    for (const [i, line] of text.split('\n').entries()) {
      lines++;
      if (line.length > MAX_WIDTH) wide.push(`${name}:${i + 1} (${line.length})`);
    }
  }
  return { lines, wide };
}

function sourceFiles(): { name: string; text: string }[] {
  return readdirSync(new URL('src', root), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .sort()
    .map((name) => ({ name: `src/${name}`, text: readFileSync(new URL(`src/${name}`, root), 'utf8') }));
}

describe('line length', () => {
  it('counts the lines wider than 120 characters', () => {
    const long = 'x'.repeat(MAX_WIDTH + 1);
    const { lines, wide } = measure([{ name: 'a.ts', text: `${'x'.repeat(MAX_WIDTH)}\n${long}\nshort` }]);
    assert.equal(lines, 3);
    assert.deepEqual(wide, ['a.ts:2 (121)']);
  });

  it('keeps fewer than 1 % of the lines of src/ wider than 120 characters', () => {
    const { lines, wide } = measure(sourceFiles());
    const share = wide.length / lines;
    const byFile = new Map<string, number>();
    for (const place of wide) byFile.set(place.split(':')[0]!, (byFile.get(place.split(':')[0]!) ?? 0) + 1);
    const worst = [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 20);
    assert.ok(
      share < MAX_SHARE,
      `${wide.length} of ${lines} lines (${(share * 100).toFixed(2)} %) are wider than ${MAX_WIDTH} characters; ` +
        `the files with most:\n${worst.map(([file, count]) => `${count} ${file}`).join('\n')}`,
    );
  });
});
