// The socket front reads a request head itself only when it can be certain of it; everything else
// must be left to Node's parser (undefined here). The connection-level behaviour (hand-over, close)
// is tested over real sockets in src/deploy/fast-lane.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readRequestHead } from './socket-front.js';

const HOST = 'Host: site.blume.test';

describe('socket front: request heads', () => {
  it('reads a GET with its headers, lower-cased and trimmed', () => {
    const request = readRequestHead(
      `GET /a/b.css?v=1 HTTP/1.1\r\n${HOST}\r\nAccept-Encoding:  gzip, br \t\r\nX-Empty:`,
      '127.0.0.1',
    );
    assert.ok(request);
    assert.equal(request.method, 'GET');
    assert.equal(request.url, '/a/b.css?v=1');
    assert.equal(request.remoteAddress, '127.0.0.1');
    assert.equal(request.headers.host, 'site.blume.test');
    assert.equal(request.headers['accept-encoding'], 'gzip, br');
    assert.equal(request.headers['x-empty'], '');
    assert.equal(request.keepAlive, true);
  });

  it('reads HEAD, and Connection: close as the last request of the connection', () => {
    const request = readRequestHead(`HEAD / HTTP/1.1\r\n${HOST}\r\nConnection: Close`, undefined);
    assert.equal(request?.method, 'HEAD');
    assert.equal(request?.keepAlive, false);
    assert.equal(readRequestHead(`GET / HTTP/1.1\r\n${HOST}\r\nConnection: keep-alive`, undefined)?.keepAlive, true);
  });

  it('keeps latin1 bytes in a value as they came', () => {
    assert.equal(
      readRequestHead(`GET / HTTP/1.1\r\n${HOST}\r\nX-Name: caf\xe9`, undefined)?.headers['x-name'],
      'caf\xe9',
    );
  });

  const leftToNode: Array<[string, string]> = [
    ['another method', `POST / HTTP/1.1\r\n${HOST}`],
    ['a lower-case method', `get / HTTP/1.1\r\n${HOST}`],
    ['HTTP/1.0', `GET / HTTP/1.0\r\n${HOST}`],
    ['an absolute-form target', `GET http://site.blume.test/ HTTP/1.1\r\n${HOST}`],
    ['an asterisk target', `GET * HTTP/1.1\r\n${HOST}`],
    ['a space in the target', `GET /a b HTTP/1.1\r\n${HOST}`],
    ['a non-ASCII target', `GET /caf\xe9 HTTP/1.1\r\n${HOST}`],
    ['two spaces in the request line', `GET  / HTTP/1.1\r\n${HOST}`],
    ['no Host', 'GET / HTTP/1.1\r\nAccept: */*'],
    ['an empty Host', 'GET / HTTP/1.1\r\nHost: '],
    ['two Hosts', `GET / HTTP/1.1\r\n${HOST}\r\nHost: other.blume.test`],
    ['a repeated field', `GET / HTTP/1.1\r\n${HOST}\r\nAccept: a\r\nAccept: b`],
    ['a field named like an object property', `GET / HTTP/1.1\r\n${HOST}\r\n__proto__: x`],
    ['a body length', `GET / HTTP/1.1\r\n${HOST}\r\nContent-Length: 0`],
    ['a chunked body', `GET / HTTP/1.1\r\n${HOST}\r\nTransfer-Encoding: chunked`],
    ['an upgrade', `GET / HTTP/1.1\r\n${HOST}\r\nUpgrade: websocket`],
    ['an expectation', `GET / HTTP/1.1\r\n${HOST}\r\nExpect: 100-continue`],
    ['another connection option', `GET / HTTP/1.1\r\n${HOST}\r\nConnection: upgrade`],
    ['a space before the colon', `GET / HTTP/1.1\r\nHost : site.blume.test`],
    ['a folded line', `GET / HTTP/1.1\r\n${HOST}\r\nX-A: a\r\n b`],
    ['a bare line feed', `GET / HTTP/1.1\r\n${HOST}\nX-A: a`],
    ['a bare carriage return in a value', `GET / HTTP/1.1\r\n${HOST}\r\nX-A: a\rb`],
    ['a NUL in a value', `GET / HTTP/1.1\r\n${HOST}\r\nX-A: a\0b`],
    ['a field without a colon', `GET / HTTP/1.1\r\n${HOST}\r\nX-A`],
    ['an empty line inside the head', `GET / HTTP/1.1\r\n\r\n${HOST}`],
  ];
  for (const [name, head] of leftToNode) {
    it(`leaves ${name} to Node`, () => {
      assert.equal(readRequestHead(head, undefined), undefined);
    });
  }
});
