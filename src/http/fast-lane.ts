// Fast lanes: handlers that may answer a raw request before Fastify routes it. The static edge uses
// one for the requests it can answer from memory (docs/decisions/0023-edge-fast-lane.md); anything a
// lane does not answer goes through Fastify as before.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';

/** Answers the request and returns true, or returns false, having written nothing, to pass it on. */
export type FastLane = (req: IncomingMessage, res: ServerResponse) => boolean;

export interface FastLanes {
  add(lane: FastLane): void;
  /** Fastify's `serverFactory`: the HTTP/1.1 server Fastify would make, with the lanes in front. */
  serverFactory(handler: (req: IncomingMessage, res: ServerResponse) => void, options: Record<string, unknown>): http.Server;
}

export function createFastLanes(): FastLanes {
  const lanes: FastLane[] = [];
  return {
    add(lane) {
      lanes.push(lane);
    },
    serverFactory(handler, options) {
      const server = http.createServer((options.http ?? {}) as http.ServerOptions, (req, res) => {
        for (const lane of lanes) if (lane(req, res)) return;
        handler(req, res);
      });
      // As Fastify sets up a server it makes itself.
      server.keepAliveTimeout = options.keepAliveTimeout as number;
      server.requestTimeout = options.requestTimeout as number;
      server.setTimeout(options.connectionTimeout as number);
      const perSocket = options.maxRequestsPerSocket as number | undefined;
      if (perSocket && perSocket > 0) server.maxRequestsPerSocket = perSocket;
      return server;
    },
  };
}
