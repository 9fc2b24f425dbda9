import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorReporter } from './error-reporter.js';

function recorder() {
  const lines: Array<{ fields: Record<string, unknown>; message: string }> = [];
  return {
    lines,
    logger: { warn: (fields: Record<string, unknown>, message: string) => lines.push({ fields, message }) },
  };
}

describe('error reporter', () => {
  it('warns once per interval and source, then says how many it held back', () => {
    let now = 1_000;
    const reporter = new ErrorReporter(60_000, () => now);
    const { lines, logger } = recorder();
    reporter.attach(logger);
    reporter.report('redis client', new Error('ECONNREFUSED'));
    reporter.report('redis client', new Error('ECONNREFUSED'));
    reporter.report('redis client', new Error('ECONNREFUSED'));
    reporter.report('pg pool', new Error('terminated'));
    assert.deepEqual(
      lines.map((line) => [line.message, line.fields.held_back]),
      [
        ['redis client: ECONNREFUSED', undefined],
        ['pg pool: terminated', undefined],
      ],
    );
    now += 59_999;
    reporter.report('redis client', new Error('ECONNREFUSED'));
    assert.equal(lines.length, 2);
    now += 1;
    reporter.report('redis client', new Error('ETIMEDOUT'));
    assert.equal(lines.length, 3);
    assert.equal(lines[2]!.message, 'redis client: ETIMEDOUT');
    assert.equal(lines[2]!.fields.held_back, 3);
    assert.ok(lines[2]!.fields.err instanceof Error);
  });

  it('counts what happens before a logger is attached and tells it with the first line', () => {
    const reporter = new ErrorReporter(60_000, () => 5);
    reporter.report('pg pool', new Error('one'));
    reporter.report('pg pool', new Error('two'));
    const { lines, logger } = recorder();
    reporter.attach(logger);
    reporter.report('pg pool', new Error('three'));
    assert.deepEqual(
      lines.map((line) => [line.message, line.fields.held_back]),
      [['pg pool: three', 2]],
    );
  });
});
