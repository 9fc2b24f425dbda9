// The bench notebook stays short and its history machine-readable: bench/README.md holds the latest result of each
// bench, bench/results/<bench>.jsonl every run.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { tablesOf, type BenchRun } from '../bench/lib/history.js';

const results = new URL('../bench/results/', import.meta.url);
const files = readdirSync(results).filter((name) => name.endsWith('.jsonl'));

describe('bench results', () => {
  it('keeps bench/README.md under 400 lines', () => {
    const lines = readFileSync(new URL('../bench/README.md', import.meta.url), 'utf8')
      .trimEnd()
      .split('\n').length;
    assert.ok(lines < 400, `bench/README.md has ${lines} lines`);
  });

  it('parses every line of every bench/results/*.jsonl as a run', () => {
    assert.ok(files.length >= 8, `only ${files.join(', ')}`);
    for (const name of files) {
      const lines = readFileSync(new URL(name, results), 'utf8').split('\n').filter(Boolean);
      assert.ok(lines.length > 0, `${name} is empty`);
      for (const [i, line] of lines.entries()) {
        const run = JSON.parse(line) as BenchRun;
        const where = `${name}:${i + 1}`;
        assert.equal(typeof run.date, 'string', where);
        assert.equal(typeof run.machine, 'string', where);
        assert.ok(run.commit === null || /^[0-9a-f]{7,40}$/.test(run.commit), where);
        assert.ok(Array.isArray(run.figures), where);
        for (const table of run.figures)
          assert.ok(
            table.rows.every((row) => Array.isArray(row)),
            where,
          );
      }
    }
  });

  it('reads printed Markdown tables, escaped pipes included, as tables', () => {
    const { figures, notes } = tablesOf(['Round 1', '| run | line |', '| --- | --- |', '| a | `x \\| y` |', 'done']);
    assert.deepEqual(figures, [{ columns: ['run', 'line'], rows: [['a', '`x | y`']] }]);
    assert.equal(notes, 'Round 1\ndone');
  });

  it('prints a bench history as a table', () => {
    const tsx = new URL('../node_modules/.bin/tsx', import.meta.url).pathname;
    const script = new URL('../scripts/bench-history.ts', import.meta.url).pathname;
    const history = execFileSync(tsx, [script, 'promote'], { encoding: 'utf8' });
    assert.match(history, /^\| run +\| date/);
    assert.match(history, /\| 2 +\| 2026-11-26/);
    const run = execFileSync(tsx, [script, 'promote', '--run', '2'], { encoding: 'utf8' });
    assert.match(run, /Promote with the edge saturated/);
  });
});
