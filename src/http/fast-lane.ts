// Fast lanes: handlers that may answer a request before Fastify routes it. The static edge uses one
// for the requests it can answer from memory (docs/decisions/0023-edge-fast-lane.md, 0024). A lane
// is asked twice over: first by the socket front (socket-front.ts), for requests it reads off a
// fresh connection itself, then by the Node server, for connections the front handed over; anything
// no lane answers goes through Fastify as before.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { ErrorReporter } from '../lib/error-reporter.js';
import type { AccessLog, AnsweredVia } from './access-log.js';
import type { FastLane, LaneRequest, LaneSink } from './lane.js';
import { frontConnections, verifySocketFront } from './socket-front.js';

interface FastLanes {
  add(lane: FastLane): void;
  /** Logs every answer the lanes give from now on (the routed requests are Fastify's to log). */
  logTo(log: AccessLog): void;
  /**
   * Settles once the socket front has checked, on this Node, the internals it relies on; until it
   * has, and for good when they are not as expected, connections go straight to the Node server.
   */
  ready(): Promise<void>;
  /** Fastify's `serverFactory`: the HTTP/1.1 server Fastify would make, with the lanes in front. */
  serverFactory(
    handler: (req: IncomingMessage, res: ServerResponse) => void,
    options: Record<string, unknown>,
  ): http.Server;
}

/** Records what a lane wrote, for the access log line written once the answer ends. */
class LoggedSink implements LaneSink {
  private status = 0;

  constructor(
    private readonly sink: LaneSink,
    private readonly request: LaneRequest,
    private readonly log: AccessLog,
    private readonly via: AnsweredVia,
  ) {}

  writeHead(status: number, headers: Record<string, string>): void {
    this.status = status;
    this.sink.writeHead(status, headers);
  }

  end(body?: Buffer): void {
    this.sink.end(body);
    const { method, url, headers, remoteAddress } = this.request;
    this.log.add({
      method,
      url,
      host: headers.host,
      remoteAddress,
      status: this.status,
      bytes: method === 'HEAD' ? 0 : (body?.length ?? 0),
      via: this.via,
    });
  }

  destroy(error?: Error): void {
    this.sink.destroy(error);
  }
}

interface FastLaneOptions {
  /** The socket front's check of Node's internals; tests pass a failing one. */
  verifyFront?: () => Promise<string | undefined>;
  /** Where the one warning goes when the check fails. */
  warn?: (message: string) => void;
  /** Hears of lanes that threw on the socket front (rate-limited warnings). */
  errors?: ErrorReporter;
}

export function createFastLanes(laneOptions: FastLaneOptions = {}): FastLanes {
  const { errors } = laneOptions;
  const lanes: FastLane[] = [];
  let log: AccessLog | undefined;
  const ask = (request: LaneRequest, sink: LaneSink): boolean => {
    for (const lane of lanes) if (lane(request, sink)) return true;
    return false;
  };
  const answer = (request: LaneRequest, sink: LaneSink, via: AnsweredVia): boolean =>
    log ? ask(request, new LoggedSink(sink, request, log, via)) : ask(request, sink);
  let frontVerified = false;
  let verifying: Promise<void> | undefined;
  let installProblem: string | undefined;
  const ready = (): Promise<void> => {
    verifying ??= (laneOptions.verifyFront ?? verifySocketFront)().then((checked) => {
      const problem = installProblem ?? checked;
      if (problem === undefined) frontVerified = true;
      else
        (laneOptions.warn ?? ((message: string) => process.emitWarning(message)))(
          `The socket front is off: ${problem}. Static requests take the Node server's path (docs/decisions/0024-socket-front.md).`,
        );
    });
    return verifying;
  };
  return {
    add(lane) {
      lanes.push(lane);
    },
    logTo(accessLog) {
      log = accessLog;
    },
    ready,
    serverFactory(handler, options) {
      const server = http.createServer((options.http ?? {}) as http.ServerOptions, (req, res) => {
        if (
          lanes.length > 0 &&
          answer(
            {
              method: req.method ?? '',
              url: req.url ?? '',
              headers: req.headers,
              remoteAddress: req.socket.remoteAddress,
            },
            res,
            'node',
          )
        )
          return;
        handler(req, res);
      });
      // As Fastify sets up a server it makes itself.
      server.keepAliveTimeout = options.keepAliveTimeout as number;
      server.requestTimeout = options.requestTimeout as number;
      server.setTimeout(options.connectionTimeout as number);
      const perSocket = options.maxRequestsPerSocket as number | undefined;
      if (perSocket && perSocket > 0) server.maxRequestsPerSocket = perSocket;
      installProblem = frontConnections(server, {
        answer: (request, sink) => answer(request, sink, 'socket'),
        active: () => lanes.length > 0 && frontVerified,
        failed: (error) => errors?.report('socket front', error),
      });
      return server;
    },
  };
}
