// Deep pages of a forum's topic list without walking their offset (docs/decisions/0022-forum-deep-pages.md).
// Each node remembers, per list (forum and visibility class), the sort keys of a few rows and their
// rank in the list ("marks"), with the forum's `topic_list_version` they were read at. The page
// query seeks past the nearest mark before the page, in the index, only if the forum is still at
// that version: it checks in the same statement, so in the same snapshot, as it reads the page, and
// walks the offset from the start otherwise. Every write that changes which topics a forum lists, or
// their order, moves the version in its own transaction (topics.ts), so a mark is either exact or
// not used, on every node, without a broadcast.

/** A row's place in the list order: pinned first, then latest activity, then id (all descending). */
export interface TopicMark {
  pinned: boolean;
  /** The column's text, to the microsecond (a JavaScript Date keeps milliseconds only). */
  lastPostAt: string;
  id: string;
}

/** Where a page query starts reading, and the mark it may seek past. */
interface PageStart {
  /**
   * Rank of the first row the query returns: the page's offset, or the row just before the page (to learn its mark).
   */
  from: number;
  seek?: { forumId: string; version: number; rank: number; mark: TopicMark };
}

interface ListMarks {
  forumId: string;
  version: number;
  learnedAt: number;
  byRank: Map<number, TopicMark>;
}

/**
 * A mark is exact for its version, but a change made with SQL behind the app's back does not move
 * the version: marks are forgotten after this long, as the plan matrix is (src/core/plans/matrix.ts).
 */
const MARKS_TTL_MS = 60_000;
const MAX_LISTS = 256;
const MAX_MARKS_PER_LIST = 256;

export class TopicPageMarks {
  private readonly lists = new Map<string, ListMarks>();

  /**
   * Where to read the rows of ranks [offset, offset + size) of `list` (the forum as the request
   * names it, with the viewer's visibility class). Reads from the row before the page unless its
   * mark is known, so that the next request for the same page seeks straight to it.
   */
  start(list: string, offset: number): PageStart {
    if (offset === 0) return { from: 0 };
    const learned = this.lists.get(list);
    if (!learned || Date.now() - learned.learnedAt > MARKS_TTL_MS) return { from: offset - 1 };
    let best = -1;
    for (const rank of learned.byRank.keys()) if (rank < offset && rank > best) best = rank;
    if (best < 0) return { from: offset - 1 };
    const seek = { forumId: learned.forumId, version: learned.version, rank: best, mark: learned.byRank.get(best)! };
    return { from: best === offset - 1 ? offset : offset - 1, seek };
  }

  /** Marks read from the forum at `version`: each row's rank in the list at that version. */
  learn(list: string, forumId: string, version: number, marks: Iterable<[number, TopicMark]>): void {
    let learned = this.lists.get(list);
    if (
      learned &&
      (learned.forumId !== forumId || version > learned.version || Date.now() - learned.learnedAt > MARKS_TTL_MS)
    ) {
      this.lists.delete(list);
      learned = undefined;
    }
    // A slower request may come back with marks from before a write another one already saw.
    if (learned && version < learned.version) return;
    if (!learned) {
      if (this.lists.size >= MAX_LISTS) this.lists.delete(this.lists.keys().next().value!);
      learned = { forumId, version, learnedAt: Date.now(), byRank: new Map() };
      this.lists.set(list, learned);
    }
    for (const [rank, mark] of marks) {
      if (learned.byRank.size >= MAX_MARKS_PER_LIST && !learned.byRank.has(rank))
        learned.byRank.delete(learned.byRank.keys().next().value!);
      learned.byRank.set(rank, mark);
    }
  }
}
