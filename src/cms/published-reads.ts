// Each node's copy of the published reads of stored content types, as they leave: pages of lists
// with their totals, and entries by id or slug, which read keys and the sites built on them ask for
// again and again (docs/decisions/0105-published-reads-kept-per-node.md). Reads are kept on the
// cache seam (src/adapters/cache/epochs.ts) under the scope `cms:<type>`, which triggers move with
// every write of the type or its entries, whoever writes (the API, the editor, SQL); a read is cached
// until the type's next scheduled publication at most, so the entry shows on time. Drafts, the
// forum's types and reads with `include=` (they span types) are never cached.
import { and, eq, gt, min, sql } from 'drizzle-orm';
import type { Cached, CacheEpochs } from '../adapters/cache/epochs.js';
import type { Database } from '../db/client.js';
import type { StatusView } from './query.js';
import type { EntryOut } from './schemas.js';
import { cmsEntries, type ContentTypeRow } from './tables.js';

/** What each of the two caches (lists, entries) keeps at most, about in bytes. */
const MAX_BYTES = 16 * 1024 * 1024;

interface ListPage {
  rows: EntryOut[];
  total: number;
  estimated?: boolean;
}

interface TaggedEntry {
  entry: EntryOut;
  etag: string;
}

/** A read and until when it holds: the type's next scheduled publication, if any. */
interface Timed<V> {
  value: V;
  until: number | undefined;
}

const until = <V>(timed: Timed<V>): number | undefined => timed.until;

export class PublishedReads {
  private readonly lists: Cached<Timed<ListPage>>;
  private readonly entries: Cached<Timed<TaggedEntry>>;
  /** Each type's next scheduled publication, kept until it comes (for the answers' ETags). */
  private readonly publications: Cached<number | undefined>;

  constructor(
    private readonly db: Database,
    epochs: CacheEpochs,
  ) {
    this.lists = epochs.cache({ name: 'cms lists', kind: 'answer', maxBytes: MAX_BYTES, until: until<ListPage> });
    this.entries = epochs.cache({
      name: 'cms entries',
      kind: 'answer',
      maxBytes: MAX_BYTES,
      until: until<TaggedEntry>,
    });
    this.publications = epochs.cache({
      name: 'cms publications',
      kind: 'directory',
      maxBytes: 1024 * 1024,
      weigh: () => 64,
      until: (at) => at,
    });
  }

  /**
   * When `type`'s next scheduled entry is published, if any: an answer's tag names it, so the tag
   * changes when the entry shows though nothing was written.
   */
  nextPublished(type: ContentTypeRow): Promise<number | undefined> {
    return this.publications.cached(scopeOf(type), 'next', () => this.nextPublication(type.id));
  }

  /** A page of `type`'s list as `view` sees it; `query` names everything else the answer depends on. */
  async list(type: ContentTypeRow, view: StatusView, query: string, load: () => Promise<ListPage>): Promise<ListPage> {
    if (view !== 'published') return load();
    return (await this.lists.cached(scopeOf(type), keyOf(type, query), () => this.timed(type, load))).value;
  }

  /** An entry as `view` sees it; `query` names it and the answer's shape; `load` throws when there is none. */
  async entry(
    type: ContentTypeRow,
    view: StatusView,
    query: string,
    load: () => Promise<TaggedEntry>,
  ): Promise<TaggedEntry> {
    if (view !== 'published') return load();
    return (await this.entries.cached(scopeOf(type), keyOf(type, query), () => this.timed(type, load))).value;
  }

  private async timed<V>(type: ContentTypeRow, load: () => Promise<V>): Promise<Timed<V>> {
    const [value, next] = await Promise.all([load(), this.nextPublication(type.id)]);
    return { value, until: next };
  }

  /**
   * When the type's next scheduled entry is published: a read cached before then is dropped then, so the entry shows.
   */
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

const scopeOf = (type: ContentTypeRow): string => `cms:${type.id}`;
/** The type as it is now (a changed type is a new key) and the read. */
const keyOf = (type: ContentTypeRow, read: string): string => `${type.updatedAt.getTime()}\n${read}`;
