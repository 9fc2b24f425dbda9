// Scavenges on demand come from the `--expose-gc` start flag, never from changing V8's flags while
// the process runs (Node documents `v8.setFlagsFromString` after start as unsafe).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { canCollectYoungGeneration, collectYoungGeneration } from './young-gc.js';

/** A worker thread that says whether it has gc(). */
const WORKER = `data:text/javascript,${encodeURIComponent("import { parentPort } from 'node:worker_threads'; parentPort.postMessage(typeof gc === 'function');")}`;

/** The node flags of `npm start`. */
function startFlags(): string[] {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    scripts: { start: string };
  };
  const match = /^(?:exec )?node (.*?)\s*bin\/blume\.js serve$/.exec(pkg.scripts.start);
  assert.ok(match, `start script: ${pkg.scripts.start}`);
  return match[1]!.split(/\s+/);
}

/** What a process started with `flags` reports: whether it can scavenge, and whether a worker thread has gc(). */
function probe(flags: string[]): { main: boolean; worker: boolean } {
  const module = new URL('./young-gc.ts', import.meta.url).href;
  const script = `
    import { Worker } from 'node:worker_threads';
    import { once } from 'node:events';
    const { canCollectYoungGeneration, collectYoungGeneration } = await import(${JSON.stringify(module)});
    collectYoungGeneration();
    const worker = new Worker(new URL(${JSON.stringify(WORKER)}));
    const [inWorker] = await once(worker, 'message');
    await worker.terminate();
    console.log(JSON.stringify({ main: canCollectYoungGeneration, worker: inWorker }));`;
  const output = execFileSync(process.execPath, [...flags, '--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  return JSON.parse(output.trim().split('\n').at(-1)!) as { main: boolean; worker: boolean };
}

describe('collectYoungGeneration', () => {
  it('scavenges in the main thread and in workers when started as npm start starts the server', () => {
    assert.ok(startFlags().includes('--expose-gc'));
    assert.deepEqual(probe(startFlags()), { main: true, worker: true });
  });

  it('leaves V8 alone when started without --expose-gc: no flag is changed at run time', async () => {
    assert.deepEqual(probe([]), { main: false, worker: false });
    // In this process too (the test runner starts without the flag).
    const hadGlobal = typeof (globalThis as { gc?: unknown }).gc === 'function';
    assert.equal(canCollectYoungGeneration, hadGlobal);
    collectYoungGeneration();
    const worker = new Worker(new URL(WORKER));
    const [answer] = (await once(worker, 'message')) as [boolean];
    await worker.terminate();
    assert.equal(answer, hadGlobal);
  });
});
