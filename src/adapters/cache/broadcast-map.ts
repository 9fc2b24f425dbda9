// A bounded per-node map whose entries every node drops at once: `changed(key)` deletes the local
// copy and publishes the key, and each node's subscription deletes its own. `changed` resolves once
// this node has heard its own message back, so by then every subscribed node has been told too and
// answers its next request from the database. The base of the site, settings and plan directories.
import { Echoes } from './echoes.js';
import type { PubSub } from './types.js';

export class BroadcastMap<V> {
  private readonly entries = new Map<string, V>();
  private readonly echoes: Echoes;
  /** Counts the changes heard: see `heard`. */
  private changes = 0;
  private unsubscribe: (() => Promise<void>) | undefined;

  constructor(
    private readonly pubsub: PubSub,
    private readonly channel: string,
    private readonly maxEntries = 10_000,
  ) {
    this.echoes = new Echoes(pubsub.errors);
  }

  async start(): Promise<void> {
    // A message is the key, a newline and the nonce of the node that sent it.
    this.unsubscribe = await this.pubsub.subscribe(this.channel, (message) => {
      const cut = message.lastIndexOf('\n');
      this.entries.delete(cut < 0 ? message : message.slice(0, cut));
      this.changes += 1;
      if (cut >= 0) this.echoes.heard(message.slice(cut + 1));
    });
  }

  async stop(): Promise<void> {
    await this.unsubscribe?.();
  }

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  /** A mark of the changes heard so far: pass it to `set` to keep a value only if no change came in between. */
  heard(): number {
    return this.changes;
  }

  /** Stores an entry, evicting the oldest one when full; not when a change was heard since `mark` (from `heard`). */
  set(key: string, value: V, mark?: number): void {
    if (mark !== undefined && mark !== this.changes) return;
    if (this.entries.size >= this.maxEntries && !this.entries.has(key))
      this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, value);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  /** Every node, this one included, forgets its copy; resolves once the message came back here. */
  async changed(key: string): Promise<void> {
    this.entries.delete(key);
    this.changes += 1;
    // Not subscribed (not started): no echo will come, so do not wait for one.
    await this.echoes.publishAndWait(
      (nonce) => this.pubsub.publish(this.channel, `${key}\n${nonce}`),
      this.unsubscribe ? undefined : 0,
    );
  }
}
