// A map in least-recently-used order, bounded by the total weight of its values, whose misses can
// share one load: the edge keeps release manifests (weighed in files) and blob bytes (in bytes) so.

export class WeightedLru<K, V> {
  private readonly entries = new Map<K, V>();
  private readonly loading = new Map<K, Promise<V | undefined>>();
  private total = 0;

  constructor(
    private readonly maxWeight: number,
    private readonly weigh: (value: V) => number,
  ) {}

  /** The value, marked as just used. */
  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      // Re-insert to keep the map in least-recently-used order.
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  /** The value, or the result of `load` (concurrent misses share one call; `keep` says whether to store it). */
  getOrLoad(key: K, load: () => Promise<V | undefined>, keep: (value: V) => boolean = () => true): V | Promise<V | undefined> {
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

  /** Stores a value; the least recently used ones go while the total weight is over the bound. */
  set(key: K, value: V): void {
    this.delete(key);
    this.entries.set(key, value);
    this.total += this.weigh(value);
    while (this.total > this.maxWeight && this.entries.size > 1) {
      const [oldestKey, oldest] = this.entries.entries().next().value!;
      this.entries.delete(oldestKey);
      this.total -= this.weigh(oldest);
    }
  }

  delete(key: K): void {
    const value = this.entries.get(key);
    if (value === undefined) return;
    this.entries.delete(key);
    this.total -= this.weigh(value);
  }
}
