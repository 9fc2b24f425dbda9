import type { ErrorReporter } from '../../lib/error-reporter.js';
import type { NodeConditions } from '../../lib/node-conditions.js';

/**
 * Counters and small values shared by every node. The Redis one falls back to a per-node memory
 * copy while Redis cannot be reached or does not answer in time, so rate limits and login throttles
 * fail open to per-node limits instead of failing or stalling requests (decisions 0070, 0113).
 */
export interface Cache {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, ttlSeconds?: number): Promise<void>;
  delete(key: string): Promise<void>;
  /**
   * Adds one to a counter that expires `ttlSeconds` after its first increment; answers the new
   * count and how long until the counter expires.
   */
  increment(key: string, ttlSeconds: number): Promise<{ count: number; resetInMs: number }>;
  ping(): Promise<void>;
}

export interface BusNodes {
  /** This node's id on the bus. */
  readonly nodeId: string;
  /** Other nodes heard on the bus within the last minute. */
  peers(): string[];
  /** Whether this node heard its own heartbeat lately: false while it may be missing messages. */
  hearing(): boolean;
}

export type MessageHandler = (message: string) => void;

export interface PubSub {
  /** Where the errors of the connections behind it are told (rate-limited warnings). */
  readonly errors: ErrorReporter;
  /** This node's id on the bus, and which other nodes are on it. */
  readonly nodes: BusNodes;
  /** What degrades this node (Redis, the bus, missed invalidations), as `/up/databases` lists it. */
  readonly conditions: NodeConditions;
  /**
   * Sends a message to every subscribed node. Never rejects and never waits longer than a Redis
   * command may (a message that cannot be sent is reported and counted, not thrown: it is called
   * after writes committed). Answers whether this node will hear the message back: Redis took it
   * and this node hears the bus (see `BusNodes.hearing`).
   */
  publish(channel: string, message: string): Promise<boolean>;
  /**
   * Says that this node may have missed messages (a version moved that no message announced):
   * `/up/databases` lists `invalidations` as degraded for a while, and the log says so once.
   */
  missed(reason: string): void;
  /** Answers a function that ends the subscription. */
  subscribe(channel: string, handler: MessageHandler): Promise<() => Promise<void>>;
}

export interface CacheAdapter {
  driver: 'memory' | 'redis';
  cache: Cache;
  pubsub: PubSub;
  /** Prefix of every key and channel, so several deployments or tests can share one Redis. */
  prefix: string;
  close(): Promise<void>;
}
