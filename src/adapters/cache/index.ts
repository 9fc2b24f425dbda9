import type { Config } from '../../config/index.js';
import { createMemoryCache } from './memory.js';
import { createRedisCache } from './redis.js';
import type { CacheAdapter } from './types.js';

export type { Cache, CacheAdapter, PubSub } from './types.js';

export async function createCache(config: Pick<Config, 'redis'>, prefix?: string): Promise<CacheAdapter> {
  return config.redis.enabled ? createRedisCache(config.redis.url, prefix) : createMemoryCache(prefix);
}
