// Each node's copy of the published reads of stored content types: pages of lists with their totals,
// and entries by id or slug, which read keys and the sites built on them ask for again and again
// (docs/decisions/0105-published-reads-kept-per-node.md). A read is kept under its type's
// generation. A write through the Content API or the editor ends the generation on every node (the
// cache bus, `cms:entries`) before it answers. A generation lasts until the type's next scheduled
// publication and TTL_MS at most, so a change made behind the app's back, or a lost message, shows
// within TTL_MS. Drafts and the forum's types are never kept.
import { and, eq, gt, min, sql } from 'drizzle-orm';
import { BroadcastMap } from '../adapters/cache/broadcast-map.js';
import type { PubSub } from '../adapters/cache/index.js';
import type { Database } from '../db/client.js';
import { WeightedLru } from '../lib/lru.js';
import type { StatusView } from './query.js';
import { cmsEntries, type ContentTypeRow, type EntryRow } from './tables.js';

/** How long a node serves a type's kept reads without hearing of a change. */
export const TTL_MS = 5_000;
/** What each of the two stores (lists, entries) keeps at most, in characters of the rows' JSON. */
const MAX_WEIGHT = 16 * 1024 * 1024;

export interface ListPage {
  rows: EntryRow[];
  total: number;
  estimated: boolean;
}

interface Generation {
  /** Part of every key read in this generation: a read of an ended one is never found again. */
  serial: number;
  /** When it ends by itself (ms since the epoch). */
  until: number;
}

const weighRow = (row: EntryRow): number => 256 + JSON.stringify(row.data).length + JSON.stringify(row.html).length;

export class PublishedReads {
  private readonly generations: BroadcastMap<Generation>;
  private readonly lists = new WeightedLru<string, ListPage>(MAX_WEIGHT, (page) => page.rows.reduce((sum, row) => sum + weighRow(row), 64));
  private readonly entries = new WeightedLru<string, EntryRow>(MAX_WEIGHT, weighRow);
  private readonly starting = new Map<string, Promise<Generation>>();
  private serial = 0;

  constructor(
    private readonly db: Database,
    pubsub: PubSub,
  ) {
    this.generations = new BroadcastMap(pubsub, 'cms:entries');
  }

  start(): Promise<void> {
    return this.generations.start();
  }

  stop(): Promise<void> {
    return this.generations.stop();
  }

  /** A page of `type`'s list as `view` sees it; `query` names everything else the page depends on. */
  async list(type: ContentTypeRow, view: StatusView, query: string, load: () => Promise<ListPage>): Promise<ListPage> {
    if (view !== 'published') return load();
    const key = await this.keyOf(type, query);
    return (await this.lists.getOrLoad(key, load))!;
  }

  /** An entry by id or slug as `view` sees it; `load` throws when there is none. */
  async entry(type: ContentTypeRow, view: StatusView, idOrSlug: string, load: () => Promise<EntryRow>): Promise<EntryRow> {
    if (view !== 'published') return load();
    const key = await this.keyOf(type, idOrSlug);
    return (await this.entries.getOrLoad(key, load))!;
  }

  /** Every node, this one included, stops serving what it kept of the type; call it once a write committed. */
  changed(typeId: string): Promise<void> {
    return this.generations.changed(typeId);
  }

  /** The key of a read: the type as it is now (a changed type is a new key), its generation, the read. */
  private async keyOf(type: ContentTypeRow, read: string): Promise<string> {
    const { serial } = await this.generation(type.id);
    return `${type.id}\n${type.updatedAt.getTime()}\n${serial}\n${read}`;
  }

  /** The type's current generation; concurrent reads past the end of one share the start of the next. */
  private generation(typeId: string): Generation | Promise<Generation> {
    const kept = this.generations.get(typeId);
    if (kept && kept.until > Date.now()) return kept;
    let starting = this.starting.get(typeId);
    if (!starting) {
      starting = this.begin(typeId).finally(() => this.starting.delete(typeId));
      this.starting.set(typeId, starting);
    }
    return starting;
  }

  private async begin(typeId: string): Promise<Generation> {
    const now = Date.now();
    const mark = this.generations.heard();
    const [next] = await this.db
      .select({ at: min(cmsEntries.publishedAt) })
      .from(cmsEntries)
      .where(and(eq(cmsEntries.typeId, typeId), eq(cmsEntries.status, 'published'), gt(cmsEntries.publishedAt, sql`now()`)));
    const generation = { serial: ++this.serial, until: Math.min(now + TTL_MS, next?.at?.getTime() ?? Infinity) };
    // A write heard while the next publication was looked up may have scheduled an earlier one.
    this.generations.set(typeId, generation, mark);
    return generation;
  }
}
