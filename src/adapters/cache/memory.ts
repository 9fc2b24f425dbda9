import { EventEmitter } from 'node:events';
import { ErrorReporter } from '../../lib/error-reporter.js';
import { missedMessages, NodeConditions } from '../../lib/node-conditions.js';
import { alone } from './peers.js';
import type { CacheAdapter } from './types.js';

interface Entry {
  value: string;
  expiresAt: number;
}

/** In-process cache and pub/sub: the embedded default, correct for a single node. */
export function createMemoryCache(prefix = ''): CacheAdapter {
  const entries = new Map<string, Entry>();
  const bus = new EventEmitter();
  bus.setMaxListeners(0);
  const errors = new ErrorReporter();
  const conditions = new NodeConditions();

  const live = (key: string): Entry | undefined => {
    const entry = entries.get(key);
    if (entry && entry.expiresAt <= Date.now()) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  };

  return {
    driver: 'memory',
    prefix,
    cache: {
      get: async (key) => live(key)?.value,
      set: async (key, value, ttlSeconds) => {
        entries.set(key, { value, expiresAt: ttlSeconds ? Date.now() + ttlSeconds * 1000 : Infinity });
      },
      delete: async (key) => {
        entries.delete(key);
      },
      increment: async (key, ttlSeconds) => {
        const entry = live(key);
        const count = entry ? Number(entry.value) + 1 : 1;
        const expiresAt = entry?.expiresAt ?? Date.now() + ttlSeconds * 1000;
        entries.set(key, { value: String(count), expiresAt });
        return { count, resetInMs: expiresAt - Date.now() };
      },
      ping: async () => {},
    },
    pubsub: {
      errors,
      nodes: alone(),
      conditions,
      missed: missedMessages(conditions),
      publish: async (channel, message) => {
        try {
          bus.emit(channel, message);
        } catch (error) {
          // A subscriber's handler threw: the write that published must not fail for it.
          errors.report('pub/sub subscriber', error);
        }
        return true;
      },
      subscribe: async (channel, handler) => {
        bus.on(channel, handler);
        return async () => {
          bus.off(channel, handler);
        };
      },
    },
    close: async () => {
      entries.clear();
      bus.removeAllListeners();
    },
  };
}
