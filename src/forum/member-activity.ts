// What a member's profile says of their activity, as the viewer may see it: posts, likes received and
// given, and their latest posts, counted in the forums and topics the viewer may see (a hidden forum's
// posts are neither listed nor counted), live posts only. Each is one statement on the author's posts
// (forum_posts_author_idx) or likes (forum_post_likes_member_idx).
import { and, count, desc, eq, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { visibleTopicsOfForumWhere, type Viewer } from './policy.js';
import { forumPostLikes, forumPosts, forums, forumTopics } from './tables.js';
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
