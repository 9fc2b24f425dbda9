// An upload refused before its body was read (#13 item 1): over a real socket with Node's keep-alive
// agent, the next request on the connection must be answered. A remainder within the drain bound is
// read and dropped and the connection reused; a larger one ends the connection, saying so.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { buildTestApp, PORTAL_HOST, signIn, type TestApp } from '../../test/helpers/app.js';
import { multipartBody, tarball } from '../../test/helpers/archives.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { createStaticSite } from '../../test/helpers/deploy.js';
import { DRAIN_LIMIT_BYTES } from '../http/unread-body.js';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  socket: Socket;
}

function send(
  port: number,
  agent: http.Agent,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: Buffer,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: '127.0.0.1', port, method, path, agent, headers: { host: PORTAL_HOST, ...headers } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode!, headers: response.headers, body: text, socket: response.socket }),
        );
      },
    );
    request.setTimeout(10_000, () => request.destroy(new Error(`${method} ${path}: no answer within 10 s`)));
    request.on('error', reject);
    request.end(body);
  });
}

/** A tar.gz of `entries` followed by `padding` random bytes, so the archive is that much larger. */
async function archiveOf(first: Parameters<typeof tarball>[0], padding: number): Promise<Buffer> {
  return gzipSync(await tarball([...first, { name: 'padding.bin', content: randomBytes(padding) }]));
}

for (const database of testDatabases) {
  describe(`an early refusal on a keep-alive connection [${database}]`, () => {
    let t: TestApp;
    let port: number;
    let token: string;
    let agent: http.Agent;

    before(async () => {
      t = await buildTestApp({ database });
      token = await createStaticSite(t.app, await signIn(t.app, 'alice'), 'early');
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      port = (t.app.server.address() as AddressInfo).port;
    });
    after(async () => {
      agent?.destroy();
      await t.close();
    });

    const uploadOver = (archive: Buffer) => {
      const body = multipartBody('archive', archive);
      return send(
        port,
        agent,
        'POST',
        '/api/deploy/early',
        { ...body.headers, authorization: `Bearer ${token}`, 'content-length': String(body.payload.length) },
        body.payload,
      );
    };

    const cases = [
      {
        name: '422 for a symlink first',
        entries: [{ name: 'evil', type: 'symlink' as const, linkname: '/etc/passwd' }],
        status: 422,
        code: 'archive_symlink',
      },
      // Zeros expand 1000-fold; the expansion limit is lowered below for this case.
      {
        name: '413 for a bomb',
        entries: [{ name: 'zeros.bin', content: Buffer.alloc(16 * 1024 * 1024) }],
        status: 413,
        code: 'archive_uncompressed_too_large',
      },
    ];
    for (const c of cases) {
      it(`answers the next request after a ${c.name}, on the same connection`, async () => {
        agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
        const saved = { ...t.app.deploy.limits };
        t.app.deploy.limits.uncompressedBytes = 8 * 1024 * 1024;
        try {
          const refused = await uploadOver(await archiveOf(c.entries, 3 * 1024 * 1024));
          assert.equal(refused.status, c.status, refused.body);
          assert.equal((JSON.parse(refused.body) as { code: string }).code, c.code);
          assert.notEqual(refused.headers.connection, 'close');
          const next = await send(port, agent, 'GET', '/up/');
          assert.equal(next.status, 200);
          assert.equal(next.socket, refused.socket, 'the connection was kept');
        } finally {
          Object.assign(t.app.deploy.limits, saved);
          agent.destroy();
        }
      });
    }

    it('ends the connection, saying so, when the unread body is larger than the drain bound', async () => {
      agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      // Only the start of a body declared larger than the bound is sent: the rest never comes.
      const archive = await archiveOf(cases[0]!.entries, 64 * 1024);
      const body = multipartBody('archive', archive);
      const declared = DRAIN_LIMIT_BYTES + 1024 * 1024;
      const refused = await new Promise<Answer>((resolve, reject) => {
        const request = http.request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/api/deploy/early',
            agent,
            headers: {
              host: PORTAL_HOST,
              ...body.headers,
              authorization: `Bearer ${token}`,
              'content-length': String(declared),
            },
          },
          (response) => {
            let text = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => (text += chunk));
            response.on('end', () => {
              resolve({ status: response.statusCode!, headers: response.headers, body: text, socket: response.socket });
              request.destroy();
            });
          },
        );
        request.setTimeout(10_000, () => request.destroy(new Error('no answer within 10 s')));
        // Destroying the request after its answer settles nothing more.
        request.on('error', reject);
        request.write(body.payload.subarray(0, body.payload.length - 100));
      });
      assert.equal(refused.status, 422, refused.body);
      assert.equal(refused.headers.connection, 'close');
      const next = await send(port, agent, 'GET', '/up/');
      assert.equal(next.status, 200);
      assert.notEqual(next.socket, refused.socket);
      agent.destroy();
    });
  });
}
