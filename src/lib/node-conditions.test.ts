import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { missedMessages, NodeConditions } from './node-conditions.js';

function logged(): {
  lines: string[];
  logger: { warn: (f: object, m: string) => void; info: (f: object, m: string) => void };
} {
  const lines: string[] = [];
  return {
    lines,
    logger: {
      warn: (_fields, message) => void lines.push(`warn ${message}`),
      info: (_f, m) => void lines.push(`info ${m}`),
    },
  };
}

describe('node conditions', () => {
  it('lists a condition until it recovers, logging its start and its end once each', () => {
    const conditions = new NodeConditions();
    const { lines, logger } = logged();
    conditions.attach(logger);
    assert.deepEqual(conditions.checks(), {});
    conditions.degraded('pubsub', 'not heard for 3 s');
    conditions.degraded('pubsub', 'not heard for 4 s');
    assert.deepEqual(conditions.checks(), { pubsub: { status: 'fail', error: 'not heard for 4 s' } });
    conditions.recovered('pubsub', 'heard again');
    conditions.recovered('pubsub');
    assert.deepEqual(conditions.checks(), {});
    assert.equal(lines.length, 2);
    assert.match(lines[0]!, /^warn node degraded: pubsub: not heard for 3 s$/);
    assert.match(lines[1]!, /^info node no longer degraded: pubsub, after [\d.]+ s; heard again$/);
  });

  it('ends a reported event by itself once no report came for its time', () => {
    let now = 1_000;
    const conditions = new NodeConditions(() => now);
    const { lines, logger } = logged();
    conditions.attach(logger);
    missedMessages(conditions)('the sites epoch moved unannounced');
    now += 20_000;
    missedMessages(conditions)('again');
    now += 20_000;
    assert.deepEqual(Object.keys(conditions.checks()), ['invalidations']);
    now += 10_001;
    assert.deepEqual(conditions.checks(), {});
    assert.deepEqual(
      lines.map((line) => line.split(':')[0]),
      ['warn node degraded', 'info node no longer degraded'],
    );
  });
});
