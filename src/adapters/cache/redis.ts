import { ErrorReporter } from '../../lib/error-reporter.js';
import { randomAlnum } from '../../lib/ids.js';
import { missedMessages, NodeConditions } from '../../lib/node-conditions.js';
import { RedisBreaker, RedisUnavailable } from './breaker.js';
import { Heartbeats } from './peers.js';
import { createMemoryCache } from './memory.js';
import type { Cache, CacheAdapter, MessageHandler, PubSub } from './types.js';

/** Redis cache and pub/sub, shared by every app node. Two connections: commands and subscriptions. */
export async function createRedisCache(url: string, prefix = 'blume:'): Promise<CacheAdapter> {
  const { Redis } = await import('ioredis');
  // No offline queue: while Redis is unreachable a command fails at once (and the cache answers
  // from its per-node copy) instead of waiting for reconnects. Requests wait on a silent Redis only
  // as long as the breaker lets them (breaker.ts, decision 0113); the commands' own timeout only
  // ends what nobody waits for any more. The names let an operator (or a test) find a node's
  // connections in CLIENT LIST.
  const options = {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    commandTimeout: 5_000,
  };
  const nodeId = randomAlnum(8);
  const client = new Redis(url, { ...options, connectionName: `${prefix}${nodeId}:client` });
  const subscriber = new Redis(url, { ...options, connectionName: `${prefix}${nodeId}:subscriber` });
  // ioredis keeps reconnecting, and commands that fail meanwhile say so to their callers; the
  // connection's own errors are warned about, at most once a minute each. The last one is kept: a
  // failed first connect rejects with only "Connection is closed".
  const errors = new ErrorReporter();
  const conditions = new NodeConditions();
  let lastError: Error | undefined;
  client.on('error', (error: Error) => {
    lastError = error;
    errors.report('redis client', error);
  });
  subscriber.on('error', (error: Error) => {
    lastError = error;
    errors.report('redis subscriber', error);
  });
  try {
    await Promise.all([client.connect(), subscriber.connect()]);
  } catch (error) {
    // Unreachable at start: stop the reconnect loops, and say why.
    client.disconnect();
    subscriber.disconnect();
    throw new Error(`cannot connect to Redis`, { cause: lastError ?? error });
  }
  const breaker = new RedisBreaker(() => client.ping(), conditions);

  const handlers = new Map<string, Set<MessageHandler>>();
  subscriber.on('message', (channel: string, message: string) => {
    for (const handler of handlers.get(channel) ?? []) handler(message);
  });

  const shared: Cache = {
    get: async (key) => (await client.get(prefix + key)) ?? undefined,
    set: async (key, value, ttlSeconds) => {
      if (ttlSeconds) await client.set(prefix + key, value, 'EX', ttlSeconds);
      else await client.set(prefix + key, value);
    },
    delete: async (key) => {
      await client.del(prefix + key);
    },
    increment: async (key, ttlSeconds) => {
      const replies = await client
        .multi()
        .incr(prefix + key)
        .expire(prefix + key, ttlSeconds, 'NX')
        .pttl(prefix + key)
        .exec();
      const failed = replies?.find(([error]) => error)?.[0];
      if (!replies || failed) throw failed ?? new Error('the increment was discarded');
      return { count: Number(replies[0]![1]), resetInMs: Math.max(0, Number(replies[2]![1])) };
    },
    ping: async () => {
      await client.ping();
    },
  };
  const local = createMemoryCache(prefix).cache;
  // Each operation asks Redis through the breaker; when Redis fails it (or the breaker is open), the
  // per-node copy answers. The breaker says once when Redis stops answering; other failures are warned about.
  const fallBack =
    <A extends unknown[], R>(operation: (cache: Cache, ...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await breaker.run(() => operation(shared, ...args));
      } catch (error) {
        if (!(error instanceof RedisUnavailable)) errors.report('redis cache (answering from this node)', error);
        return operation(local, ...args);
      }
    };

  /** Whether this node hears the bus: its heartbeats once they run (they publish through `bus`). */
  let hearing = (): boolean => true;
  const bus: Pick<PubSub, 'publish' | 'subscribe'> = {
    publish: async (channel, message) => {
      try {
        await breaker.run(() => client.publish(prefix + channel, message));
      } catch (error) {
        // Called after writes committed: the write stands, other nodes' copies heal by their expiry.
        if (!(error instanceof RedisUnavailable)) errors.report('redis publish (message not sent)', error);
        return false;
      }
      return hearing();
    },
    subscribe: async (channel, handler) => {
      const name = prefix + channel;
      let set = handlers.get(name);
      if (!set) {
        set = new Set();
        handlers.set(name, set);
        await subscriber.subscribe(name);
      }
      set.add(handler);
      return async () => {
        set.delete(handler);
        if (set.size > 0) return;
        handlers.delete(name);
        // Disconnected: nothing to tell Redis; a resubscribed channel without handlers is ignored.
        if (subscriber.status === 'ready') await subscriber.unsubscribe(name);
      };
    },
  };
  const heartbeats = new Heartbeats(bus, conditions, nodeId);
  hearing = () => heartbeats.hearing();
  await heartbeats.start();

  return {
    driver: 'redis',
    prefix,
    cache: {
      get: fallBack((cache, key: string) => cache.get(key)),
      set: fallBack((cache, key: string, value: string, ttlSeconds?: number) => cache.set(key, value, ttlSeconds)),
      delete: fallBack((cache, key: string) => cache.delete(key)),
      increment: fallBack((cache, key: string, ttlSeconds: number) => cache.increment(key, ttlSeconds)),
      // The health check asks Redis itself, and fails at once while the breaker is open.
      ping: () => breaker.run(shared.ping),
    },
    pubsub: { ...bus, errors, nodes: heartbeats, conditions, missed: missedMessages(conditions) },
    close: async () => {
      breaker.stop();
      await heartbeats.stop();
      subscriber.disconnect();
      // Only ask politely when connected.
      if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
      else client.disconnect();
    },
  };
}
