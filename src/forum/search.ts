// Full-text search over topic titles and live post bodies (PostgreSQL text search, English stemming;
// PGlite has the same). Results are topics the viewer may see, best match first, each with the
// best-matching post and a plain-text excerpt.
import { and, count, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import type { Page } from '../http/pagination.js';
import { visibleTopicsWhere, type Viewer } from './policy.js';
import { forumMembers, forumPosts, forums, forumTopics } from './tables.js';
import type { TopicView } from './topics.js';

export interface SearchHit extends TopicView {
  postId: string | null;
  excerpt: string;
  rank: number;
}

export async function searchForum(db: Executor, siteId: string, viewer: Viewer, text: string, page: Page): Promise<{ rows: SearchHit[]; total: number }> {
  const query = sql`websearch_to_tsquery('english', ${text})`;
  const postMatches = sql`to_tsvector('english', ${forumPosts.bodyText}) @@ ${query}`;
  const titleMatches = sql`to_tsvector('english', ${forumTopics.title}) @@ ${query}`;
  const matchingPost = db
    .select({ one: sql`1` })
    .from(forumPosts)
    .where(and(eq(forumPosts.topicId, forumTopics.id), isNull(forumPosts.deletedAt), postMatches));
  const where = and(eq(forumTopics.siteId, siteId), visibleTopicsWhere(viewer), sql`(${titleMatches} or exists ${matchingPost})`);
  const rank = sql<number>`(2 * ts_rank(to_tsvector('english', ${forumTopics.title}), ${query}) + coalesce((select max(ts_rank(to_tsvector('english', p.body_text), ${query})) from ${forumPosts} p where p.topic_id = ${forumTopics.id} and p.deleted_at is null), 0))::float8`;

  const [total] = await db.select({ n: count() }).from(forumTopics).innerJoin(forums, eq(forums.id, forumTopics.forumId)).where(where);
  const rows = await db
    .select({ topic: forumTopics, authorId: forumMembers.id, authorName: forumMembers.username, rank })
    .from(forumTopics)
    .innerJoin(forums, eq(forums.id, forumTopics.forumId))
    .leftJoin(forumMembers, eq(forumMembers.id, forumTopics.authorId))
    .where(where)
    .orderBy(desc(rank), desc(forumTopics.lastPostAt), desc(forumTopics.id))
    .limit(page.pageSize)
    .offset(page.offset);
  if (rows.length === 0) return { rows: [], total: total?.n ?? 0 };

  const best = await db
    .selectDistinctOn([forumPosts.topicId], {
      topicId: forumPosts.topicId,
      id: forumPosts.id,
      excerpt: sql<string>`ts_headline('english', ${forumPosts.bodyText}, ${query}, 'StartSel="",StopSel="",MaxWords=35,MinWords=15')`,
    })
    .from(forumPosts)
    .where(and(inArray(forumPosts.topicId, rows.map((row) => row.topic.id)), isNull(forumPosts.deletedAt), postMatches))
    .orderBy(forumPosts.topicId, desc(sql`ts_rank(to_tsvector('english', ${forumPosts.bodyText}), ${query})`), forumPosts.createdAt);
  const bestByTopic = new Map(best.map((row) => [row.topicId, row]));
  return {
    rows: rows.map((row) => {
      const hit = bestByTopic.get(row.topic.id);
      return {
        topic: row.topic,
        author: row.authorId && row.authorName ? { id: row.authorId, username: row.authorName } : null,
        postId: hit?.id ?? null,
        excerpt: hit?.excerpt ?? '',
        rank: Number(row.rank),
      };
    }),
    total: total?.n ?? 0,
  };
}
