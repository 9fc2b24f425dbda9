// Full-text search over topic titles and live post bodies (PostgreSQL text search, English stemming;
// PGlite has the same), narrowed by forum or category, author and date. Results are topics the
// viewer may see, best match first, each with the best-matching post and an excerpt, and the title,
// as text and as HTML with the matched words in <mark> (escaped text, no other markup).
import { and, count, desc, eq, gte, inArray, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import type { Page } from '../http/pagination.js';
import { escapeHtml } from '../lib/html.js';
import { visibleTopicsWhere, type Viewer } from './policy.js';
import { forumCategories, forumMembers, forumPosts, forums, forumTopics } from './tables.js';
import { type TopicView } from './topics.js';
import { authorOf } from './avatars.js';

export interface SearchHit extends TopicView {
  postId: string | null;
  excerpt: string;
  /** The excerpt as HTML: escaped text, the matched words in <mark>. */
  excerptHtml: string;
  /** The title as HTML: escaped text, the matched words in <mark>. */
  titleHtml: string;
  rank: number;
}

/**
 * What narrows a search besides its words; the author and dates apply to the matching posts (and a matching title's
 * topic).
 */
interface SearchFilters {
  /** A forum's id or slug. */
  forumId?: string;
  /** A category's id or slug: topics of its forums. */
  categoryId?: string;
  /** A member's username, any case. */
  author?: string;
  /** Written at or after this time. */
  after?: Date;
  /** Written before this time. */
  before?: Date;
}

// ts_headline marks matches with these control characters; a post holding them by intent gets at
// most a wrong <mark>, never markup (the text is escaped first).
const MARK_START = '\u0002';
const MARK_END = '\u0003';
const MARKS = new RegExp(`${MARK_START}([^${MARK_END}]*)${MARK_END}`, 'g');

/** The excerpt as plain text and as HTML with <mark>ed matches. */
function highlighted(marked: string): { excerpt: string; excerptHtml: string } {
  return { excerpt: marked.replace(MARKS, '$1'), excerptHtml: escapeHtml(marked).replace(MARKS, '<mark>$1</mark>') };
}

/** The conditions one written thing (a post, or a topic for its title) meets under the filters. */
function writtenBy(
  filters: SearchFilters,
  authorId: SQL | typeof forumPosts.authorId,
  createdAt: typeof forumPosts.createdAt | typeof forumTopics.createdAt,
): SQL | undefined {
  return and(
    filters.author === undefined
      ? undefined
      : sql`${authorId} in (select ${forumMembers.id} from ${forumMembers} where lower(${forumMembers.username}) = \
lower(${filters.author}))`,
    filters.after === undefined ? undefined : gte(createdAt, filters.after),
    filters.before === undefined ? undefined : lt(createdAt, filters.before),
  );
}

export async function searchForum(
  db: Executor,
  siteId: string,
  viewer: Viewer,
  text: string,
  page: Page,
  filters: SearchFilters = {},
): Promise<{ rows: SearchHit[]; total: number }> {
  const query = sql`websearch_to_tsquery('english', ${text})`;
  const postMatches = and(
    sql`to_tsvector('english', ${forumPosts.bodyText}) @@ ${query}`,
    writtenBy(filters, forumPosts.authorId, forumPosts.createdAt),
  )!;
  const titleMatches = and(
    sql`to_tsvector('english', ${forumTopics.title}) @@ ${query}`,
    writtenBy(filters, sql`${forumTopics.authorId}`, forumTopics.createdAt),
  )!;
  const matchingPost = db
    .select({ one: sql`1` })
    .from(forumPosts)
    .where(and(eq(forumPosts.topicId, forumTopics.id), isNull(forumPosts.deletedAt), postMatches));
  const where = and(
    eq(forumTopics.siteId, siteId),
    visibleTopicsWhere(viewer),
    filters.forumId === undefined ? undefined : or(eq(forums.id, filters.forumId), eq(forums.slug, filters.forumId)),
    filters.categoryId === undefined
      ? undefined
      : inArray(
          forums.categoryId,
          db
            .select({ id: forumCategories.id })
            .from(forumCategories)
            .where(
              and(
                eq(forumCategories.siteId, siteId),
                or(eq(forumCategories.id, filters.categoryId), eq(forumCategories.slug, filters.categoryId)),
              ),
            ),
        ),
    sql`(${titleMatches} or exists ${matchingPost})`,
  );
  const rank = sql<number>`(2 * ts_rank(to_tsvector('english', ${forumTopics.title}), ${query}) + coalesce((select \
max(ts_rank(to_tsvector('english', p.body_text), ${query})) from ${forumPosts} p where p.topic_id = ${forumTopics.id} \
and p.deleted_at is null), 0))::float8`;

  const [total] = await db
    .select({ n: count() })
    .from(forumTopics)
    .innerJoin(forums, eq(forums.id, forumTopics.forumId))
    .where(where);
  const rows = await db
    .select({
      topic: forumTopics,
      authorId: forumMembers.id,
      authorName: forumMembers.username,
      authorAvatar: forumMembers.avatarUploadId,
      rank,
      markedTitle: sql<string>`ts_headline('english', ${forumTopics.title}, ${query}, \
${`StartSel=${MARK_START},StopSel=${MARK_END},HighlightAll=true`})`,
    })
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
      excerpt: sql<string>`ts_headline('english', ${forumPosts.bodyText}, ${query}, \
${`StartSel=${MARK_START},StopSel=${MARK_END},MaxWords=35,MinWords=15`})`,
    })
    .from(forumPosts)
    .where(
      and(
        inArray(
          forumPosts.topicId,
          rows.map((row) => row.topic.id),
        ),
        isNull(forumPosts.deletedAt),
        postMatches,
      ),
    )
    .orderBy(
      forumPosts.topicId,
      desc(sql`ts_rank(to_tsvector('english', ${forumPosts.bodyText}), ${query})`),
      forumPosts.createdAt,
    );
  const bestByTopic = new Map(best.map((row) => [row.topicId, row]));
  return {
    rows: rows.map((row) => {
      const hit = bestByTopic.get(row.topic.id);
      return {
        topic: row.topic,
        author: authorOf(row.authorId, row.authorName, row.authorAvatar),
        postId: hit?.id ?? null,
        ...highlighted(hit?.excerpt ?? ''),
        titleHtml: highlighted(row.markedTitle).excerptHtml,
        rank: Number(row.rank),
      };
    }),
    total: total?.n ?? 0,
  };
}
