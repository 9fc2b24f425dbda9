import { ErrorReporter } from '../../lib/error-reporter.js';
import type { CacheAdapter, MessageHandler } from './types.js';

/** Redis cache and pub/sub, shared by every app node. Two connections: commands and subscriptions. */
export async function createRedisCache(url: string, prefix = 'blume:'): Promise<CacheAdapter> {
  const { Redis } = await import('ioredis');
  const options = { lazyConnect: true, maxRetriesPerRequest: 2, enableOfflineQueue: true };
  const client = new Redis(url, options);
  const subscriber = new Redis(url, options);
  // ioredis keeps reconnecting, and commands that fail meanwhile say so to their callers; the
  // connection's own errors are warned about, at most once a minute each. The last one is kept: a
  // failed first connect rejects with only "Connection is closed".
  const errors = new ErrorReporter();
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

  const handlers = new Map<string, Set<MessageHandler>>();
  subscriber.on('message', (channel: string, message: string) => {
    for (const handler of handlers.get(channel) ?? []) handler(message);
  });

  return {
    driver: 'redis',
    redis: client,
    prefix,
    cache: {
      get: async (key) => (await client.get(prefix + key)) ?? undefined,
      set: async (key, value, ttlSeconds) => {
        if (ttlSeconds) await client.set(prefix + key, value, 'EX', ttlSeconds);
        else await client.set(prefix + key, value);
      },
      delete: async (key) => {
        await client.del(prefix + key);
      },
      increment: async (key, ttlSeconds) => {
        const [[, count] = []] = (await client
          .multi()
          .incr(prefix + key)
          .expire(prefix + key, ttlSeconds, 'NX')
          .exec()) ?? [[]];
        return Number(count);
      },
      ping: async () => {
        await client.ping();
      },
    },
    pubsub: {
      errors,
      publish: async (channel, message) => {
        await client.publish(prefix + channel, message);
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
          if (set.size === 0) {
            handlers.delete(name);
            await subscriber.unsubscribe(name);
          }
        };
      },
    },
    close: async () => {
      subscriber.disconnect();
      // QUIT waits in the offline queue while Redis is unreachable; only ask politely when connected.
      if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
      else client.disconnect();
    },
  };
}
