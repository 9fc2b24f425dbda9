// Likes of posts. A member likes a live post it can see, once; a post's `like_count` is kept by a
// trigger on forum_post_likes (migration 0017), so every way a like comes or goes keeps it true.
import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { SiteRow } from '../core/sites/tables.js';
import type { Executor } from '../db/client.js';
import { textArray, type Param } from '../db/prepared.js';
import { AppError } from '../http/errors.js';
import { enqueueLikeMail, type ReplyMailOptions } from './mail/service.js';
import { notifyLike } from './notifications.js';
import { requirePoster, type Viewer } from './policy.js';
import { forumPostLikes, forumPosts } from './tables.js';
import { findVisiblePost } from './topics.js';

export interface LikeState {
  likeCount: number;
  liked: boolean;
}

/**
 * Likes (`liked` true) or unlikes a post for the viewer; both are idempotent. With `mail`, a first
 * like mails the author when it wants likes at once (the caller drains the outbox after).
 */
export async function setLike(
  db: Executor,
  site: SiteRow,
  viewer: Viewer,
  postId: string,
  liked: boolean,
  mail?: ReplyMailOptions,
): Promise<LikeState> {
  requirePoster(viewer);
  const siteId = site.id;
  const memberId = viewer.member.id;
  const { post } = await findVisiblePost(db, siteId, viewer, postId);
  if (liked && post.authorId === memberId) throw new AppError('own_post_like', 'You cannot like your own post.');
  return db.transaction(async (tx) => {
    if (liked) {
      const added = await tx
        .insert(forumPostLikes)
        .values({ postId, memberId, siteId })
        .onConflictDoNothing()
        .returning({ postId: forumPostLikes.postId });
      const told = added.length > 0 ? await notifyLike(tx, site, postId, memberId) : undefined;
      if (told && mail)
        await enqueueLikeMail(
          tx,
          { site, topic: told.event.topic, post: told.event.post, liker: viewer.member, notified: told.notified },
          mail,
        );
    } else
      await tx
        .delete(forumPostLikes)
        .where(and(eq(forumPostLikes.postId, postId), eq(forumPostLikes.memberId, memberId)));
    const [row] = await tx
      .select({ likeCount: forumPosts.likeCount })
      .from(forumPosts)
      .where(eq(forumPosts.id, postId));
    return { likeCount: row?.likeCount ?? 0, liked };
  });
}

/** SQL: which of `postIds` (posts shown to the member) the member likes, as an array. */
export function likedAmong(memberId: Param<string>, postIds: Param<string[]>): SQL<string[]> {
  return sql<
    string[]
  >`array(select ${forumPostLikes.postId} from ${forumPostLikes} where ${forumPostLikes.memberId} = ${memberId} and \
${forumPostLikes.postId} = any(${textArray(postIds)}))`;
}
