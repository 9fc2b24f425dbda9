import assert from 'node:assert/strict';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { collectYoungGeneration, exposeGarbageCollector } from './young-gc.js';

describe('collectYoungGeneration', () => {
  it('collects in the main thread without a gc global there', () => {
    const hadGlobal = typeof (globalThis as { gc?: unknown }).gc === 'function';
    collectYoungGeneration();
    collectYoungGeneration();
    assert.equal(typeof (globalThis as { gc?: unknown }).gc === 'function', hadGlobal);
  });

  it('gives worker threads started after exposeGarbageCollector a gc() to call', async () => {
    exposeGarbageCollector();
    const worker = new Worker(`require('node:worker_threads').parentPort.postMessage(typeof gc === 'function' && (gc({ type: 'minor' }), true))`, { eval: true });
    const [answer] = (await once(worker, 'message')) as [boolean];
    assert.equal(answer, true);
    await worker.terminate();
  });
});
