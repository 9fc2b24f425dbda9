// What a member's profile says of their activity, as the viewer may see it: posts, likes received and
// given, and their latest posts, counted in the forums and topics the viewer may see (a hidden forum's
// posts are neither listed nor counted), live posts only. Each is one statement on the author's posts
// (forum_posts_author_idx) or likes (forum_post_likes_member_idx).
import { and, count, desc, eq, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/client.js';
import { textArray } from '../db/prepared.js';
import { visibleTopicsOfForumWhere, type Viewer } from './policy.js';
import { forumPostLikes, forumPosts, forums, forumSessions, forumTopics } from './tables.js';
import { visibleForumsOf } from './topic-list.js';

/** Posts the profile lists. */
const RECENT_POSTS = 10;
/** Characters of a post's text the list shows. */
const EXCERPT = 200;

export interface RecentPost {
  id: string;
  topicId: string;
  topicTitle: string;
  excerpt: string;
  likeCount: number;
  createdAt: Date;
}

export interface MemberActivity {
  posts: number;
  likesReceived: number;
  likesGiven: number;
  recent: RecentPost[];
}

/** The condition on forum_posts joined with forum_topics: live posts in topics the viewer may see. */
function visiblePostsWhere(db: Executor, siteId: string, viewer: Viewer): SQL {
  return and(
    eq(forumPosts.siteId, siteId),
    isNull(forumPosts.deletedAt),
    inArray(forumTopics.forumId, db.select({ id: forums.id }).from(forums).where(visibleForumsOf(siteId, viewer))),
    visibleTopicsOfForumWhere(viewer),
  )!;
}

export async function memberActivity(
  db: Executor,
  siteId: string,
  viewer: Viewer,
  memberId: string,
): Promise<MemberActivity> {
  const visible = visiblePostsWhere(db, siteId, viewer);
  const [[written], [given], recent] = await Promise.all([
    db
      .select({ posts: count(), likes: sql<number>`coalesce(sum(${forumPosts.likeCount}), 0)::int` })
      .from(forumPosts)
      .innerJoin(forumTopics, eq(forumTopics.id, forumPosts.topicId))
      .where(and(eq(forumPosts.authorId, memberId), visible)),
    db
      .select({ likes: count() })
      .from(forumPostLikes)
      .innerJoin(forumPosts, eq(forumPosts.id, forumPostLikes.postId))
      .innerJoin(forumTopics, eq(forumTopics.id, forumPosts.topicId))
      .where(and(eq(forumPostLikes.memberId, memberId), visible)),
    db
      .select({
        id: forumPosts.id,
        topicId: forumPosts.topicId,
        topicTitle: forumTopics.title,
        excerpt: sql<string>`left(${forumPosts.bodyText}, ${EXCERPT})`,
        likeCount: forumPosts.likeCount,
        createdAt: forumPosts.createdAt,
      })
      .from(forumPosts)
      .innerJoin(forumTopics, eq(forumTopics.id, forumPosts.topicId))
      .where(and(eq(forumPosts.authorId, memberId), visible))
      .orderBy(desc(forumPosts.createdAt), desc(forumPosts.id))
      .limit(RECENT_POSTS),
  ]);
  return {
    posts: written?.posts ?? 0,
    likesReceived: written?.likes ?? 0,
    likesGiven: given?.likes ?? 0,
    recent,
  };
}

/** What the members' admin cards say of each member: live posts, and when they were last active. */
export interface MemberSummary {
  posts: number;
  /** The later of their last post and their last sign-in to the forum's pages; null if neither. */
  lastActive: Date | null;
}

/** The summaries of a page of members, in one statement on their posts and sessions. */
export async function memberSummaries(
  db: Executor,
  siteId: string,
  memberIds: readonly string[],
): Promise<Map<string, MemberSummary>> {
  if (memberIds.length === 0) return new Map();
  const rows = await queryRows<{ id: string; posts: number; last_post: string | null; last_login: string | null }>(
    db,
    sql`select m.id,
        (select count(*)::int from ${forumPosts} p where p.author_id = m.id and p.site_id = ${siteId} and p.deleted_at is null) as posts,
        (select max(p.created_at) from ${forumPosts} p where p.author_id = m.id and p.site_id = ${siteId}) as last_post,
        (select max(s.created_at) from ${forumSessions} s where s.member_id = m.id) as last_login
      from unnest(${textArray([...memberIds])}) as m(id)`,
  );
  const latest = (...times: Array<string | null>) => {
    const known = times.filter((t): t is string => t !== null).map((t) => new Date(t).getTime());
    return known.length > 0 ? new Date(Math.max(...known)) : null;
  };
  return new Map(rows.map((row) => [row.id, { posts: row.posts, lastActive: latest(row.last_post, row.last_login) }]));
}
