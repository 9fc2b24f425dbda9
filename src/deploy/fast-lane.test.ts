// The static edge's fast lane (docs/decisions/0023-edge-fast-lane.md) answers over a real socket
// before Fastify routes the request. Every answer it gives must be the one the routed edge gives
// (compared with `inject`, which never takes the lane), and what it cannot answer must reach Fastify.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http, { type IncomingHttpHeaders } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildTestApp, json, signIn, type TestApp } from '../../test/helpers/app.js';
import { siteArchive } from '../../test/helpers/archives.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { basicAuth, createStaticSite, deployApi, deployRelease, edge } from '../../test/helpers/deploy.js';
import { eventually } from '../../test/helpers/eventually.js';

const HOST = 'lane.blume.test';
const script = 'export function add(a, b) { return a + b; }\n'.repeat(100);
const large = randomBytes(300_000);

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** Whether Fastify's router saw the request (it marks the raw request with the host's target). */
  routed: boolean;
}

/** Headers a server adds by itself per connection or second; the rest must match byte for byte. */
const TRANSPORT = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

interface RawAnswer {
  status: number;
  head: string;
  body: Buffer;
}

/**
 * Writes `parts` to one fresh connection, a pause between them, and reads `count` answers off it
 * (each with a Content-Length), and whether the server ended the connection. With `lockstep`, each
 * part is a whole request written only once the one before it is answered, so no two of them can
 * reach the server in one read, however slow it is.
 */
function exchange(
  port: number,
  parts: string[],
  count: number,
  options: { lockstep?: boolean } = {},
): Promise<{ answers: RawAnswer[]; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    const answers: RawAnswer[] = [];
    let closed = false;
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ answers, closed });
    };
    const timer = setTimeout(() => reject(new Error(`${answers.length} of ${count} answers arrived`)), 5000);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      for (;;) {
        const end = received.indexOf('\r\n\r\n');
        if (end === -1) return;
        const head = received.toString('latin1', 0, end);
        const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (received.length < end + 4 + length) return;
        answers.push({ status: Number(head.slice(9, 12)), head, body: received.subarray(end + 4, end + 4 + length) });
        received = received.subarray(end + 4 + length);
        // Whether the server ends the connection is known by its FIN, which a loaded machine may
        // deliver a while after the last answer: wait for it up to half a second.
        if (answers.length === count) {
          if (closed) finish();
          else waitForEnd = setTimeout(finish, 500);
        }
      }
    });
    let waitForEnd: NodeJS.Timeout | undefined;
    socket.on('end', () => {
      closed = true;
      if (waitForEnd) {
        clearTimeout(waitForEnd);
        finish();
      }
    });
    socket.on('error', reject);
    void (async () => {
      for (const [index, part] of parts.entries()) {
        socket.write(part);
        if (!options.lockstep) await sleep(30);
        else while (answers.length <= index && !socket.destroyed) await sleep(2);
      }
    })();
  });
}

function comparable(headers: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (!TRANSPORT.has(name)) out[name] = String(value);
  return out;
}

for (const database of testDatabases) {
  describe(`static edge fast lane [${database}]`, () => {
    let t: TestApp;
    let port: number;
    let password: string;
    let release: string;
    const routed = new WeakSet<http.IncomingMessage>();

    const overSocket = (host: string, path: string, headers: Record<string, string> = {}, method = 'GET') =>
      new Promise<Answer>((resolve, reject) => {
        // Requests the socket front answers never reach the server's request listeners.
        lastRouted = false;
        const request = http.request(
          { host: '127.0.0.1', port, path, method, headers: { host, ...headers }, agent: false },
          (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () =>
              resolve({
                status: response.statusCode!,
                headers: response.headers,
                body: Buffer.concat(chunks),
                routed: lastRouted,
              }),
            );
            response.on('error', reject);
          },
        );
        request.on('error', reject);
        request.end();
      });
    let lastRouted = false;
    /** What the server's request listeners saw: `routed` by Fastify, or answered by the Node-side lane. */
    const seen: Array<'routed' | 'lane'> = [];

    before(async () => {
      t = await buildTestApp({ database });
      const alice = await signIn(t.app, 'alice');
      const token = await createStaticSite(t.app, alice, 'lane');
      release = await deployRelease(
        t.app,
        token,
        'lane',
        await siteArchive({
          'index.html': '<!doctype html><title>home</title>',
          '404.html': 'not here',
          'assets/app.3f9a1c2b.js': script,
          'assets/large.5d41402a.bin': large,
          _headers: '/assets/*\n  X-Asset: yes\n',
          _redirects: '/old /index.html 301\n',
        }),
      );
      await deployApi(t.app, token, 'POST', '/api/deploy/lane/promote', { release });
      password = json<{ aliases: { auth: string } }>(await deployApi(t.app, token, 'GET', '/api/deploy/lane/releases'))
        .aliases.auth;
      // Listeners added after Fastify's run after it: by then the router has marked what it routed.
      t.app.server.on('request', (req: http.IncomingMessage) => {
        lastRouted = req.blumeTarget !== undefined;
        seen.push(lastRouted ? 'routed' : 'lane');
        if (lastRouted) routed.add(req);
      });
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      port = (t.app.server.address() as AddressInfo).port;
    });
    after(() => t.close());

    const cases: Array<{
      name: string;
      host: () => string;
      path: string;
      headers?: () => Record<string, string>;
      method?: string;
      lane: boolean;
    }> = [
      { name: 'a page', host: () => HOST, path: '/', lane: true },
      { name: 'a page by HEAD', host: () => HOST, path: '/', method: 'HEAD', lane: true },
      {
        name: 'a fingerprinted asset with its _headers',
        host: () => HOST,
        path: '/assets/app.3f9a1c2b.js',
        lane: true,
      },
      {
        name: 'brotli',
        host: () => HOST,
        path: '/assets/app.3f9a1c2b.js',
        headers: () => ({ 'accept-encoding': 'gzip, br' }),
        lane: true,
      },
      {
        name: 'gzip',
        host: () => HOST,
        path: '/assets/app.3f9a1c2b.js',
        headers: () => ({ 'accept-encoding': 'gzip' }),
        lane: true,
      },
      {
        name: 'a byte range',
        host: () => HOST,
        path: '/assets/app.3f9a1c2b.js',
        headers: () => ({ range: 'bytes=10-19' }),
        lane: true,
      },
      {
        name: 'an unsatisfiable range',
        host: () => HOST,
        path: '/assets/app.3f9a1c2b.js',
        headers: () => ({ range: 'bytes=99999-' }),
        lane: true,
      },
      { name: 'the nearest 404.html', host: () => HOST, path: '/missing', lane: true },
      { name: 'a query string', host: () => HOST, path: '/?utm=x', lane: true },
      {
        name: 'a preview with its password',
        host: () => `r-${release}--${HOST}`,
        path: '/',
        headers: () => ({ authorization: basicAuth(password) }),
        lane: true,
      },
      { name: 'a redirect', host: () => HOST, path: '/old', lane: false },
      { name: 'a preview without a password', host: () => `r-${release}--${HOST}`, path: '/', lane: false },
      {
        name: 'a preview with a wrong password',
        host: () => `r-${release}--${HOST}`,
        path: '/',
        headers: () => ({ authorization: basicAuth('nope') }),
        lane: false,
      },
      { name: 'bad percent-encoding', host: () => HOST, path: '/%E0%A4%A', lane: false },
      { name: 'a POST', host: () => HOST, path: '/', method: 'POST', lane: false },
      { name: 'an unknown site', host: () => 'nosuch.blume.test', path: '/', lane: false },
      { name: 'the portal', host: () => 'blume.test', path: '/up/', lane: false },
    ];

    for (const c of cases) {
      it(`answers ${c.name} as the routed edge does${c.lane ? ', in the lane' : ', through Fastify'}`, async () => {
        const headers = c.headers?.() ?? {};
        const method = c.method ?? 'GET';
        // The first request may load the site, pointers, manifest and bytes; the second finds them in memory.
        await overSocket(c.host(), c.path, headers, method);
        const socket = await overSocket(c.host(), c.path, headers, method);
        const routedEdge = await edge(t.app, c.host(), c.path, headers, method as 'GET');
        assert.equal(socket.status, routedEdge.statusCode);
        assert.deepEqual(comparable(socket.headers), comparable(routedEdge.headers));
        assert.ok(socket.body.equals(routedEdge.rawPayload), 'same body');
        assert.equal(socket.routed, !c.lane, c.lane ? 'answered in the lane' : 'passed on to Fastify');
      });
    }

    it('answers a revalidation with 304 in the lane', async () => {
      const first = await overSocket(HOST, '/');
      const again = await overSocket(HOST, '/', { 'if-none-match': String(first.headers.etag) });
      assert.equal(again.status, 304);
      assert.equal(again.body.length, 0);
      assert.equal(again.routed, false);
    });

    const get = (path: string, extra = '') => `GET ${path} HTTP/1.1\r\nHost: ${HOST}\r\n${extra}\r\n`;

    it('keeps a connection working when the socket front hands it over', async () => {
      seen.length = 0;
      const { answers, closed } = await exchange(
        port,
        [get('/'), get('/old'), get('/'), get('/assets/app.3f9a1c2b.js')],
        4,
        { lockstep: true },
      );
      assert.deepEqual(
        answers.map((a) => a.status),
        [200, 301, 200, 200],
      );
      assert.equal(answers[0]!.body.toString(), '<!doctype html><title>home</title>');
      assert.ok(answers[2]!.body.equals(answers[0]!.body));
      assert.equal(answers[3]!.body.toString(), script);
      assert.match(answers[0]!.head, /\r\nConnection: keep-alive\r\nKeep-Alive: timeout=\d+/);
      // The front answered the first request itself; the redirect went to Fastify, and from then on
      // the connection is Node's, whose lane answered the rest.
      assert.deepEqual(seen, ['routed', 'lane', 'lane']);
      assert.equal(closed, false);
    });

    it('stops reading a client that does not read its answers', async () => {
      // Loaded into memory first: a request that has to wait for the bytes goes to Node.
      await overSocket(HOST, '/assets/large.5d41402a.bin');
      const held: net.Socket[] = [];
      const onConnection = (socket: net.Socket) => held.push(socket);
      t.app.server.on('connection', onConnection);
      // No Nagle: each request leaves alone, so the front reads them one by one.
      const client = net.connect({ port, host: '127.0.0.1', noDelay: true });
      await new Promise((resolve) => client.once('connect', resolve));
      t.app.server.off('connection', onConnection);
      const requests = 80;
      client.pause();
      for (let i = 0; i < requests; i += 1) {
        client.write(get('/assets/large.5d41402a.bin'));
        await sleep(5);
      }
      // 80 answers are 24 MB, more than the kernel's buffers take; unread, about one waits in the server's memory
      // once the server's writes back up.
      const [serverSide] = held;
      await eventually('the server to stop on the unread answers', () =>
        serverSide!.writableNeedDrain ? true : undefined,
      );
      assert.ok(serverSide!.writableLength < 1_000_000, `${serverSide!.writableLength} bytes wait to be sent`);
      // Every answer is the body and a head of more than 100 bytes.
      const minimum = requests * (large.length + 100);
      let received = 0;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${received} of at least ${minimum} bytes arrived`)), 10_000);
        client.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received >= minimum) {
            clearTimeout(timer);
            resolve();
          }
        });
        client.resume();
      });
      client.destroy();
    });

    it('leaves pipelined requests to Node, answered in order', async () => {
      const { answers } = await exchange(port, [get('/') + get('/assets/app.3f9a1c2b.js') + get('/missing')], 3);
      assert.deepEqual(
        answers.map((a) => a.status),
        [200, 200, 404],
      );
      assert.equal(answers[1]!.body.toString(), script);
      assert.equal(answers[2]!.body.toString(), 'not here');
    });

    it('leaves a head split over two reads to Node', async () => {
      const request = get('/');
      const { answers } = await exchange(port, [request.slice(0, 20), request.slice(20)], 1);
      assert.equal(answers[0]!.status, 200);
      assert.equal(answers[0]!.body.toString(), '<!doctype html><title>home</title>');
    });

    it('leaves a GET with a body to Node, which reads the body as a body', async () => {
      const smuggled = get('/missing');
      const { answers } = await exchange(port, [get('/', `Content-Length: ${smuggled.length}\r\n`) + smuggled], 1);
      assert.equal(answers.length, 1);
      assert.equal(answers[0]!.status, 200);
    });

    it('leaves a malformed head to Node, which refuses it', async () => {
      const { answers, closed } = await exchange(port, [`GET / HTTP/1.1\r\nHost : ${HOST}\r\n\r\n`], 1);
      assert.equal(answers[0]!.status, 400);
      assert.equal(closed, true);
    });

    it('answers HTTP/1.0 through Node', async () => {
      const { answers, closed } = await exchange(port, [`GET / HTTP/1.0\r\nHost: ${HOST}\r\n\r\n`], 1);
      assert.equal(answers[0]!.status, 200);
      assert.equal(answers[0]!.body.toString(), '<!doctype html><title>home</title>');
      assert.equal(closed, true);
    });

    it('ends the connection after an answer to Connection: close', async () => {
      const { answers, closed } = await exchange(port, [get('/', 'Connection: close\r\n')], 1);
      assert.equal(answers[0]!.status, 200);
      assert.match(answers[0]!.head, /\r\nConnection: close$/);
      assert.equal(closed, true);
    });

    it('sends byte for byte the head the Node path sends, for every allowed _headers rule', async () => {
      // Names as sites write them, every kind of response header a site may set, some named twice.
      const rules = [
        'X-Frame-Options: DENY',
        "Content-Security-Policy: default-src 'self'; img-src * data:",
        'Referrer-Policy: strict-origin-when-cross-origin',
        'Permissions-Policy: camera=(), microphone=()',
        'Strict-Transport-Security: max-age=63072000; includeSubDomains; preload',
        'Access-Control-Allow-Origin: *',
        'Access-Control-Expose-Headers: X-Asset',
        'Link: </assets/app.3f9a1c2b.js>; rel=preload; as=script',
        'X-Robots-Tag: noarchive',
        'Cache-Control: no-store',
        'Content-Type: text/plain',
        'Vary: Cookie',
        'X-Content-Type-Options: nosniff',
        'Content-Disposition: inline; filename="a.txt"',
        'Content-Language: fr',
        'Expires: Thu, 01 Jan 2037 00:00:00 GMT',
        'Last-Modified: Wed, 21 Oct 2015 07:28:00 GMT',
        'Server: my-site',
        'Age: 5',
        'Location: /elsewhere',
        'Accept-Ranges: none',
        'X-UPPER-case: Mixed Value',
        'X-Latin: caf\xe9',
        'X-Spaces: a  b\tc',
      ];
      const headersFile = `/*\n${rules.map((rule) => `  ${rule}`).join('\n')}\n/assets/*\n  X-Frame-Options: SAMEORIGIN\n  X-Asset: again\n`;
      const bob = await signIn(t.app, 'bob');
      const token = await createStaticSite(t.app, bob, 'heads');
      const id = await deployRelease(
        t.app,
        token,
        'heads',
        await siteArchive({
          'index.html': '<!doctype html><title>heads</title>',
          'assets/app.3f9a1c2b.js': script,
          _headers: headersFile,
        }),
      );
      await deployApi(t.app, token, 'POST', '/api/deploy/heads/promote', { release: id });
      const host = 'heads.blume.test';
      const request = (path: string, extra: string) => `GET ${path} HTTP/1.1\r\nHost: ${host}\r\n${extra}\r\n`;
      // A field sent twice is left to Node's parser by the front: the Node path answers it.
      const viaNode = 'X-Twice: 1\r\nX-Twice: 1\r\n';
      const sameDate = (head: string) => head.replace(/\r\nDate: [^\r]+/, '\r\nDate: -');
      for (const [path, extra] of [
        ['/', ''],
        ['/assets/app.3f9a1c2b.js', 'Accept-Encoding: br\r\n'],
        ['/assets/app.3f9a1c2b.js', 'Range: bytes=0-9\r\n'],
      ] as const) {
        await exchange(port, [request(path, extra)], 1);
        seen.length = 0;
        const front = (await exchange(port, [request(path, extra)], 1)).answers[0]!;
        const node = (await exchange(port, [request(path, extra + viaNode)], 1)).answers[0]!;
        assert.deepEqual(seen, ['lane'], 'the first answered by the front, the second by the Node-side lane');
        assert.equal(sameDate(front.head), sameDate(node.head), `${path} ${extra}`);
        assert.ok(front.body.equals(node.body));
        assert.match(front.head, /\r\nx-latin: caf\xe9\r\n/);
      }
    });

    // Last: it closes the app.
    it('closes the connections the front holds when the server closes', async () => {
      const socket = net.connect(port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      const answered = new Promise((resolve) => socket.once('data', resolve));
      socket.write(get('/'));
      await answered;
      const ended = new Promise((resolve) => socket.once('end', resolve));
      const started = Date.now();
      await t.app.close();
      await ended;
      // Without it the keep-alive connection would hold the close for the keep-alive timeout (72 s).
      assert.ok(Date.now() - started < 5000);
      socket.destroy();
    });
  });
}
