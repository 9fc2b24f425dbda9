// A bounded per-node map whose entries every node drops at once: `changed(key)` deletes the local
// copy and publishes the key, and each node's subscription deletes its own. The base of the site
// and settings directories.
import type { PubSub } from './types.js';

export class BroadcastMap<V> {
  private readonly entries = new Map<string, V>();
  private unsubscribe: (() => Promise<void>) | undefined;

  constructor(
    private readonly pubsub: PubSub,
    private readonly channel: string,
    private readonly maxEntries = 10_000,
  ) {}

  async start(): Promise<void> {
    this.unsubscribe = await this.pubsub.subscribe(this.channel, (key) => this.entries.delete(key));
  }

  async stop(): Promise<void> {
    await this.unsubscribe?.();
  }

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  /** Stores an entry, evicting the oldest one when full. */
  set(key: string, value: V): void {
    if (this.entries.size >= this.maxEntries && !this.entries.has(key)) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, value);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  /** Every node, this one included, forgets its copy. */
  async changed(key: string): Promise<void> {
    this.entries.delete(key);
    await this.pubsub.publish(this.channel, key);
  }
}
