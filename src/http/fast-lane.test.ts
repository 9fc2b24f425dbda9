// The lanes' plumbing on a bare server: the socket front's start-up check of Node's internals, the
// fallback to the Node path with one warning when the check fails, and the buffered access log.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { eventually } from '../../test/helpers/eventually.js';
import { AccessLog } from './access-log.js';
import { createFastLanes } from './fast-lane.js';
import type { FastLane } from './lane.js';
import { frontConnections, verifySocketFront } from './socket-front.js';

/** A lane that answers `/lane` with a short text. */
const lane: FastLane = (request, sink) => {
  if (request.url !== '/lane') return false;
  sink.writeHead(200, { 'content-type': 'text/plain' });
  sink.end(Buffer.from('from the lane'));
  return true;
};

const FASTIFY_OPTIONS = { keepAliveTimeout: 72_000, requestTimeout: 0, connectionTimeout: 0 };

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** GETs `path` on a fresh connection; `routed` says whether the server's `request` event saw it. */
function get(
  server: http.Server,
  port: number,
  path: string,
  method = 'GET',
): Promise<{ status: number; body: string; requestEvent: boolean }> {
  let requestEvent = false;
  const onRequest = () => (requestEvent = true);
  server.on('request', onRequest);
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: '127.0.0.1', port, path, method, headers: { host: 'site.test' }, agent: false },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => {
          server.off('request', onRequest);
          resolve({ status: response.statusCode!, body, requestEvent });
        });
      },
    );
    request.on('error', reject);
    request.end();
  });
}

async function close(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

describe('socket front: start-up check', () => {
  it('finds the internals it relies on in this Node', async () => {
    assert.equal(await verifySocketFront(), undefined);
  });

  it('refuses a server whose connections do not come through one listener', () => {
    const server = http.createServer();
    server.on('connection', () => {});
    assert.match(
      frontConnections(server, { answer: () => false, active: () => true, failed: () => {} }) ?? '',
      /2 connection listeners/,
    );
    assert.equal(server.listeners('connection').length, 2, 'the server is left as it was');
  });

  it('takes connections once the check passed: the lane answers before the request event', async () => {
    const lanes = createFastLanes();
    lanes.add(lane);
    const server = lanes.serverFactory((_req, res) => res.end('routed'), FASTIFY_OPTIONS);
    await lanes.ready();
    const port = await listen(server);
    try {
      assert.deepEqual(await get(server, port, '/lane'), { status: 200, body: 'from the lane', requestEvent: false });
      assert.deepEqual(await get(server, port, '/other'), { status: 200, body: 'routed', requestEvent: true });
    } finally {
      await close(server);
    }
  });

  it('falls back to the Node path with one warning when the check fails', async () => {
    const warnings: string[] = [];
    const lanes = createFastLanes({
      verifyFront: async () => 'unshift lost the bytes',
      warn: (message) => warnings.push(message),
    });
    lanes.add(lane);
    const server = lanes.serverFactory((_req, res) => res.end('routed'), FASTIFY_OPTIONS);
    await Promise.all([lanes.ready(), lanes.ready()]);
    const port = await listen(server);
    try {
      // Node parsed it (the request event fired), and the Node-side lane still answered it.
      assert.deepEqual(await get(server, port, '/lane'), { status: 200, body: 'from the lane', requestEvent: true });
      assert.deepEqual(await get(server, port, '/other'), { status: 200, body: 'routed', requestEvent: true });
    } finally {
      await close(server);
    }
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /socket front is off: unshift lost the bytes/);
  });
});

describe('fast lanes: access log', () => {
  it('writes one line per answer, in the JSON shape of the app log, after the flush interval', async () => {
    const written: string[] = [];
    const lanes = createFastLanes();
    lanes.add(lane);
    lanes.logTo(new AccessLog((text) => written.push(text), { bufferBytes: 64 * 1024, flushMs: 50 }));
    const server = lanes.serverFactory((_req, res) => res.end('routed'), FASTIFY_OPTIONS);
    await lanes.ready();
    const port = await listen(server);
    try {
      await get(server, port, '/lane');
      await get(server, port, '/lane', 'HEAD');
      await get(server, port, '/other');
      assert.equal(written.length, 0, 'nothing written before the interval');
      await eventually('the buffered lines to be written', () => (written.length > 0 ? true : undefined));
    } finally {
      await close(server);
    }
    assert.equal(written.length, 1, 'one write for the lines gathered');
    const lines = written[0]!
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.equal(lines.length, 2, 'only the lane answers are its to log');
    assert.deepEqual(
      lines.map(({ level, msg, method, url, host, statusCode, bytes, remoteAddress, via }) => ({
        level,
        msg,
        method,
        url,
        host,
        statusCode,
        bytes,
        remoteAddress,
        via,
      })),
      [
        {
          level: 30,
          msg: 'static request',
          method: 'GET',
          url: '/lane',
          host: 'site.test',
          statusCode: 200,
          bytes: 13,
          remoteAddress: '127.0.0.1',
          via: 'socket',
        },
        {
          level: 30,
          msg: 'static request',
          method: 'HEAD',
          url: '/lane',
          host: 'site.test',
          statusCode: 200,
          bytes: 0,
          remoteAddress: '127.0.0.1',
          via: 'socket',
        },
      ],
    );
    assert.equal(typeof lines[0]!.time, 'number');
    assert.equal(lines[0]!.pid, process.pid);
  });

  it('writes when the buffer fills, and what is left on flush', () => {
    const written: string[] = [];
    const log = new AccessLog((text) => written.push(text), { bufferBytes: 1000, flushMs: 60_000 });
    const entry = {
      method: 'GET',
      url: '/a"b\n',
      host: 'h',
      remoteAddress: undefined,
      status: 200,
      bytes: 1,
      via: 'node' as const,
    };
    for (let i = 0; i < 10; i += 1) log.add(entry);
    assert.equal(written.length, 1);
    assert.ok(written[0]!.length >= 1000);
    log.flush();
    assert.equal(written.length, 2);
    const lines = written.join('').trimEnd().split('\n');
    assert.equal(lines.length, 10);
    assert.equal((JSON.parse(lines[9]!) as { url: string }).url, '/a"b\n', 'values are escaped');
    log.flush();
    assert.equal(written.length, 2, 'an empty flush writes nothing');
  });
});
