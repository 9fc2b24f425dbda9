// The access log at `info` (docs/decisions/0031-fast-path-access-log.md, 0052): one line per answered
// request, the fast lanes' and the router's, in the JSON shape of the app's own log lines, collected
// in memory and written in one go when 64 KiB have gathered, a second after the first unwritten line,
// or when the server closes, as nginx's `access_log ... buffer=64k flush=1s` does. A line costs a
// string, not a logger call and a write.
import { hostname } from 'node:os';

/** Where the lines go: the app logger's own destination (standard output) unless a test says. */
export type AccessLogSink = (text: string) => void;

/** Which reader took the request off the connection: the socket front, or Node's HTTP parser. */
export type AnsweredVia = 'socket' | 'node';

interface AccessLogEntry {
  readonly method: string;
  readonly url: string;
  readonly host: string | undefined;
  readonly remoteAddress: string | undefined;
  readonly status: number;
  /** Body bytes sent. */
  readonly bytes: number;
  readonly via: AnsweredVia;
}

const ACCESS_LOG_BUFFER_BYTES = 64 * 1024;
const ACCESS_LOG_FLUSH_MS = 1000;
/** pino's number for `info`, so the lines sort and filter with the app's own. */
const INFO = 30;

/** A request the router answered: Fastify's own "request completed" line, written here instead. */
interface RoutedLogEntry {
  readonly reqId: string;
  readonly method: string;
  readonly url: string;
  readonly host: string | undefined;
  readonly remoteAddress: string | undefined;
  readonly status: number;
  readonly responseTimeMs: number;
}

export class AccessLog {
  private pending = '';
  private timer: NodeJS.Timeout | undefined;
  private readonly prefix: string;
  private readonly process: string;

  constructor(
    private readonly sink: AccessLogSink = (text) => process.stdout.write(text),
    private readonly limits = { bufferBytes: ACCESS_LOG_BUFFER_BYTES, flushMs: ACCESS_LOG_FLUSH_MS },
  ) {
    this.prefix = `{"level":${INFO},"time":`;
    this.process = `,"pid":${process.pid},"hostname":${JSON.stringify(hostname())}`;
  }

  /** A fast lane's answer. */
  add(entry: AccessLogEntry): void {
    this.append(
      `${this.prefix}${Date.now()}${this.process},"msg":"static request","method":${JSON.stringify(entry.method)},"url":${JSON.stringify(entry.url)},"host":${JSON.stringify(entry.host ?? '')}` +
        `,"remoteAddress":${JSON.stringify(entry.remoteAddress ?? '')},"statusCode":${entry.status},"bytes":${entry.bytes},"via":"${entry.via}"}\n`,
    );
  }

  /** A routed answer, with the request id its other log lines carry and its response time in ms. */
  addRouted(entry: RoutedLogEntry): void {
    this.append(
      `${this.prefix}${Date.now()}${this.process},"reqId":${JSON.stringify(entry.reqId)},"msg":"request completed","method":${JSON.stringify(entry.method)},"url":${JSON.stringify(entry.url)}` +
        `,"host":${JSON.stringify(entry.host ?? '')},"remoteAddress":${JSON.stringify(entry.remoteAddress ?? '')},"statusCode":${entry.status},"responseTime":${entry.responseTimeMs.toFixed(3)}}\n`,
    );
  }

  private append(line: string): void {
    this.pending += line;
    if (this.pending.length >= this.limits.bufferBytes) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.limits.flushMs).unref();
  }

  /** Writes what has gathered; the server's close calls it, so no line is left behind. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending === '') return;
    const text = this.pending;
    this.pending = '';
    this.sink(text);
  }
}
