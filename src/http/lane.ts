// What a fast lane is (fast-lane.ts): what it reads of a request and where it writes its answer,
// shared by the Node server path and the socket front.
import type { IncomingHttpHeaders } from 'node:http';

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
