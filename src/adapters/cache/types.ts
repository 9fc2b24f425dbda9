import type { Redis } from 'ioredis';
import type { ErrorReporter } from '../../lib/error-reporter.js';

/**
 * Counters and small values shared by every node. The Redis one falls back to a per-node memory
 * copy while Redis cannot be reached, so rate limits and login throttles fail open to per-node
 * limits instead of failing requests (docs/decisions/0070-dependency-failures.md).
 */
export interface Cache {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, ttlSeconds?: number): Promise<void>;
  delete(key: string): Promise<void>;
  /** Adds one to a counter that expires `ttlSeconds` after its first increment; answers the new count. */
  increment(key: string, ttlSeconds: number): Promise<number>;
  ping(): Promise<void>;
}

export interface BusNodes {
  /** This node's id on the bus. */
  readonly nodeId: string;
  /** Other nodes heard on the bus within the last minute. */
  peers(): string[];
}

export type MessageHandler = (message: string) => void;

export interface PubSub {
  /** Where the errors of the connections behind it are told (rate-limited warnings). */
  readonly errors: ErrorReporter;
  /** This node's id on the bus, and which other nodes are on it. */
  readonly nodes: BusNodes;
  publish(channel: string, message: string): Promise<void>;
  /** Answers a function that ends the subscription. */
  subscribe(channel: string, handler: MessageHandler): Promise<() => Promise<void>>;
}

export interface CacheAdapter {
  driver: 'memory' | 'redis';
  cache: Cache;
  pubsub: PubSub;
  /** The Redis client, for plugins with their own Redis store (rate limits). */
  redis: Redis | undefined;
  /** Prefix of every key and channel, so several deployments or tests can share one Redis. */
  prefix: string;
  close(): Promise<void>;
}
