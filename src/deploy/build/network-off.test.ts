// The docs build sandbox's network guard (imported first by build-entry.ts).
// This file runs in its own process, so switching the network off here touches no other test.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { describe, it } from 'node:test';
import './network-off.js';

describe('docs build network guard', () => {
  it('refuses sockets, servers, name lookups, fetch and WebSocket', async () => {
    assert.throws(() => net.connect(80, '127.0.0.1'), /network access is disabled/);
    assert.throws(() => net.createServer().listen(0), /network access is disabled/);
    const dns = await import('node:dns');
    await assert.rejects(async () => dns.promises.lookup('localhost'), /network access is disabled/);
    assert.equal(typeof (globalThis as { fetch?: unknown }).fetch, 'undefined');
    assert.equal(typeof (globalThis as { WebSocket?: unknown }).WebSocket, 'undefined');
  });

  it('is the first thing the build entry loads', () => {
    const source = readFileSync(new URL('./build-entry.ts', import.meta.url), 'utf8');
    const firstImport = /^import .*$/m.exec(source)?.[0];
    assert.equal(firstImport, "import './network-off.js';");
  });
});
