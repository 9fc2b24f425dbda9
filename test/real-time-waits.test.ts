// No test waits on wall-clock time: a test waits on the event itself (test/helpers/eventually.ts probes
// the real state) or moves an injected clock. This check fails on a literal timer of 100 ms or more
// in a *.test.ts file: `sleep(200)`, `delay(1_000)`, `setTimeout(resolve, 250)`. Deadlines that only
// fire when a test fails (`setTimeout(() => reject(...), 5000)`) are not waits.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

const root = new URL('../', import.meta.url);
// Known and explained: the fault-load run paces its promotes through a fixed schedule of outages (the
// scenario's own rhythm, not a wait for an event). Remove the entry when that test is event-driven.
const KNOWN = new Set(['test/reliability/fault-load.test.ts:122']);
const WAIT = /\b(?:sleep|delay)\(\s*([\d_]+)\s*\)|\bsetTimeout\(\s*(?:resolve|res|r|next)\s*,\s*([\d_]+)\s*\)/g;

function testFiles(): string[] {
  return ['src', 'test'].flatMap((folder) =>
    readdirSync(new URL(folder, root), { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.test.ts') && name !== 'real-time-waits.test.ts')
      .map((name) => `${folder}/${name}`),
  );
}

/** Each wait of 100 ms or more as `file:line: text`. */
function realTimeWaits(file: string, text: string): string[] {
  const found: string[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim().startsWith('//') || KNOWN.has(`${file}:${i + 1}`)) continue;
    for (const match of line.matchAll(WAIT)) {
      const ms = Number((match[1] ?? match[2])!.replaceAll('_', ''));
      if (ms >= 100) found.push(`${file}:${i + 1}: ${line.trim()}`);
    }
  }
  return found;
}

describe('tests and real time', () => {
  it('finds literal waits of 100 ms or more', () => {
    const sample = 'await sleep(1100);\nawait sleep(20);\nsetTimeout(resolve, 250)\nsetTimeout(() => reject(e), 5000)';
    assert.deepEqual(realTimeWaits('x.test.ts', sample), [
      'x.test.ts:1: await sleep(1100);',
      'x.test.ts:3: setTimeout(resolve, 250)',
    ]);
  });

  it('has no test wait 100 ms or more of real time through a literal timer', () => {
    const waits = testFiles().flatMap((file) => realTimeWaits(file, readFileSync(new URL(file, root), 'utf8')));
    assert.deepEqual(waits, []);
  });
});
