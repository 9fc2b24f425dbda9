// The fast lanes' access log (docs/decisions/0031-fast-path-access-log.md): one line per answered
// request, in the JSON shape of the app's own log lines, collected in memory and written in one go
// when 64 KiB have gathered, a second after the first unwritten line, or when the server closes, as
// nginx's `access_log ... buffer=64k flush=1s` does. A line costs a string, not a logger call.
import { hostname } from 'node:os';

/** Where the lines go: the app logger's own destination (standard output) unless a test says. */
export type AccessLogSink = (text: string) => void;

/** Which reader took the request off the connection: the socket front, or Node's HTTP parser. */
export type AnsweredVia = 'socket' | 'node';

export interface AccessLogEntry {
  readonly method: string;
  readonly url: string;
  readonly host: string | undefined;
  readonly remoteAddress: string | undefined;
  readonly status: number;
  /** Body bytes sent. */
  readonly bytes: number;
  readonly via: AnsweredVia;
}

export const ACCESS_LOG_BUFFER_BYTES = 64 * 1024;
export const ACCESS_LOG_FLUSH_MS = 1000;
/** pino's number for `info`, so the lines sort and filter with the app's own. */
const INFO = 30;

export class AccessLog {
  private pending = '';
  private timer: NodeJS.Timeout | undefined;
  private readonly prefix: string;

  constructor(
    private readonly sink: AccessLogSink = (text) => process.stdout.write(text),
    private readonly limits = { bufferBytes: ACCESS_LOG_BUFFER_BYTES, flushMs: ACCESS_LOG_FLUSH_MS },
  ) {
    this.prefix = `{"level":${INFO},"time":`;
    this.suffix = `,"pid":${process.pid},"hostname":${JSON.stringify(hostname())},"msg":"static request"`;
  }

  private readonly suffix: string;

  add(entry: AccessLogEntry): void {
    this.pending +=
      `${this.prefix}${Date.now()}${this.suffix},"method":${JSON.stringify(entry.method)},"url":${JSON.stringify(entry.url)},"host":${JSON.stringify(entry.host ?? '')}` +
      `,"remoteAddress":${JSON.stringify(entry.remoteAddress ?? '')},"statusCode":${entry.status},"bytes":${entry.bytes},"via":"${entry.via}"}\n`;
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
