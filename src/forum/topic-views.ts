// How often each topic's page was read (docs/decisions/0147-forum-topic-views.md). A node counts a
// reader once per topic in VIEW_WINDOW_MS and leaves crawlers out; it gathers the counts in memory
// and adds them to forum_topic_views in one statement at most every FLUSH_INTERVAL_MS, so a page
// view costs no write of its own and never touches forum_topics (whose writes end cached lists).
import { sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { textArray } from '../db/prepared.js';
import { ErrorReporter } from '../lib/error-reporter.js';
import { WeightedLru } from '../lib/lru.js';
import type { Viewer } from './policy.js';
import { forumTopics, forumTopicViews } from './tables.js';

const FLUSH_INTERVAL_MS = 1000;
/** A reader counts once per topic in this time, on each node. */
const VIEW_WINDOW_MS = 8 * 60 * 60 * 1000;
/** The readers and topics a node remembers to count each once; past it, the least used are forgotten. */
const MAX_RECENT_VIEWS = 100_000;
/** Topics whose counts wait for a flush; while flushes fail, views of further topics are dropped. */
const MAX_PENDING_TOPICS = 10_000;
/** User agents that announce a crawler or a link preview: not readers. */
const CRAWLER = /bot|crawl|spider|slurp|preview/i;

interface WarnLogger {
  warn(fields: Record<string, unknown>, message: string): void;
}

/** A request for a topic's page, as the page saw it. */
interface PageView {
  viewer: Viewer;
  /** The client's address (behind a trusted proxy, the one it forwarded): who a guest is. */
  ip: string;
  userAgent: string | undefined;
}

/** One per app, as `app.forum.topicViews`: counts page views and writes them in batches. */
export class TopicViewCounter {
  /** When each reader (member id or guest address) last counted for each topic. */
  private readonly recent = new WeightedLru<string, number>(MAX_RECENT_VIEWS, () => 1);
  /** Views counted since the last flush, by topic. */
  private pending = new Map<string, number>();
  private dropped = 0;
  private flushing: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;
  /** A failing database warns once a minute, not once a flush. */
  private readonly errors = new ErrorReporter();

  constructor(
    private readonly db: Database,
    log: WarnLogger,
    private readonly now: () => number = Date.now,
  ) {
    this.errors.attach(log);
    this.timer = setInterval(() => void this.flush(), FLUSH_INTERVAL_MS);
    this.timer.unref();
  }

  /** Counts a view of a topic the viewer may see, unless it is a crawler's or the reader's again. */
  count(topicId: string, view: PageView): void {
    if (!view.userAgent || CRAWLER.test(view.userAgent)) return;
    const reader = view.viewer.kind === 'member' ? view.viewer.member.id : view.ip;
    const key = `${topicId} ${reader}`;
    const at = this.now();
    const last = this.recent.get(key);
    if (last !== undefined && at - last < VIEW_WINDOW_MS) return;
    this.recent.set(key, at);
    this.add(topicId, 1);
  }

  /**
   * Adds the views counted so far to forum_topic_views, after any flush under way; the timer calls it,
   * and tests. Never rejects: a failed write is warned about and its counts wait for the next flush.
   */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.write());
    return this.flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  private add(topicId: string, views: number): void {
    const waiting = this.pending.get(topicId);
    if (waiting !== undefined) this.pending.set(topicId, waiting + views);
    else if (this.pending.size < MAX_PENDING_TOPICS) this.pending.set(topicId, views);
    else this.dropped += views;
  }

  private async write(): Promise<void> {
    if (this.pending.size > 0) {
      const counted = this.pending;
      this.pending = new Map();
      try {
        await addViews(this.db, counted);
      } catch (error) {
        this.errors.report('topic view counts', error);
        for (const [topicId, views] of counted) this.add(topicId, views);
      }
    }
    if (this.dropped > 0) {
      this.errors.report(
        'topic view counts dropped',
        new Error(`${this.dropped} views of topics past the ${MAX_PENDING_TOPICS} waiting for a flush were not kept`),
      );
      this.dropped = 0;
    }
  }
}

/**
 * One statement for every topic counted, in topic order (two nodes adding to the same topics take
 * their row locks in the same order). The join drops a topic deleted since it was counted and gives
 * each row its topic's site.
 */
async function addViews(db: Database, counted: Map<string, number>): Promise<void> {
  const ids = [...counted.keys()].sort();
  const views = ids.map((id) => counted.get(id)!);
  await db.execute(sql`insert into ${forumTopicViews} (topic_id, site_id, views)
    select topic.id, topic.site_id, counted.views
      from unnest(${textArray(ids)}, ${sql.param(views)}::integer[]) as counted(topic_id, views)
      join ${forumTopics} topic on topic.id = counted.topic_id
      order by topic.id
    on conflict (topic_id) do update set views = ${forumTopicViews.views} + excluded.views`);
}
