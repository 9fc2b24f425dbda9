// The cache seam (docs/decisions/0111-cache-seam.md): the one way a node keeps anything it read.
// What a node keeps is filed under a scope (`site:<id>`, `settings:<site>`, ...) whose epoch
// triggers move in the transaction of every statement that writes what the scope's readers read
// (migrations/0041_cache_epochs.sql), whoever writes: a node, the CLI, SQL, a restore. Each node
// polls the epochs that moved every POLL_MS and stops trusting what it keeps under them, so every
// copy heals within a poll with Redis down, partitioned or absent. Where a scope's triggers file
// what each statement changed (cache_changes, decision 0150), a cache that can tell (`affected`)
// keeps what none of the changes touched. After a write request the
// writing node polls at once and announces what moved on the cache bus, so the other nodes drop
// their copies before the answer leaves: messages only make it faster. A poll that finds a move no
// message announced is counted (`missed`): where nodes share a bus, a sign that messages are lost.
import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.js';
import { ErrorReporter } from '../../lib/error-reporter.js';
import { WeightedLru } from '../../lib/lru.js';
import { Echoes } from './echoes.js';
import type { PubSub } from './types.js';

/** How often a node reads the epochs that moved: the bound on how long any copy can stay stale. */
const POLL_MS = 500;
const CHANNEL = 'cache:epochs';
/** A move found by the poll with no message for its scope within this long is a missed message. */
const ANNOUNCE_GRACE_MS = 2_000;
/** Stats of every cache go to the log at `info` this often. */
const STATS_MS = 60_000;
/** Epochs a node remembers having read (`epochOf`, polls); the oldest is forgotten past this. */
const MAX_LEARNED = 100_000;
/** Described moves a node remembers per scope (as many as cache_changes keeps). */
const MAX_DESCRIBED = 256;

/** A move of a scope from one epoch to another, with what each epoch's statement changed where they all said. */
interface Move {
  scope: string;
  from: number | undefined;
  to: number;
  /** The changes filed under each epoch after `from`, in order. */
  changes: unknown[][] | undefined;
}

interface Logger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

interface CacheOptions<V> {
  /** Its name in the log's counters. */
  name: string;
  /** What its values weigh together at most, about in bytes. */
  maxBytes: number;
  /** A value's weight, about in bytes (default: twice its JSON, the value and the answer made of it). */
  weigh?: (value: V) => number;
  /**
   * `answer` (pages, lists) obeys the off switch (BLUME_CACHE_ANSWERS=off); a `directory` (sites,
   * settings, types, credentials) keeps what every request looks up.
   */
  kind: 'answer' | 'directory';
  /** When a value stops being true by itself (ms since the epoch): a scheduled publication, an SLA flag. */
  until?: (value: V) => number | undefined;
  /**
   * Whether one change its scope's triggers filed (cache_changes) may have changed the value. A
   * cache that has it keeps a value through moves whose changes it answers false for; a move that
   * filed nothing ends the value.
   */
  affected?: (value: V, change: unknown) => boolean;
}

interface Entry<V> {
  value: V;
  /** The scope's serial on this node when the load began. */
  serial: number;
  until: number;
}

const jsonWeight = (value: unknown): number => 2 * (JSON.stringify(value)?.length ?? 8);

/** One read-through cache: values under a scope, trusted while the scope's epoch stays put. */
export class Cached<V> {
  private readonly entries: WeightedLru<string, Entry<V>>;
  private readonly loading = new Map<string, Promise<V>>();
  hits = 0;
  misses = 0;

  constructor(
    private readonly epochs: CacheEpochs,
    readonly options: CacheOptions<V>,
    private readonly enabled: boolean,
  ) {
    const weigh = options.weigh ?? jsonWeight;
    // A key's own length counts too, and a little for the entry's bookkeeping.
    this.entries = new WeightedLru(options.maxBytes, (entry) => 64 + weigh(entry.value));
  }

  /** The value of `key` under `scope` if this node holds a true one, without I/O. */
  peek(scope: string, key: string): V | undefined {
    if (!this.enabled) return undefined;
    const entry = this.entries.get(`${scope}\n${key}`);
    return entry && this.trusted(scope, entry) ? entry.value : undefined;
  }

  /**
   * The value of `key` under `scope`: the one held while the scope did not move, or `load`'s
   * (concurrent misses share one load). A load is cached only if the scope did not move while it
   * ran, so a read racing a write never stores what the write changed; a cache that tells what a
   * change affects keeps it under the moves since the load began, and asks about each. `keep` may
   * refuse a value.
   */
  async cached(scope: string, key: string, load: () => Promise<V>, keep?: (value: V) => boolean): Promise<V> {
    if (!this.enabled) return load();
    const full = `${scope}\n${key}`;
    const entry = this.entries.get(full);
    if (entry && this.trusted(scope, entry)) {
      this.hits += 1;
      return entry.value;
    }
    this.misses += 1;
    const serial = this.epochs.serial(scope);
    const loadKey = `${full}\n${serial}`;
    let pending = this.loading.get(loadKey);
    if (!pending) {
      pending = load()
        .then((value) => {
          const current = this.options.affected !== undefined || this.epochs.serial(scope) === serial;
          if (current && (keep?.(value) ?? true))
            this.entries.set(full, { value, serial, until: this.options.until?.(value) ?? Infinity });
          return value;
        })
        .finally(() => this.loading.delete(loadKey));
      this.loading.set(loadKey, pending);
    }
    return pending;
  }

  /** What its values weigh together now, about in bytes. */
  get bytes(): number {
    return this.entries.weight;
  }

  /** Counters for the log; the hit and miss counts start again. */
  takeStats(): Record<string, number | string> | undefined {
    const stats = {
      cache: this.options.name,
      kind: this.options.kind,
      hits: this.hits,
      misses: this.misses,
      evictions: this.entries.evictions,
      entries: this.entries.size,
      bytes: this.entries.weight,
      max_bytes: this.options.maxBytes,
    };
    this.hits = 0;
    this.misses = 0;
    return stats.hits + stats.misses > 0 ? stats : undefined;
  }

  /** Whether the entry still holds: its scope did not move, or no move since changed it (`affected`). */
  private trusted(scope: string, entry: Entry<V>): boolean {
    if (Date.now() >= entry.until) return false;
    const serial = this.epochs.serial(scope);
    if (entry.serial === serial) return true;
    const affected = this.options.affected;
    if (!affected) return false;
    const changes = this.epochs.changesSince(scope, entry.serial);
    if (!changes || changes.some((change) => affected(entry.value, change))) return false;
    entry.serial = serial;
    return true;
  }
}

interface PolledRow {
  kind: 'epoch' | 'changes' | 'horizon';
  scope: string | null;
  epoch: string | number;
  changes: unknown[] | null;
}

/** An announcement on the bus: the scopes that moved, and each described move's changes. */
interface Announcement {
  scopes: string[];
  nonce: string;
  described?: Array<{ scope: string; from: number; to: number; changes: unknown[][] }>;
}

export class CacheEpochs {
  /** Per scope, how many times this node learned it moved: what its entries are checked against. */
  private readonly serials = new Map<string, number>();
  /** Per scope, its epoch as this node last read it, and the serial it was read under (`epochOf`). */
  private readonly learned = new Map<string, { epoch: number; serial: number }>();
  /** Per scope, the epoch this node last applied (by a poll or a message), to tell a move from a row read again. */
  private readonly applied = new Map<string, number>();
  /** Whether `applied` ever forgot a scope (past MAX_LEARNED): then a scope missing from it is unknown. */
  private forgot = false;
  /** Per scope, the changes of its last described moves by serial; cleared by a move that said nothing. */
  private readonly described = new Map<string, Array<{ serial: number; changes: unknown[] }>>();
  /** The oldest transaction the last poll could not see yet: the next poll reads rows it moved, and later ones. */
  private horizon: number | undefined;
  /** Scopes a message announced, by when, not yet found by a poll. */
  private readonly announced = new Map<string, number>();
  /** Scopes a poll found, by when, not yet announced by a message. */
  private readonly unannounced = new Map<string, number>();
  private readonly caches: Array<Cached<never>> = [];
  private readonly echoes: Echoes;
  /** The poll under way, and the one that starts after it (callers meanwhile share it). */
  private running: Promise<Move[]> | undefined;
  private queued: Promise<Move[]> | undefined;
  private timers: NodeJS.Timeout[] = [];
  private unsubscribe: (() => Promise<void>) | undefined;
  private logger: Logger | undefined;
  /** Where failed polls and announcements are told (rate-limited warnings). */
  readonly errors = new ErrorReporter();
  /** Moves a poll found that no message announced in time, since the node started. */
  missed = 0;
  /** When the last such move was counted (ms since the epoch), if ever. */
  lastMissedAt: number | undefined;
  /** Announcements that failed after their write committed (logged, the write answered anyway). */
  failedAnnouncements = 0;

  constructor(
    private readonly db: Executor,
    private readonly pubsub: PubSub,
    private readonly options: {
      answers: boolean;
      pollMs?: number;
    } = { answers: true },
  ) {
    this.echoes = new Echoes(pubsub.errors);
  }

  /** A new read-through cache on this seam. */
  cache<V>(options: CacheOptions<V>): Cached<V> {
    const cache = new Cached<V>(this, options, options.kind === 'directory' || this.options.answers);
    this.caches.push(cache as unknown as Cached<never>);
    return cache;
  }

  async start(): Promise<void> {
    this.unsubscribe = await this.pubsub.subscribe(CHANNEL, (message) => this.received(message));
    await this.poll();
    const poll = setInterval(() => {
      this.poll().catch((error: unknown) => this.errors.report('cache epochs poll', error));
    }, this.options.pollMs ?? POLL_MS);
    const stats = setInterval(() => this.logStats(), STATS_MS);
    this.timers = [poll, stats];
    for (const timer of this.timers) timer.unref();
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    // What the counters held since the last minute's lines, so a short run (a bench) is told too.
    if (this.timers.length > 0) this.logStats();
    this.timers = [];
    await this.queued?.catch(() => undefined);
    await this.running?.catch(() => undefined);
    await this.unsubscribe?.();
  }

  /** The app's log: failed polls and announcements warn there, and the caches' counters go there once a minute. */
  attach(logger: Logger): void {
    this.logger = logger;
    this.errors.attach(logger);
  }

  /**
   * Whether a poll found a move no message announced within the last `windowMs`: where nodes share
   * a bus, this node's pub/sub lost messages then (the health report's `degraded`).
   */
  missedWithin(windowMs: number): boolean {
    return this.lastMissedAt !== undefined && Date.now() - this.lastMissedAt <= windowMs;
  }

  /** How many times this node learned that `scope` moved. */
  serial(scope: string): number {
    return this.serials.get(scope) ?? 0;
  }

  /**
   * Every change filed by the moves of `scope` after its serial `since`, or undefined where a move
   * filed nothing or this node no longer remembers one.
   */
  changesSince(scope: string, since: number): unknown[] | undefined {
    const moves = this.described.get(scope);
    const current = this.serial(scope);
    if (!moves || moves.length < current - since || moves[moves.length - 1]!.serial !== current) return undefined;
    return moves.slice(moves.length - (current - since)).flatMap((move) => move.changes);
  }

  /**
   * The scope's epoch, the same on every node (an HTTP answer's `ETag` is made of it): the one this
   * node read while the scope did not move, or read now. A read that finds an epoch this node did not
   * know of (or its first) moves the scope here too, so nothing this node cached from before it is
   * trusted again: an answer is never older than the epoch it is tagged with.
   */
  async epochOf(scope: string): Promise<number> {
    const serial = this.serial(scope);
    const held = this.learned.get(scope);
    if (held && held.serial === serial) return held.epoch;
    const [row] = await queryRows<{ epoch: string | number }>(
      this.db,
      sql`select epoch from cache_epochs where scope = ${scope}`,
    );
    const epoch = Number(row?.epoch ?? 0);
    // A poll or a message moved it meanwhile: what this read found may be older than what it learned.
    if (this.serial(scope) !== serial) return epoch;
    if (held?.epoch !== epoch) this.move(scope);
    if (this.learned.size >= MAX_LEARNED) this.learned.delete(this.learned.keys().next().value!);
    this.learned.set(scope, { epoch, serial: this.serial(scope) });
    return epoch;
  }

  /**
   * Reads the epochs moved since the last poll (one statement on an index), stops trusting what
   * this node keeps under each, and answers the scopes. A poll asked for while one runs starts
   * after it, so it sees every write committed before the call.
   */
  async poll(): Promise<string[]> {
    return (await this.moves()).map((move) => move.scope);
  }

  private moves(): Promise<Move[]> {
    if (this.queued) return this.queued;
    if (!this.running) return this.run();
    const queued = this.running
      .catch(() => [])
      .then(() => {
        this.queued = undefined;
        return this.run();
      });
    this.queued = queued;
    return queued;
  }

  /**
   * After a write committed: finds what it moved and tells every node, waiting (briefly) until this
   * node heard its own message back, so the others have too. Never throws: a failure is logged and
   * counted, and the other nodes find the move with their next poll.
   */
  async announce(): Promise<void> {
    try {
      const moved = await this.moves();
      if (moved.length === 0) return;
      const described = moved.flatMap(({ scope, from, to, changes }) =>
        from !== undefined && changes ? [{ scope, from, to, changes }] : [],
      );
      let sent = true;
      await this.echoes.publishAndWait(
        async (nonce) => {
          const announcement: Announcement = { scopes: moved.map((move) => move.scope), nonce, described };
          sent = await this.pubsub.publish(CHANNEL, JSON.stringify(announcement));
          return sent;
        },
        this.unsubscribe ? (this.options.pollMs ?? POLL_MS) : 0,
      );
      // The bus did not take it (Redis down, or this node cut off): the pub/sub adapter said why.
      if (!sent) this.failedAnnouncements += 1;
    } catch (error) {
      this.failedAnnouncements += 1;
      this.errors.report('cache epochs announcement (other nodes find the change with their next poll)', error);
    }
  }

  private run(): Promise<Move[]> {
    const running: Promise<Move[]> = this.read().finally(() => {
      if (this.running === running) this.running = undefined;
    });
    this.running = running;
    return running;
  }

  private async read(): Promise<Move[]> {
    // The first poll reads where every epoch stands (one row per scope): nothing is cached yet, so
    // nothing moved for this node, and each later move of a scope starts from an epoch it knows, so
    // that its filed changes can tell what it changed. (Rows a transaction still open at start moved
    // are read again later; their epochs tell.)
    const first = this.horizon === undefined;
    const since = first ? sql`0` : sql`${this.horizon}`;
    const rows = await queryRows<PolledRow>(
      this.db,
      sql`select 'epoch' as kind, scope, epoch, null::jsonb as changes from cache_epochs where moved_by >= ${since}
          union all select 'changes', scope, epoch, changes from cache_changes
            where moved_by >= ${first ? sql`pg_snapshot_xmin(pg_current_snapshot())::text::bigint` : since}
          union all select 'horizon', null, pg_snapshot_xmin(pg_current_snapshot())::text::bigint, null`,
    );
    const filed = new Map<string, Map<number, unknown[]>>();
    for (const row of rows) {
      if (row.kind === 'horizon') this.horizon = Number(row.epoch);
      if (row.kind !== 'changes') continue;
      const scope = filed.get(row.scope!) ?? new Map<number, unknown[]>();
      filed.set(row.scope!, scope.set(Number(row.epoch), row.changes!));
    }
    const moved: Move[] = [];
    for (const row of rows) {
      if (row.kind !== 'epoch') continue;
      const scope = row.scope!;
      const to = Number(row.epoch);
      const from = this.standing(scope);
      if (from === to) continue;
      this.apply(scope, to);
      if (!first) moved.push({ scope, from, to, changes: changesBetween(filed.get(scope), from, to) });
    }
    const now = Date.now();
    for (const { scope, to, changes } of moved) {
      this.move(scope, changes?.flat());
      // What is loaded from now on is at least as new as the epoch this poll read.
      if (this.learned.has(scope)) this.learned.set(scope, { epoch: to, serial: this.serial(scope) });
      if (this.announced.delete(scope)) continue;
      if (!this.unannounced.has(scope)) this.unannounced.set(scope, now);
    }
    this.countMissed(now);
    return moved;
  }

  /**
   * Another node's (or this node's) announcement: each scope moves here at once. A described move
   * that covers the epochs after the one this node stands at keeps their changes; one this node
   * applied already is skipped.
   */
  private received(message: string): void {
    let parsed: Announcement;
    try {
      parsed = JSON.parse(message) as Announcement;
    } catch (error) {
      this.errors.report('cache epochs message', error);
      return;
    }
    const now = Date.now();
    const described = new Map((parsed.described ?? []).map((move) => [move.scope, move]));
    for (const scope of parsed.scopes) {
      const move = described.get(scope);
      const applied = this.standing(scope);
      if (move && applied !== undefined && applied >= move.to) {
        // This node's own poll found it first.
      } else if (move && applied !== undefined && applied >= move.from) {
        this.apply(scope, move.to);
        this.move(scope, move.changes.slice(applied - move.from).flat());
      } else this.move(scope);
      if (!this.unannounced.delete(scope)) this.announced.set(scope, now);
    }
    this.echoes.received(parsed.nonce);
  }

  /** The scope moved: nothing kept under it is trusted again, but for what `changes` did not touch. */
  private move(scope: string, changes?: unknown[]): void {
    const serial = this.serial(scope) + 1;
    this.serials.set(scope, serial);
    if (!changes) {
      this.described.delete(scope);
      return;
    }
    const moves = this.described.get(scope) ?? [];
    moves.push({ serial, changes });
    if (moves.length > MAX_DESCRIBED) moves.shift();
    this.described.set(scope, moves);
  }

  /** The epoch this node stands at for the scope: a scope with no row when it started stood at 0. */
  private standing(scope: string): number | undefined {
    return this.applied.get(scope) ?? (this.forgot ? undefined : 0);
  }

  /** The epoch this node stands at for the scope, remembered for the last MAX_LEARNED scopes. */
  private apply(scope: string, epoch: number): void {
    this.applied.delete(scope);
    if (this.applied.size >= MAX_LEARNED) {
      this.applied.delete(this.applied.keys().next().value!);
      this.forgot = true;
    }
    this.applied.set(scope, epoch);
  }

  /** Counts the moves no message announced in time, and forgets announcements no poll matched. */
  private countMissed(now: number): void {
    for (const [scope, at] of this.unannounced) {
      if (now - at < ANNOUNCE_GRACE_MS) continue;
      this.unannounced.delete(scope);
      this.missed += 1;
      this.lastMissedAt = now;
      this.errors.report(
        'cache epochs',
        new Error(`"${scope}" moved and no message said so; this node found it by polling`),
      );
    }
    for (const [scope, at] of this.announced) if (now - at >= ANNOUNCE_GRACE_MS * 5) this.announced.delete(scope);
  }

  /** Each used cache's counters, then what they all hold beside the process's memory. */
  private logStats(): void {
    if (!this.logger) return;
    for (const cache of this.caches) {
      const stats = cache.takeStats();
      if (stats) this.logger.info(stats, `cache ${cache.options.name}`);
    }
    const { rss, heapUsed } = process.memoryUsage();
    const bytes = this.caches.reduce((sum, cache) => sum + cache.bytes, 0);
    this.logger.info({ bytes, rss, heap_used: heapUsed }, 'caches');
  }
}

/** The changes filed for each epoch after `from` up to `to`, or undefined if any of them filed none. */
function changesBetween(filed: Map<number, unknown[]> | undefined, from: number | undefined, to: number) {
  if (!filed || from === undefined || to <= from || to - from > MAX_DESCRIBED) return undefined;
  const changes: unknown[][] = [];
  for (let epoch = from + 1; epoch <= to; epoch += 1) {
    const filedFor = filed.get(epoch);
    if (!filedFor) return undefined;
    changes.push(filedFor);
  }
  return changes;
}
