// At `info`, every routed answer is one line of the buffered access log (decision 0052): with the
// request id its other log lines carry, the status and the response time; Fastify writes no request
// lines of its own. Lines are written together, when the app closes at the latest.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildTestApp, portal } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';

interface Line {
  level: number;
  msg: string;
  reqId: string;
  method: string;
  url: string;
  statusCode: number;
  responseTime: number;
}

for (const database of testDatabases) {
  describe(`access log of routed answers [${database}]`, () => {
    it('logs each routed answer once, in the access log, and nothing through the app logger', async () => {
      const appLog: string[] = [];
      const written: string[] = [];
      const t = await buildTestApp({
        database,
        logger: { level: 'info', stream: { write: (line: string) => appLog.push(line) } },
        accessLogSink: (text) => written.push(text),
      });
      try {
        const up = await portal(t.app, undefined, { method: 'GET', url: '/up/' });
        const missing = await portal(t.app, undefined, { method: 'GET', url: '/api/no-such-thing?x=1' });
        assert.deepEqual([up.statusCode, missing.statusCode], [200, 404]);
        assert.equal(written.length, 0, 'nothing written before the flush');
      } finally {
        await t.close();
      }
      const lines = written
        .join('')
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as Line);
      assert.deepEqual(
        lines.map(({ level, msg, method, url, statusCode }) => ({ level, msg, method, url, statusCode })),
        [
          { level: 30, msg: 'request completed', method: 'GET', url: '/up/', statusCode: 200 },
          { level: 30, msg: 'request completed', method: 'GET', url: '/api/no-such-thing?x=1', statusCode: 404 },
        ],
      );
      for (const line of lines) assert.ok(typeof line.responseTime === 'number' && line.responseTime >= 0);
      assert.notEqual(lines[0]!.reqId, lines[1]!.reqId);
      assert.ok(lines.every((line) => typeof line.reqId === 'string' && line.reqId.length > 0));
      assert.deepEqual(
        appLog.filter((line) => /"msg":"(incoming request|request completed)"/.test(line)),
        [],
        'Fastify logs no request lines',
      );
    });
  });
}
