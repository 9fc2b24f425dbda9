// Lists of topics: one forum's (the Forum API's and the web UI's forum pages, the hot path: one
// prepared query, deep pages seeking past the node's marks), a member's, or every forum's the viewer
// may see. Totals come from the forums' counters (docs/decisions/0018-forum-counters.md), except
// for one author's topics, which are counted.
import { and, count, desc, eq, inArray, isNull, or, sql, type SQL } from 'drizzle-orm';
import type { Database, Executor } from '../db/client.js';
import { preparedStatement } from '../db/prepared.js';
import { AppError } from '../http/errors.js';
import type { Page } from '../http/pagination.js';
import type { CachedPages, ListPage } from './cached-pages.js';
import type { CommunityVersions } from './members.js';
import type { TopicMark, TopicPageMarks } from './page-marks.js';
import {
  canSeeForum,
  visibilityClass,
  visibleForumsWhere,
  visibleTopicCount,
  visibleTopicCountSql,
  visibleTopicsOfForumWhere,
  type Viewer,
} from './policy.js';
import { findVisibleForum } from './structure.js';
import { forumMembers, forumPosts, forums, forumTopics, forumTopicViews } from './tables.js';
import { topicColumns, type TopicView } from './topics.js';
import { authorOf, type Author } from './avatars.js';
import { unreadTopicWhere } from './reads.js';

interface TopicFilter {
  forumId?: string | undefined;
  authorId?: string | undefined;
}

const topicOrder = [desc(forumTopics.pinned), desc(forumTopics.lastPostAt), desc(forumTopics.id)];

/**
 * Topics the viewer may see, pinned first, then by latest activity. With `marks` (the node's, in
 * `app.forum.topicMarks`), deep pages of one forum seek in the index instead of walking their offset.
 */
export async function listTopics(
  db: Database,
  siteId: string,
  viewer: Viewer,
  filter: TopicFilter,
  page: Page,
  marks?: TopicPageMarks,
): Promise<{ rows: TopicView[]; total: number }> {
  if (filter.authorId === undefined) {
    if (filter.forumId !== undefined) return listForumTopics(db, siteId, viewer, filter.forumId, page, marks);
    const rows = await siteTopicPage(db, viewer).execute({
      siteId,
      limit: page.pageSize,
      offset: page.offset,
      ...readerValues(viewer),
    });
    const topics: TopicView[] = [];
    for (const row of rows) if (row.topic) topics.push(topicView(viewer, { ...row, topic: row.topic }));
    return { rows: topics, total: rows[0]?.total ?? 0 };
  }
  const forum = filter.forumId !== undefined ? await findVisibleForum(db, siteId, viewer, filter.forumId) : undefined;
  // One author's topics (in one forum or all): the only list that is counted (see the file's head).
  const byAuthor = eq(forumTopics.authorId, filter.authorId);
  // A forum found in the site holds only that site's topics: without a `site_id` test, a page of one
  // forum is read from forum_topics_forum_idx alone.
  const inForums = forum
    ? eq(forumTopics.forumId, forum.id)
    : and(
        eq(forumTopics.siteId, siteId),
        inArray(forumTopics.forumId, db.select({ id: forums.id }).from(forums).where(visibleForumsOf(siteId, viewer))),
      );
  const where = and(inForums, visibleTopicsOfForumWhere(viewer), byAuthor);
  const total = await countTopics(db, where);
  // The page's ids first, then their rows: the rows skipped to reach a deep page are never read.
  // Two statements, not a join: a generic plan does not know the page's size and would hash-join a
  // scan of every topic against the page's ids.
  const ids = await db
    .select({ id: forumTopics.id })
    .from(forumTopics)
    .where(where)
    .orderBy(...topicOrder)
    .limit(page.pageSize)
    .offset(page.offset);
  if (ids.length === 0) return { rows: [], total };
  const rows = await db
    .select({ ...topicColumns, unread: unreadColumn(db, viewer, viewer.kind === 'member' ? viewer.member : undefined) })
    .from(forumTopics)
    .leftJoin(forumMembers, eq(forumMembers.id, forumTopics.authorId))
    .where(
      inArray(
        forumTopics.id,
        ids.map((row) => row.id),
      ),
    )
    .orderBy(...topicOrder);
  return { rows: rows.map((row) => topicView(viewer, row)), total };
}

/**
 * The `unread` column of a member's list: whether the topic has posts the member has not read
 * (reads.ts). In prepared statements the member is the placeholders `memberId` and `readBefore`
 * (`readerValues`); guests read nothing and have no marks.
 */
function unreadColumn(
  db: Database,
  viewer: Viewer,
  member: Parameters<typeof unreadTopicWhere>[1] = {
    id: sql.placeholder('memberId'),
    readBefore: sql.placeholder('readBefore'),
  },
): SQL<boolean> {
  return viewer.kind === 'member' ? sql<boolean>`(${unreadTopicWhere(db, member)})` : sql<boolean>`false`;
}

function readerValues(viewer: Viewer): { memberId?: string; readBefore?: Date } {
  return viewer.kind === 'member' ? { memberId: viewer.member.id, readBefore: viewer.member.readBefore } : {};
}

function topicView(
  viewer: Viewer,
  row: {
    topic: TopicView['topic'];
    authorId: string | null;
    authorName: string | null;
    authorAvatar: string | null;
    unread: boolean | null;
  },
): TopicView {
  const view: TopicView = { topic: row.topic, author: authorOf(row.authorId, row.authorName, row.authorAvatar) };
  if (viewer.kind === 'member') view.unread = row.unread === true;
  return view;
}

/**
 * A page of the topics of every forum of a site the viewer may see (the API without `forum_id`, the
 * site's feed) and their total from the forums' counters, as one prepared query: the ids in list
 * order from forum_topics_site_idx, then their rows by primary key, matched with `= any(array(...))`
 * for the reason given below. The total's one row is left-joined to the page, so it comes back
 * even when the page is empty.
 */
const siteTopicPage = preparedStatement(
  'site_topic_page',
  (db, viewer: Viewer) => {
    const visibleForums = db
      .select({ id: forums.id })
      .from(forums)
      .where(and(eq(forums.siteId, sql.placeholder('siteId')), visibleForumsWhere(viewer)));
    const ids = db
      .select({ id: forumTopics.id })
      .from(forumTopics)
      .where(
        and(
          eq(forumTopics.siteId, sql.placeholder('siteId')),
          inArray(forumTopics.forumId, visibleForums),
          visibleTopicsOfForumWhere(viewer),
        ),
      )
      .orderBy(...topicOrder)
      .limit(sql.placeholder('limit'))
      .offset(sql.placeholder('offset'));
    const totals = db
      .select({ total: sql<number>`coalesce(sum(${visibleTopicCountSql(viewer)}), 0)::int`.as('total') })
      .from(forums)
      .where(and(eq(forums.siteId, sql.placeholder('siteId')), visibleForumsWhere(viewer)))
      .as('totals');
    return db
      .select({ total: totals.total, ...topicColumns, unread: unreadColumn(db, viewer) })
      .from(totals)
      .leftJoin(forumTopics, sql`${forumTopics.id} = any(array${ids})`)
      .leftJoin(forumMembers, eq(forumMembers.id, forumTopics.authorId))
      .orderBy(...topicOrder);
  },
  visibilityClass,
);

/**
 * A forum by id or slug (the id wins, as in findForum) and a page of its topics the viewer may see,
 * in one prepared query: the forum comes back even when the page is empty. The page's ids are read
 * from forum_topics_forum_idx alone, then their rows by primary key (see 0018). The ids are matched
 * with `= any(array(...))` rather than joined: PostgreSQL plans an array as about ten values, so the
 * statement's generic plan, made once with LIMIT and OFFSET unknown, still looks each row up; a join
 * would expect a tenth of the forum and scan forum_topics (15-22 ms at 100,000 topics, not 0.1-0.8).
 *
 * The ids come from one of two index scans: past a mark (a row's sort key and rank, page-marks.ts)
 * if the forum is the mark's and still at its `topic_list_version`, else from the start of the list
 * (docs/decisions/0022-forum-deep-pages.md). The forum row is read in the same snapshot as the page,
 * so both give exactly the rows of `offset` from the start.
 */
const forumTopicPage = preparedStatement(
  'forum_topic_page',
  (db, viewer: Viewer) => {
    const forum = db
      .select({
        id: forums.id,
        visibility: forums.visibility,
        topicCount: forums.topicCount,
        hiddenTopicCount: forums.hiddenTopicCount,
        topicListVersion: forums.topicListVersion,
      })
      .from(forums)
      .where(
        and(
          eq(forums.siteId, sql.placeholder('siteId')),
          or(eq(forums.id, sql.placeholder('forum')), eq(forums.slug, sql.placeholder('forum'))),
        ),
      )
      .orderBy(sql`${forums.id} = ${sql.placeholder('forum')} desc`)
      .limit(1)
      .as('forum');
    const visible = and(eq(forumTopics.forumId, forum.id), visibleTopicsOfForumWhere(viewer));
    const fromStart = db
      .select({ id: forumTopics.id })
      .from(forumTopics)
      .where(visible)
      .orderBy(...topicOrder)
      .limit(sql.placeholder('limit'))
      .offset(sql.placeholder('offset'));
    // The list order as one row value, so the index seeks to it (`Index Cond: ROW(...) < ROW(...)`).
    const pastMark = sql`(${forumTopics.pinned}, ${forumTopics.lastPostAt}, ${forumTopics.id}) \
< (${sql.placeholder('markPinned')}::boolean, ${sql.placeholder('markLastPostAt')}::timestamptz, \
${sql.placeholder('markId')}::text)`;
    const fromMark = db
      .select({ id: forumTopics.id })
      .from(forumTopics)
      .where(and(visible, pastMark))
      .orderBy(...topicOrder)
      .limit(sql.placeholder('limit'))
      .offset(sql.placeholder('skip'));
    const markHolds = sql`${forum.id} = ${sql.placeholder('markForum')} and ${forum.topicListVersion} = \
${sql.placeholder('markVersion')}::bigint`;
    return db
      .select({
        forum: {
          id: forum.id,
          visibility: forum.visibility,
          topicCount: forum.topicCount,
          hiddenTopicCount: forum.hiddenTopicCount,
          topicListVersion: forum.topicListVersion,
        },
        ...topicColumns,
        unread: unreadColumn(db, viewer),
        lastPostAtText: sql<string | null>`${forumTopics.lastPostAt}::text`,
      })
      .from(forum)
      .leftJoin(
        forumTopics,
        sql`${forumTopics.id} = any(case when ${markHolds} then array${fromMark} else array${fromStart} end)`,
      )
      .leftJoin(forumMembers, eq(forumMembers.id, forumTopics.authorId))
      .orderBy(...topicOrder);
  },
  visibilityClass,
);

/** What the statement is given when no mark is known: a forum id no forum has. */
const NO_MARK = { markForum: '', markVersion: -1, markPinned: false, markLastPostAt: '-infinity', markId: '', skip: 0 };

async function listForumTopics(
  db: Database,
  siteId: string,
  viewer: Viewer,
  forumId: string,
  page: Page,
  marks: TopicPageMarks | undefined,
): Promise<{ rows: TopicView[]; total: number }> {
  const list = `${visibilityClass(viewer)}:${forumId}`;
  const start = marks ? marks.start(list, page.offset) : { from: page.offset };
  const seek = start.seek
    ? {
        markForum: start.seek.forumId,
        markVersion: start.seek.version,
        markPinned: start.seek.mark.pinned,
        markLastPostAt: start.seek.mark.lastPostAt,
        markId: start.seek.mark.id,
        skip: start.from - start.seek.rank - 1,
      }
    : NO_MARK;
  const rows = await forumTopicPage(db, viewer).execute({
    siteId,
    forum: forumId,
    limit: page.offset + page.pageSize - start.from,
    offset: start.from,
    ...seek,
    ...readerValues(viewer),
  });
  const forum = rows[0]?.forum;
  if (!forum || !canSeeForum(viewer, forum)) throw new AppError('forum_not_found', `No forum "${forumId}".`);
  const topics: TopicView[] = [];
  const learned: [number, TopicMark][] = [];
  for (const [i, row] of rows.entries()) {
    if (!row.topic) continue;
    const rank = start.from + i;
    if (i === 0 || i === rows.length - 1)
      learned.push([rank, { pinned: row.topic.pinned, lastPostAt: row.lastPostAtText!, id: row.topic.id }]);
    // The row before the page was read for its mark only.
    if (rank >= page.offset) topics.push(topicView(viewer, { ...row, topic: row.topic }));
  }
  marks?.learn(list, forum.id, forum.topicListVersion, learned);
  return { rows: topics, total: visibleTopicCount(viewer, forum) };
}

/** SQL condition on `forums` for the site's forums the viewer may see. */
export function visibleForumsOf(siteId: string, viewer: Viewer): SQL {
  return and(eq(forums.siteId, siteId), visibleForumsWhere(viewer))!;
}

async function countTopics(db: Executor, where: SQL | undefined): Promise<number> {
  const [row] = await db.select({ n: count() }).from(forumTopics).where(where);
  return row?.n ?? 0;
}

/** A page of a member's topic list (Latest, a forum's, or unread) and its total, as a node keeps it (decision 0110). */
export type TopicListPage = ListPage<TopicView>;

/** Which list a page is of: Latest or unread, of one forum or all, and where. */
interface ListRead {
  filter: 'latest' | 'unread';
  forumId: string | undefined;
  page: Page;
}

/**
 * A page of the viewer's topic list, `load`ed, or cached for a member whose token or session was read
 * with the community's versions: while those (what it may see, its authors' names, the forums'
 * lists, which move with any change to a topic's row), the member's `read_version` (its marks and
 * `read_before`) and its visibility class stay put. The API and the web UI share a page of the same
 * size. A load that throws (a forum the viewer may not see) keeps nothing.
 */
export function cachedTopicList(
  pages: CachedPages<TopicListPage>,
  viewer: Viewer,
  versions: CommunityVersions | undefined,
  read: ListRead,
  load: () => Promise<TopicListPage>,
): Promise<TopicListPage> {
  if (viewer.kind !== 'member' || !versions) return load();
  const { member } = viewer;
  const { filter, forumId = '', page } = read;
  return pages.keep(
    [
      member.id,
      member.readVersion,
      versions.visibilityAndAuthor,
      versions.topicLists,
      visibilityClass(viewer),
      filter,
      forumId,
      page.pageSize,
      page.offset,
    ].join('\n'),
    load,
  );
}

/** What a topic list shows of a topic beside its row: who posted lately, how liked its posts are, how read it is. */
export interface TopicActivity {
  /** The latest posters, newest first, each once: up to RECENT_POSTERS of the topic's last posts. */
  posters: Author[];
  /** Likes of the topic's live posts together. */
  likeCount: number;
  /** Views of the topic's pages the nodes have written so far (topic-views.ts). */
  views: number;
}

/** How many of a topic's newest posts name its recent posters, and how many posters a list shows. */
const RECENT_POSTS = 20;
const RECENT_POSTERS = 4;

/**
 * The activity of a page of topics the viewer was already allowed to list, in two statements: each
 * topic's newest live posts from forum_posts_topic_idx (a bounded walk) for the posters, then the sum
 * of its posts' like counts with its views. Read fresh on every page, not kept with the list, so a
 * like shows at once and a view within a second (decision 0147).
 */
export async function listTopicActivity(db: Executor, topicIds: string[]): Promise<Map<string, TopicActivity>> {
  const activity = new Map<string, TopicActivity>(
    topicIds.map((id) => [id, { posters: [], likeCount: 0, views: 0 }] as const),
  );
  if (topicIds.length === 0) return activity;
  const ids = sql`array[${sql.join(
    topicIds.map((id) => sql`${id}`),
    sql`, `,
  )}]::text[]`;
  const recent = db
    .select({ authorId: forumPosts.authorId, createdAt: forumPosts.createdAt })
    .from(forumPosts)
    .where(and(sql`${forumPosts.topicId} = topic.id`, isNull(forumPosts.deletedAt)))
    .orderBy(desc(forumPosts.createdAt))
    .limit(RECENT_POSTS)
    .as('recent');
  // Grouped by author before the members are joined, so each poster's row is read by its key.
  const latestBy = db
    .select({
      topicId: sql<string>`topic.id`.as('topic_id'),
      authorId: recent.authorId,
      lastAt: sql<Date>`max(${recent.createdAt})`.as('last_at'),
    })
    .from(sql`unnest(${ids}) as topic(id)`)
    .innerJoinLateral(recent, sql`true`)
    .groupBy(sql`topic.id`, recent.authorId)
    .as('latest_by');
  const posters = await db
    .select({
      topicId: latestBy.topicId,
      authorId: forumMembers.id,
      authorName: forumMembers.username,
      authorAvatar: forumMembers.avatarUploadId,
    })
    .from(latestBy)
    .innerJoin(forumMembers, eq(forumMembers.id, latestBy.authorId))
    .orderBy(latestBy.topicId, desc(latestBy.lastAt));
  for (const row of posters) {
    const entry = activity.get(row.topicId)!;
    const author = authorOf(row.authorId, row.authorName, row.authorAvatar);
    if (author && entry.posters.length < RECENT_POSTERS) entry.posters.push(author);
  }
  const likes = db
    .select({ sum: sql`sum(${forumPosts.likeCount})` })
    .from(forumPosts)
    .where(and(sql`${forumPosts.topicId} = topic.id`, isNull(forumPosts.deletedAt)));
  const views = db
    .select({ views: forumTopicViews.views })
    .from(forumTopicViews)
    .where(sql`${forumTopicViews.topicId} = topic.id`);
  const counts = await db
    .select({
      topicId: sql<string>`topic.id`,
      likeCount: sql<number>`coalesce(${likes}, 0)::int`,
      views: sql<number>`coalesce(${views}, 0)`,
    })
    .from(sql`unnest(${ids}) as topic(id)`);
  for (const row of counts) {
    const entry = activity.get(row.topicId)!;
    entry.likeCount = row.likeCount;
    entry.views = row.views;
  }
  return activity;
}

/**
 * The newest topics of each forum the viewer may see (the index page), pinned ones left out (they
 * head the forum's own page): per forum a walk of forum_topics_forum_idx past `pinned = false`,
 * newest activity first, stopping after `perForum`.
 */
export async function listLatestByForum(
  db: Executor,
  viewer: Viewer,
  forumIds: string[],
  perForum: number,
): Promise<Map<string, TopicView[]>> {
  const latest = new Map<string, TopicView[]>(forumIds.map((id) => [id, []] as const));
  if (forumIds.length === 0) return latest;
  const ids = sql`array[${sql.join(
    forumIds.map((id) => sql`${id}`),
    sql`, `,
  )}]::text[]`;
  const newest = db
    .select({ id: forumTopics.id })
    .from(forumTopics)
    .where(
      and(sql`${forumTopics.forumId} = forum.id`, eq(forumTopics.pinned, false), visibleTopicsOfForumWhere(viewer)),
    )
    .orderBy(desc(forumTopics.lastPostAt), desc(forumTopics.id))
    .limit(perForum)
    .as('newest');
  const rows = await db
    .select(topicColumns)
    .from(sql`unnest(${ids}) as forum(id)`)
    .innerJoinLateral(newest, sql`true`)
    .innerJoin(forumTopics, eq(forumTopics.id, newest.id))
    .leftJoin(forumMembers, eq(forumMembers.id, forumTopics.authorId))
    .orderBy(desc(forumTopics.lastPostAt), desc(forumTopics.id));
  for (const row of rows)
    latest.get(row.topic.forumId)?.push({
      topic: row.topic,
      author: authorOf(row.authorId, row.authorName, row.authorAvatar),
    });
  return latest;
}
