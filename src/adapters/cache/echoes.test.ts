import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorReporter } from '../../lib/error-reporter.js';
import { Echoes } from './echoes.js';

describe('echoes', () => {
  it('warns when a broadcast is not heard back in time, and not when it is', async () => {
    const lines: string[] = [];
    const errors = new ErrorReporter();
    errors.attach({ warn: (_fields, message) => void lines.push(message) });
    const echoes = new Echoes(errors);
    await echoes.publishAndWait((nonce) => Promise.resolve(echoes.received(nonce)), 5_000);
    assert.deepEqual(lines, []);
    await echoes.publishAndWait(() => Promise.resolve(), 20);
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, /^pub\/sub echo: a broadcast was not heard back within 20 ms/);
    // Not subscribed: no echo is waited for, and none is missed.
    await echoes.publishAndWait(() => Promise.resolve(), 0);
    assert.equal(lines.length, 1);
  });

  it('does not wait when no echo can come, and never throws after a write committed', async () => {
    const lines: string[] = [];
    const errors = new ErrorReporter();
    errors.attach({ warn: (_fields, message) => void lines.push(message) });
    const echoes = new Echoes(errors);
    // The message was not sent, or this node does not hear the bus: a wait of a minute ends at once.
    await echoes.publishAndWait(() => Promise.resolve(false), 60_000);
    assert.deepEqual(lines, []);
    await echoes.publishAndWait(() => Promise.reject(new Error("Stream isn't writeable")), 60_000);
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, /^pub\/sub broadcast: Stream isn't writeable/);
  });
});
