// Each node's copy of the published reads of stored content types, as they leave: pages of lists
// with their totals, and entries by id or slug, which read keys and the sites built on them ask for
// again and again (docs/decisions/0105-published-reads-kept-per-node.md). A read is kept under its
// type's generation. A write through the Content API or the editor ends the generation on every node (the
// cache bus, `cms:entries`) before it answers. A generation lasts until the type's next scheduled
// publication and TTL_MS at most, so a change made behind the app's back, or a lost message, shows
// within TTL_MS. Drafts, the forum's types and reads with `include=` (they span types) are never kept.
import { and, eq, gt, min, sql } from 'drizzle-orm';
import { Generations } from '../adapters/cache/generations.js';
import type { PubSub } from '../adapters/cache/index.js';
import type { Database } from '../db/client.js';
import { WeightedLru } from '../lib/lru.js';
import type { StatusView } from './query.js';
import type { EntryOut } from './schemas.js';
import { cmsEntries, type ContentTypeRow } from './tables.js';

/** How long a node serves a type's kept reads without hearing of a change. */
export const TTL_MS = 5_000;
/** What each of the two stores (lists, entries) keeps at most, in characters of JSON. */
const MAX_WEIGHT = 16 * 1024 * 1024;

interface ListPage {
  rows: EntryOut[];
  total: number;
  estimated?: boolean;
}

interface TaggedEntry {
  entry: EntryOut;
  etag: string;
}

/** The value, and the answer serialized from it once (`sendSerializedOnce`), which is about as long. */
const weigh = (value: object): number => 2 * JSON.stringify(value).length;

export class PublishedReads {
  private readonly generations: Generations;
  private readonly lists = new WeightedLru<string, ListPage>(MAX_WEIGHT, weigh);
  private readonly entries = new WeightedLru<string, TaggedEntry>(MAX_WEIGHT, weigh);

  constructor(
    private readonly db: Database,
    pubsub: PubSub,
  ) {
    this.generations = new Generations(pubsub, 'cms:entries', TTL_MS, (typeId) => this.nextPublication(typeId));
  }

  start(): Promise<void> {
    return this.generations.start();
  }

  stop(): Promise<void> {
    return this.generations.stop();
  }

  /** A page of `type`'s list as `view` sees it; `query` names everything else the answer depends on. */
  async list(type: ContentTypeRow, view: StatusView, query: string, load: () => Promise<ListPage>): Promise<ListPage> {
    if (view !== 'published') return load();
    const key = await this.keyOf(type, query);
    return this.lists.keep(key, load);
  }

  /** An entry as `view` sees it; `query` names it and the answer's shape; `load` throws when there is none. */
  async entry(
    type: ContentTypeRow,
    view: StatusView,
    query: string,
    load: () => Promise<TaggedEntry>,
  ): Promise<TaggedEntry> {
    if (view !== 'published') return load();
    const key = await this.keyOf(type, query);
    return this.entries.keep(key, load);
  }

  /** Every node, this one included, stops serving what it kept of the type; call it once a write committed. */
  changed(typeId: string): Promise<void> {
    return this.generations.changed(typeId);
  }

  /** The key of a read: the type as it is now (a changed type is a new key), its generation, the read. */
  private async keyOf(type: ContentTypeRow, read: string): Promise<string> {
    const serial = await this.generations.serialOf(type.id);
    return `${type.id}\n${type.updatedAt.getTime()}\n${serial}\n${read}`;
  }

  /** When the type's next scheduled entry is published: its generation ends then, so the entry shows. */
  private async nextPublication(typeId: string): Promise<number | undefined> {
    const [next] = await this.db
      .select({ at: min(cmsEntries.publishedAt) })
      .from(cmsEntries)
      .where(
        and(eq(cmsEntries.typeId, typeId), eq(cmsEntries.status, 'published'), gt(cmsEntries.publishedAt, sql`now()`)),
      );
    return next?.at?.getTime();
  }
}
