// Read marks: how far each member has read each topic, and the member's unread topics (topics it may
// see whose last post is newer than both its mark and its `read_before`), latest activity first.
// `read_before` is the member's joining, then its last "mark all read" (decision 0064).
import { and, asc, desc, eq, gt, gte, inArray, sql, type SQL } from 'drizzle-orm';
import type { Database, Executor } from '../db/client.js';
import { preparedStatement, type Param } from '../db/prepared.js';
import { cappedCount, totalOf } from '../db/count.js';
import { AppError } from '../http/errors.js';
import type { Page } from '../http/pagination.js';
import {
  requireMember,
  visibilityClass,
  visibleForumsWhere,
  visibleTopicsOfForumWhere,
  type MemberViewer,
  type Viewer,
} from './policy.js';
import { findVisibleForum } from './structure.js';
import {
  forumMembers,
  forumPosts,
  forums,
  forumTopicReads,
  forumTopics,
  type ForumTopicReadRow,
  type ForumTopicRow,
} from './tables.js';
import { findVisibleTopic, topicColumns, type TopicView } from './topics.js';
import { authorOf } from './avatars.js';
import { cachedCountColumns, topicListVersions, visibilityVersion, type CachedCounts } from './cached-counts.js';

/**
 * Moves the viewer's mark in a topic up to `postId` (a mark never moves back); answers the mark. The
 * post may be a tombstone: a deleted or hidden last post must not leave the topic unread for good.
 */
export async function markTopicRead(
  db: Executor,
  siteId: string,
  viewer: Viewer,
  topicId: string,
  postId: string,
): Promise<ForumTopicReadRow> {
  requireMember(viewer);
  const { topic } = await findVisibleTopic(db, siteId, viewer, topicId);
  const [post] = await db
    .select({ id: forumPosts.id, createdAt: forumPosts.createdAt })
    .from(forumPosts)
    .where(and(eq(forumPosts.topicId, topic.id), eq(forumPosts.id, postId)));
  if (!post) throw new AppError('post_not_found', `Post "${postId}" is not in topic "${topicId}".`);
  return (await advanceReadMark(db, viewer, topic, post)) ?? (await readMark(db, viewer, topicId))!;
}

/**
 * Moves the member's mark in a topic it sees up to `post`, one of the topic's posts, unless the
 * mark is there already; answers the moved mark, or undefined when it stayed.
 */
export async function advanceReadMark(
  db: Executor,
  viewer: MemberViewer,
  topic: Pick<ForumTopicRow, 'id' | 'siteId'>,
  post: { id: string; createdAt: Date },
): Promise<ForumTopicReadRow | undefined> {
  const [moved] = await db
    .insert(forumTopicReads)
    .values({
      memberId: viewer.member.id,
      topicId: topic.id,
      siteId: topic.siteId,
      lastReadPostId: post.id,
      lastReadAt: post.createdAt,
    })
    .onConflictDoUpdate({
      target: [forumTopicReads.memberId, forumTopicReads.topicId],
      set: { lastReadPostId: sql`excluded.last_read_post_id`, lastReadAt: sql`excluded.last_read_at` },
      setWhere: sql`${forumTopicReads.lastReadAt} < excluded.last_read_at`,
    })
    .returning();
  return moved;
}

/** SQL: when the post the member's mark in a topic stands at was written, or null. */
export function readMarkAt(memberId: Param<string>, topicId: Param<string>): SQL<Date | null> {
  return sql`(select ${forumTopicReads.lastReadAt} from ${forumTopicReads} where ${forumTopicReads.memberId} = \
${memberId} and ${forumTopicReads.topicId} = ${topicId})`.mapWith(forumTopicReads.lastReadAt);
}

/** The viewer's mark in a topic, if it ever read it. */
async function readMark(db: Executor, viewer: MemberViewer, topicId: string): Promise<ForumTopicReadRow | undefined> {
  const [row] = await db
    .select()
    .from(forumTopicReads)
    .where(and(eq(forumTopicReads.memberId, viewer.member.id), eq(forumTopicReads.topicId, topicId)));
  return row;
}

/**
 * The topic in the outer query has posts the member has not read: newer than its `read_before` and
 * its mark. The member's id and `read_before` may be a prepared statement's placeholders.
 */
export function unreadTopicWhere(db: Executor, member: { id: Param<string>; readBefore: Param<Date> }): SQL {
  const readToEnd = db
    .select({ one: sql`1` })
    .from(forumTopicReads)
    .where(
      and(
        eq(forumTopicReads.memberId, member.id),
        eq(forumTopicReads.topicId, forumTopics.id),
        gte(forumTopicReads.lastReadAt, forumTopics.lastPostAt),
      ),
    );
  return and(gt(forumTopics.lastPostAt, member.readBefore), sql`not exists ${readToEnd}`)!;
}

/**
 * Marks every topic read for the viewer ("mark all read"): `read_before` moves to now. The marks stay:
 * the unread walk never reaches topics older than `read_before`, and the trust ladder counts them.
 * Answers the new `read_before`.
 */
export async function markAllRead(db: Executor, viewer: Viewer): Promise<Date> {
  requireMember(viewer);
  const [member] = await db
    .update(forumMembers)
    .set({ readBefore: sql`greatest(${forumMembers.readBefore}, statement_timestamp())` })
    .where(eq(forumMembers.id, viewer.member.id))
    .returning({ readBefore: forumMembers.readBefore });
  if (!member) throw new AppError('member_not_found', 'The member is gone.');
  return member.readBefore;
}

/**
 * The first post of a topic the viewer has not read (in the classic order): the first after its mark
 * and its `read_before`; undefined when it has read everything.
 */
export async function firstUnreadPost(
  db: Executor,
  viewer: MemberViewer,
  topic: ForumTopicRow,
): Promise<{ id: string; createdAt: Date } | undefined> {
  const mark = await readMark(db, viewer, topic.id);
  const readUpTo = mark && mark.lastReadAt > viewer.member.readBefore ? mark.lastReadAt : viewer.member.readBefore;
  const [post] = await db
    .select({ id: forumPosts.id, createdAt: forumPosts.createdAt })
    .from(forumPosts)
    .where(and(eq(forumPosts.topicId, topic.id), gt(forumPosts.createdAt, readUpTo)))
    .orderBy(asc(forumPosts.createdAt), asc(forumPosts.id))
    .limit(1);
  return post;
}

/** What an unread page's statement depends on besides its placeholders: the viewer's class, and one forum or all. */
interface UnreadVariant {
  viewer: MemberViewer;
  inOneForum: boolean;
}

const unreadVariant = ({ viewer, inOneForum }: UnreadVariant) =>
  `${visibilityClass(viewer)}_${inOneForum ? 'forum' : 'all'}`;

/** The viewer's unread topics in the forum `forumId` (a visible one), or in all the forums it may see. */
function unreadWhere(
  db: Executor,
  viewer: MemberViewer,
  siteId: Param<string>,
  forumId: Param<string> | undefined,
  member: { id: Param<string>; readBefore: Param<Date> },
): SQL {
  const inForums =
    forumId !== undefined
      ? eq(forumTopics.forumId, forumId)
      : inArray(
          forumTopics.forumId,
          db
            .select({ id: forums.id })
            .from(forums)
            .where(and(eq(forums.siteId, siteId), visibleForumsWhere(viewer))),
        );
  return and(
    eq(forumTopics.siteId, siteId),
    inForums,
    visibleTopicsOfForumWhere(viewer),
    unreadTopicWhere(db, member),
  )!;
}

/** The unread topics' rows, unordered, for counting. */
function unreadRows(db: Executor, where: SQL): SQL {
  return db
    .select({ one: sql`1` })
    .from(forumTopics)
    .where(where)
    .getSQL();
}

/**
 * A page of the viewer's unread topics and their capped count, as one prepared statement per
 * variant: the count (null when the versions the node cached it at hold, cached-counts.ts) is read from
 * the member's row, and the page's ids are left-joined to it with `= any(array(...))`, as the
 * site's topic page is (topic-list.ts), so the count comes back even when the page is empty.
 */
const unreadPage = preparedStatement(
  'forum_unread_page',
  (db, { viewer, inOneForum }: UnreadVariant) => {
    const siteId = sql.placeholder('siteId');
    const where = unreadWhere(db, viewer, siteId, inOneForum ? sql.placeholder('forumId') : undefined, {
      id: sql.placeholder('memberId'),
      readBefore: sql.placeholder('readBefore'),
    });
    const versions = [sql`${forumMembers.readVersion}`, visibilityVersion(siteId), topicListVersions(siteId)];
    const cached = cachedCountColumns(versions, cappedCount(unreadRows(db, where)), sql.placeholder('cachedVersions'));
    const counted = db
      .select({ versions: cached.versions.as('versions'), count: cached.count.as('count') })
      .from(forumMembers)
      .where(eq(forumMembers.id, sql.placeholder('memberId')))
      .as('counted');
    const ids = db
      .select({ id: forumTopics.id })
      .from(forumTopics)
      .where(where)
      .orderBy(desc(forumTopics.lastPostAt), desc(forumTopics.id))
      .limit(sql.placeholder('limit'))
      .offset(sql.placeholder('offset'));
    return db
      .select({ versions: counted.versions, count: counted.count, ...topicColumns })
      .from(counted)
      .leftJoin(forumTopics, sql`${forumTopics.id} = any(array${ids})`)
      .leftJoin(forumMembers, eq(forumMembers.id, forumTopics.authorId))
      .orderBy(desc(forumTopics.lastPostAt), desc(forumTopics.id));
  },
  unreadVariant,
);

/**
 * Topics the viewer may see (in one forum, or all) with posts it has not read, latest activity first.
 * The page walks forum_topics_activity_idx down to the member's `read_before` and stops after the
 * page; the total is counted exactly up to a threshold and estimated past it (src/db/count.ts), and
 * cached per node while the versions it was counted at hold: the member's marks and `read_before`,
 * what it may see, and the forums' lists (cached-counts.ts).
 */
export async function listUnreadTopics(
  db: Database,
  siteId: string,
  viewer: Viewer,
  forumId: string | undefined,
  page: Page,
  counts: CachedCounts,
): Promise<{ rows: TopicView[]; total: number }> {
  requireMember(viewer);
  const forum = forumId !== undefined ? await findVisibleForum(db, siteId, viewer, forumId) : undefined;
  const cached = counts.lookup(siteId, viewer, `unread-topics:${forum?.id ?? '*'}`);
  const { member } = viewer;
  const rows = await unreadPage(db, { viewer, inOneForum: forum !== undefined }).execute({
    siteId,
    forumId: forum?.id,
    memberId: member.id,
    readBefore: member.readBefore,
    cachedVersions: cached.versions,
    limit: page.pageSize,
    offset: page.offset,
  });
  const [first] = rows;
  if (!first) return { rows: [], total: 0 };
  const { total } = await totalOf(
    db,
    () => unreadRows(db, unreadWhere(db, viewer, siteId, forum?.id, member)),
    cached.resolve(first),
  );
  const topics: TopicView[] = [];
  for (const row of rows)
    if (row.topic) topics.push({ topic: row.topic, author: authorOf(row.authorId, row.authorName, row.authorAvatar) });
  return { rows: topics, total };
}
