// Counts a member's pages show again and again, cached per node (docs/decisions/0106-counts-kept-per-node.md):
// a notification list's total and the web UI badge, which join up to 1,000 notifications to posts
// and topics, and the unread topics' total, which walks up to 1,000 topics past the member's marks.
// Each count is cached with the versions it was counted at: the member's own (`notification_version`,
// `read_version`), the community's visibility version and, for topics, its forums' list versions.
// Triggers move one of them with every write that can change a count, whoever writes, and the
// statement that would count compares them first (`cachedCountColumns`), in the snapshot it would
// count in: a cached count is used only while it is exact, on every node, without a broadcast.
import { sql, type SQL } from 'drizzle-orm';
import type { Param } from '../db/prepared.js';
import { WeightedLru } from '../lib/lru.js';
import { visibilityClass, type MemberViewer } from './policy.js';
import { forums, forumVisibilityVersions } from './tables.js';

/** What `cachedCountColumns` selects. */
interface CountColumns {
  versions: string;
  count: number | null;
}

interface CachedCount {
  versions: string;
  count: number;
}

/** Counts a node caches (an entry is a few dozen bytes). */
const MAX_CACHED_COUNTS = 10_000;

/** A version no count is cached at: the first statement counts. */
const NONE = '';

/** The community's visibility version (moved by triggers on posts, topics and forums). */
export function visibilityVersion(siteId: Param<string>): SQL {
  return sql`coalesce((select ${forumVisibilityVersions.version} from ${forumVisibilityVersions} where \
${forumVisibilityVersions.siteId} = ${siteId}), 0)`;
}

/** The sum of the community's forums' `topic_list_version` (moved by the trigger on topics, decision 0040). */
export function topicListVersions(siteId: Param<string>): SQL {
  return sql`(select coalesce(sum(${forums.topicListVersion}), 0) from ${forums} where ${forums.siteId} = ${siteId})`;
}

/**
 * The columns that bring a cached count up to date: `versions` (the values given, joined as text) and
 * `count` only when they are not `cachedVersions` (what `CachedCounts.lookup` gives; else null, and
 * the cached count holds). One statement, so one snapshot, decides.
 */
export function cachedCountColumns(
  versions: SQL[],
  count: SQL<number>,
  cachedVersions: Param<string>,
): { [K in keyof CountColumns]: SQL<CountColumns[K]> } {
  const joined = sql`concat_ws(':', ${sql.join(versions, sql`, `)})`;
  return {
    versions: sql<string>`${joined}`,
    count: sql<number | null>`case when ${joined} = ${cachedVersions}::text then null else ${count} end`,
  };
}

export class CachedCounts {
  private readonly entries = new WeightedLru<string, CachedCount>(MAX_CACHED_COUNTS, () => 1);

  /**
   * What the node caches of the viewer's count `name` (as its visibility class sees it): the versions
   * to give `cachedCountColumns` as `cachedVersions`, and how to resolve its answer into the count
   * (the count counted now, which is cached, or the cached one).
   */
  lookup(siteId: string, viewer: MemberViewer, name: string): { versions: string; resolve(row: CountColumns): number } {
    const key = `${siteId}:${viewer.member.id}:${visibilityClass(viewer)}:${name}`;
    const cached = this.entries.get(key);
    return {
      versions: cached?.versions ?? NONE,
      resolve: (row) => {
        if (row.count === null) return cached!.count;
        this.entries.set(key, { versions: row.versions, count: row.count });
        return row.count;
      },
    };
  }
}
