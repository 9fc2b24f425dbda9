// Fast lanes: handlers that may answer a request before Fastify routes it. The static edge uses one
// for the requests it can answer from memory (docs/decisions/0023-edge-fast-lane.md, 0024). A lane
// is asked twice over: first by the socket front (socket-front.ts), for requests it reads off a
// fresh connection itself, then by the Node server, for connections the front handed over; anything
// no lane answers goes through Fastify as before.
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { frontConnections } from './socket-front.js';

/** What a lane reads of a request. */
export interface LaneRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly remoteAddress: string | undefined;
}

/** Where a lane writes its answer: a `ServerResponse`, or the socket front's writer. */
export interface LaneSink {
  writeHead(status: number, headers: Record<string, string>): unknown;
  end(body?: Buffer): unknown;
  /** Drops the connection: for an error after the answer began. */
  destroy(error?: Error): unknown;
}

/** Answers the request and returns true, or returns false, having written nothing, to pass it on. */
export type FastLane = (request: LaneRequest, sink: LaneSink) => boolean;

export interface FastLanes {
  add(lane: FastLane): void;
  /** Fastify's `serverFactory`: the HTTP/1.1 server Fastify would make, with the lanes in front. */
  serverFactory(handler: (req: IncomingMessage, res: ServerResponse) => void, options: Record<string, unknown>): http.Server;
}

export function createFastLanes(): FastLanes {
  const lanes: FastLane[] = [];
  const answer = (request: LaneRequest, sink: LaneSink): boolean => {
    for (const lane of lanes) if (lane(request, sink)) return true;
    return false;
  };
  return {
    add(lane) {
      lanes.push(lane);
    },
    serverFactory(handler, options) {
      const server = http.createServer((options.http ?? {}) as http.ServerOptions, (req, res) => {
        if (lanes.length > 0 && answer({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, remoteAddress: req.socket.remoteAddress }, res)) return;
        handler(req, res);
      });
      // As Fastify sets up a server it makes itself.
      server.keepAliveTimeout = options.keepAliveTimeout as number;
      server.requestTimeout = options.requestTimeout as number;
      server.setTimeout(options.connectionTimeout as number);
      const perSocket = options.maxRequestsPerSocket as number | undefined;
      if (perSocket && perSocket > 0) server.maxRequestsPerSocket = perSocket;
      frontConnections(server, { answer, active: () => lanes.length > 0 });
      return server;
    },
  };
}
