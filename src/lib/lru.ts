// A map bounded by the total weight of its values, whose misses can share one load: the edge keeps
// release manifests (weighed in files) and blob bytes (in bytes) so. Eviction is "second chance"
// (CLOCK), an approximation of least-recently-used: a hit only sets a flag, where a strict LRU
// would move the entry on every hit, and that reordering allocated on every static request. The
// clock's hand is a live iterator over the map (insertion order, new entries at the end), kept
// between evictions: a scan goes on where the last one stopped instead of walking again past the
// entries it spared (decision 0071).

interface Entry<V> {
  value: V;
  used: boolean;
}

export class WeightedLru<K, V> {
  private readonly entries = new Map<K, Entry<V>>();
  private readonly loading = new Map<K, Promise<V | undefined>>();
  private hand: MapIterator<[K, Entry<V>]> = this.entries.entries();
  private total = 0;
  /** Entries evicted to stay under the bound, since the map was made. */
  evictions = 0;

  constructor(
    private readonly maxWeight: number,
    private readonly weigh: (value: V) => number,
  ) {}

  /** The value, marked as used since it was stored. */
  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    entry.used = true;
    return entry.value;
  }

  /** The value, or the result of `load` (concurrent misses share one call; `keep` says whether to store it). */
  getOrLoad(
    key: K,
    load: () => Promise<V | undefined>,
    keep: (value: V) => boolean = () => true,
  ): V | Promise<V | undefined> {
    const cached = this.get(key);
    if (cached !== undefined) return cached;
    let pending = this.loading.get(key);
    if (!pending) {
      pending = load()
        .then((value) => {
          if (value !== undefined && keep(value)) this.set(key, value);
          return value;
        })
        .finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
    }
    return pending;
  }

  /** The value, or `load`'s, stored: `getOrLoad` for loads that always answer one. */
  async keep(key: K, load: () => Promise<V>): Promise<V> {
    return (await this.getOrLoad(key, load)) as V;
  }

  /**
   * Stores a value. While the total weight is over the bound, the hand moves on and the entry under
   * it goes, unless it was used since it was stored or the hand last passed it (then its flag is
   * cleared and it stays), or it is the one being stored.
   */
  set(key: K, value: V): void {
    this.delete(key);
    this.entries.set(key, { value, used: false });
    this.total += this.weigh(value);
    while (this.total > this.maxWeight && this.entries.size > 1) {
      let next = this.hand.next();
      if (next.done) {
        this.hand = this.entries.entries();
        next = this.hand.next();
      }
      const [handKey, entry] = next.value!;
      if (handKey === key) continue;
      if (entry.used) {
        entry.used = false;
        continue;
      }
      this.entries.delete(handKey);
      this.total -= this.weigh(entry.value);
      this.evictions += 1;
    }
  }

  /** The total weight of the values held. */
  get weight(): number {
    return this.total;
  }

  /** How many values are held. */
  get size(): number {
    return this.entries.size;
  }

  delete(key: K): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.total -= this.weigh(entry.value);
  }
}
