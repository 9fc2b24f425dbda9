// The socket front (docs/decisions/0024-socket-front.md): reads the requests of a fresh connection
// itself and lets the fast lanes answer them straight onto the socket, without Node's request and
// response objects. It reads only what it can read with certainty: one whole GET or HEAD head per
// read, HTTP/1.1, well-formed, with no body and nothing that changes how the connection behaves.
// The first request it cannot read or no lane answers hands the connection over to the Node server
// for good, with that request's bytes put back unread, so Node parses it as if it came first.
import { createServer, STATUS_CODES, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import type { LaneRequest, LaneSink } from './lane.js';

interface Front {
  /** True when a lane answered; false, having written nothing, to pass the request on. */
  answer(request: LaneRequest, sink: LaneSink): boolean;
  /** Whether the front takes new connections at all (it does only when there are lanes). */
  active(): boolean;
  /** Told of a lane that threw; the connection is dropped. */
  failed(error: unknown): void;
}

const HEAD_END = Buffer.from('\r\n\r\n');
/** Node's default limit on a request head; a longer one goes to Node, which answers 431. */
const MAX_HEAD_BYTES = 16 * 1024;
const REQUEST_LINE = /^(GET|HEAD) (\/[!-~]*) HTTP\/1\.1$/;
// A field name is a token; a value is visible characters (latin1 included) with inner spaces and
// tabs, trimmed. Anything else, obsolete line folding included, is left to Node's parser.
const HEADER_LINE =
  /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[\t ]*((?:[!-~\x80-\xff](?:[\t -~\x80-\xff]*[!-~\x80-\xff])?)?)[\t ]*$/;
// Headers that bring a body, a protocol switch or an interim answer: Node's to handle.
const PASSED_ON = new Set(['content-length', 'transfer-encoding', 'upgrade', 'expect', 'http2-settings']);
/** Bodies up to this size go out in one buffer with the head; larger ones are not copied. */
const COPY_BODY_BYTES = 16 * 1024;

interface FrontRequest extends LaneRequest {
  readonly keepAlive: boolean;
}

/** The request in a head (without its final blank line), or undefined when Node should read it. */
export function readRequestHead(head: string, remoteAddress: string | undefined): FrontRequest | undefined {
  const lines = head.split('\r\n');
  const start = REQUEST_LINE.exec(lines[0]!);
  if (!start) return undefined;
  const headers: IncomingHttpHeaders = {};
  for (let i = 1; i < lines.length; i += 1) {
    const field = HEADER_LINE.exec(lines[i]!);
    if (!field) return undefined;
    const name = field[1]!.toLowerCase();
    // Node joins repeated fields by rules of their own; such requests are rare enough to leave to it.
    // A name the object already answers (`constructor`, `__proto__`) counts as repeated.
    if (headers[name] !== undefined || PASSED_ON.has(name)) return undefined;
    headers[name] = field[2]!;
  }
  if (!headers.host) return undefined;
  const connection = headers.connection?.toLowerCase();
  if (connection !== undefined && connection !== 'keep-alive' && connection !== 'close') return undefined;
  return { method: start[1]!, url: start[2]!, headers, remoteAddress, keepAlive: connection !== 'close' };
}

/** `Date: ...` as Node writes it, made at most once a second. */
let dateLine = '';
let dateSecond = -1;
function currentDateLine(): string {
  const second = Math.floor(Date.now() / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateLine = `Date: ${new Date(second * 1000).toUTCString()}\r\n`;
  }
  return dateLine;
}

/** Writes one answer as Node's `ServerResponse` would for the same `writeHead` and `end`. */
class SocketAnswer implements LaneSink {
  private status = 200;
  private headers: Record<string, string> = {};

  constructor(
    private readonly socket: Socket,
    private readonly request: FrontRequest,
    private readonly connectionLines: string,
  ) {}

  writeHead(status: number, headers: Record<string, string>): void {
    this.status = status;
    this.headers = headers;
  }

  end(body?: Buffer): void {
    const { socket, status, headers } = this;
    const bodyless = this.request.method === 'HEAD' || status === 204 || status === 304;
    let head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'unknown'}\r\n`;
    for (const name in headers) {
      const value = headers[name]!;
      // The values are the edge's own and `_headers` values checked at ingest; this keeps a line
      // break from ever splitting a header, whatever a future caller passes.
      if (value.includes('\n') || value.includes('\r'))
        throw new Error(`line break in the value of the header "${name}"`);
      head += `${name}: ${value}\r\n`;
    }
    if (!bodyless && headers['content-length'] === undefined) head += `content-length: ${body?.length ?? 0}\r\n`;
    head += `${currentDateLine()}${this.connectionLines}\r\n`;
    const sent = body && body.length > 0 && !bodyless ? body : undefined;
    if (!sent) socket.write(head, 'latin1');
    else if (sent.length <= COPY_BODY_BYTES) {
      // One buffer, one write: cheaper than a gathered write of two for a small page.
      const headBytes = Buffer.byteLength(head, 'latin1');
      const whole = Buffer.allocUnsafe(headBytes + sent.length);
      whole.write(head, 0, 'latin1');
      sent.copy(whole, headBytes);
      socket.write(whole);
    } else {
      socket.cork();
      socket.write(head, 'latin1');
      socket.write(sent);
      socket.uncork();
    }
    if (!this.request.keepAlive) socket.end();
  }

  destroy(): void {
    this.socket.destroy();
  }
}

/**
 * Puts the front before `server`'s own connection handling. The server keeps listening, closing and
 * timing out as before; `closeIdleConnections` and `closeAllConnections` also close the front's
 * connections, which are idle whenever no answer is being written.
 */
export function frontConnections(server: Server, front: Front): string | undefined {
  const listeners = server.listeners('connection') as Array<(socket: Socket) => void>;
  if (listeners.length !== 1) return `the HTTP server has ${listeners.length} connection listeners, not Node's one`;
  const nodeListener = listeners[0]!;
  server.removeListener('connection', nodeListener);
  const held = new Set<Socket>();

  server.on('connection', (socket: Socket) => {
    if (!front.active() || server.maxRequestsPerSocket) {
      nodeListener.call(server, socket);
      return;
    }
    held.add(socket);
    const keepAliveSeconds = Math.floor(server.keepAliveTimeout / 1000);
    const keepAliveLines =
      keepAliveSeconds > 0
        ? `Connection: keep-alive\r\nKeep-Alive: timeout=${keepAliveSeconds}\r\n`
        : 'Connection: keep-alive\r\n';

    const onData = (chunk: Buffer): void => {
      const end = chunk.indexOf(HEAD_END);
      // One whole head and nothing after it: a partial head or pipelined requests go to Node.
      if (end !== -1 && end + HEAD_END.length === chunk.length && end <= MAX_HEAD_BYTES) {
        const request = readRequestHead(chunk.toString('latin1', 0, end), socket.remoteAddress);
        if (request) {
          const sink = new SocketAnswer(socket, request, request.keepAlive ? keepAliveLines : 'Connection: close\r\n');
          try {
            if (front.answer(request, sink)) {
              // A client that sends requests without reading the answers is not read from until
              // they have gone out, as Node's server does: the answers never pile up in memory.
              if (socket.writableNeedDrain) {
                socket.pause();
                socket.once('drain', () => socket.resume());
              }
              return;
            }
          } catch (error) {
            front.failed(error);
            socket.destroy();
            return;
          }
        }
      }
      handOver(chunk);
    };
    // Node's server allows half-open connections and ends them itself once it has answered.
    const onEnd = (): void => {
      socket.end();
    };
    const onError = (): void => {
      socket.destroy();
    };
    const onTimeout = (): void => {
      socket.destroy();
    };
    const onClose = (): void => {
      held.delete(socket);
    };

    const handOver = (unread: Buffer): void => {
      held.delete(socket);
      socket.removeListener('data', onData);
      socket.removeListener('end', onEnd);
      socket.removeListener('error', onError);
      socket.removeListener('timeout', onTimeout);
      socket.removeListener('close', onClose);
      socket.setTimeout(0);
      // Paused, the bytes put back wait for Node's own data listener; nothing new is read before they
      // are, since the socket resumes on the next tick, ahead of any further read.
      socket.pause();
      socket.unshift(unread);
      nodeListener.call(server, socket);
      socket.resume();
    };

    socket.setTimeout(server.keepAliveTimeout || server.headersTimeout);
    socket.on('data', onData);
    socket.on('end', onEnd);
    socket.on('error', onError);
    socket.on('timeout', onTimeout);
    socket.on('close', onClose);
  });

  const closeIdle = server.closeIdleConnections.bind(server);
  server.closeIdleConnections = () => {
    closeIdle();
    for (const socket of held) socket.end();
  };
  const closeAll = server.closeAllConnections.bind(server);
  server.closeAllConnections = () => {
    closeAll();
    for (const socket of held) socket.destroy();
  };
  return undefined;
}

// Generous: a server starting on a busy machine may not read its socket for seconds.
const PROBE_TIMEOUT_MS = 15_000;

/**
 * Checks, on this Node, what the front relies on: the server takes connections through one
 * listener, and a connection handed over with its bytes put back is read by Node's parser in order,
 * then and afterwards. A throwaway server on loopback answers one request from the front, then
 * two from Node on the same connection. Returns what went wrong, or undefined.
 */
export async function verifySocketFront(): Promise<string | undefined> {
  const server = createServer((request, response) => {
    response.end(`node ${request.url}`);
  });
  let laneError: unknown;
  const problem = frontConnections(server, {
    active: () => true,
    failed: (error) => {
      laneError = error;
    },
    answer: (request, sink) => {
      if (request.url !== '/front') return false;
      sink.writeHead(200, { 'content-type': 'text/plain' });
      sink.end(Buffer.from('front /front'));
      return true;
    },
  });
  if (problem) return problem;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const urls = ['/front', '/node', '/again'];
  const expected = ['front /front', 'node /node', 'node /again'];
  try {
    await new Promise<void>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let text = '';
      let answered = 0;
      const timer = setTimeout(() => {
        socket.destroy();
        reject(
          new Error(
            `answer ${answered + 1} did not come within ${PROBE_TIMEOUT_MS} ms; read ${JSON.stringify(text.slice(-200))}`,
          ),
        );
      }, PROBE_TIMEOUT_MS);
      const send = (): void => {
        socket.write(`GET ${urls[answered]} HTTP/1.1\r\nHost: probe\r\n\r\n`);
      };
      socket.setEncoding('latin1');
      socket.on('data', (chunk: string) => {
        text += chunk;
        if (!text.endsWith(expected[answered]!)) return;
        text = '';
        answered += 1;
        if (answered < urls.length) return send();
        clearTimeout(timer);
        socket.destroy();
        resolve();
      });
      socket.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      send();
    });
    return laneError === undefined ? undefined : `the front's answer failed: ${(laneError as Error).message}`;
  } catch (error) {
    return `a connection handed over to Node failed: ${(error as Error).message}`;
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}
