// Generations of what a node keeps of a scope (a content type, a site's help desk). The key of every
// read kept in a scope holds the scope's current generation; `changed(scope)` ends the generation on
// every node through the cache bus (a `BroadcastMap`), so nothing read before a write is found again.
// A generation also ends by itself after `ttlMs`, or earlier at the time `endsBy` names, so a change
// made behind the app's back, or a lost message, shows within `ttlMs`. A generation started while a
// change was heard is not kept. Concurrent reads past the end of one share the start of the next.
import { BroadcastMap } from './broadcast-map.js';
import type { PubSub } from './types.js';

interface Generation {
  /** Part of every key read in this generation: a read of an ended one is never found again. */
  serial: number;
  /** When it ends by itself (ms since the epoch). */
  until: number;
}

/** When a scope's next generation must end at the latest (ms since the epoch), besides the TTL. */
type GenerationEnd = (scope: string) => Promise<number | undefined>;

export class Generations {
  private readonly current: BroadcastMap<Generation>;
  private readonly starting = new Map<string, Promise<Generation>>();
  private serial = 0;

  constructor(
    pubsub: PubSub,
    channel: string,
    private readonly ttlMs: number,
    private readonly endsBy?: GenerationEnd,
  ) {
    this.current = new BroadcastMap(pubsub, channel);
  }

  start(): Promise<void> {
    return this.current.start();
  }

  stop(): Promise<void> {
    return this.current.stop();
  }

  /** The serial of the scope's current generation, for the key of a read kept in it. */
  async serialOf(scope: string): Promise<number> {
    const kept = this.current.get(scope);
    if (kept && kept.until > Date.now()) return kept.serial;
    let starting = this.starting.get(scope);
    if (!starting) {
      starting = this.begin(scope).finally(() => this.starting.delete(scope));
      this.starting.set(scope, starting);
    }
    return (await starting).serial;
  }

  /** Every node, this one included, ends the scope's generation; call it once a write committed. */
  changed(scope: string): Promise<void> {
    return this.current.changed(scope);
  }

  private async begin(scope: string): Promise<Generation> {
    const now = Date.now();
    const mark = this.current.heard();
    const end = await this.endsBy?.(scope);
    const generation = { serial: ++this.serial, until: Math.min(now + this.ttlMs, end ?? Infinity) };
    // A write heard while the end was looked up may have moved it: such a generation is not kept.
    this.current.set(scope, generation, mark);
    return generation;
  }
}
