import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { describe, it } from 'node:test';
import { NodeConditions } from '../../lib/node-conditions.js';
import { COMMAND_TIMEOUT_MS, RedisBreaker, RedisUnavailable } from './breaker.js';

const never = (): Promise<string> => new Promise(() => {});

describe('Redis breaker', () => {
  it('fails a silent command after the timeout, then every command at once until the probe answers', async () => {
    let answering = false;
    let probed: () => void = () => {};
    const probedOnce = new Promise<void>((resolve) => (probed = resolve));
    const conditions = new NodeConditions();
    const breaker = new RedisBreaker(async () => {
      probed();
      if (!answering) throw new Error('no answer');
    }, conditions);
    try {
      assert.equal(await breaker.run(async () => 'PONG'), 'PONG');
      const start = performance.now();
      await assert.rejects(breaker.run(never), /no answer within/);
      assert.ok(performance.now() - start >= COMMAND_TIMEOUT_MS - 5);
      assert.equal(conditions.checks().redis?.status, 'fail');
      await assert.rejects(breaker.run(never), RedisUnavailable);
      await probedOnce;
      answering = true;
      // The next probe closes it.
      for (;;) {
        try {
          assert.equal(await breaker.run(async () => 'PONG'), 'PONG');
          break;
        } catch (error) {
          assert.ok(error instanceof RedisUnavailable);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
      assert.deepEqual(conditions.checks(), {});
    } finally {
      breaker.stop();
    }
  });

  it('stays closed on an error reply, and on an answer that waited behind a blocked event loop', async () => {
    const conditions = new NodeConditions();
    const breaker = new RedisBreaker(async () => {}, conditions);
    try {
      const reply = Object.assign(new Error('WRONGTYPE'), { name: 'ReplyError' });
      await assert.rejects(
        breaker.run(() => Promise.reject(reply)),
        /WRONGTYPE/,
      );
      // An answer that arrives while the loop is blocked past the timeout is read before the timeout counts.
      const answered = breaker.run(
        () => new Promise<string>((resolve) => setTimeout(() => resolve('late but there'), COMMAND_TIMEOUT_MS - 50)),
      );
      const blockedUntil = Date.now() + COMMAND_TIMEOUT_MS + 100;
      while (Date.now() < blockedUntil);
      assert.equal(await answered, 'late but there');
      assert.deepEqual(conditions.checks(), {});
    } finally {
      breaker.stop();
    }
  });
});
