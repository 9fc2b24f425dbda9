// A map bounded by the total weight of its values, whose misses can share one load: the edge keeps
// release manifests (weighed in files) and blob bytes (in bytes) so. Eviction is "second chance"
// (CLOCK), an approximation of least-recently-used: a hit only sets a flag, where a strict LRU
// would move the entry on every hit, and that reordering allocated on every static request.

interface Entry<V> {
  value: V;
  used: boolean;
}

export class WeightedLru<K, V> {
  private readonly entries = new Map<K, Entry<V>>();
  private readonly loading = new Map<K, Promise<V | undefined>>();
  private total = 0;

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

  /**
   * Stores a value. While the total weight is over the bound, the oldest entry goes, unless it was
   * used since it was stored or last spared (or is the one being stored): then it moves to the back
   * with its flag cleared.
   */
  set(key: K, value: V): void {
    this.delete(key);
    this.entries.set(key, { value, used: false });
    this.total += this.weigh(value);
    while (this.total > this.maxWeight && this.entries.size > 1) {
      const [oldestKey, oldest] = this.entries.entries().next().value!;
      this.entries.delete(oldestKey);
      // The value just stored is never the one to go.
      if (oldest.used || oldestKey === key) {
        oldest.used = false;
        this.entries.set(oldestKey, oldest);
      } else {
        this.total -= this.weigh(oldest.value);
      }
    }
  }

  delete(key: K): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.total -= this.weigh(entry.value);
  }
}
