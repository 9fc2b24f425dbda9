// Pages cached per node under the versions they were read at (docs/decisions/0109-topic-pages-kept-per-node.md):
// a popular topic's pages, and a member's notifications a client polls, are read far more often
// than they change. A topic's page is cached under the versions its topic was read with
// (`pageVersions`): the topic's, which a trigger moves with every statement that writes any of its
// posts (replies, edits, likes, tombstones, cascades), and the community's author version, moved
// when a member's name or avatar changes. Every request reads its topic anyway, so the versions come
// with it: a cached page is exact, on every node, with no broadcast and no TTL. (Pages of a member's
// lists, under the versions its token was read with: `listCachedNotifications` in notifications.ts,
// `cachedTopicList` in topic-list.ts.)
import { sql, type Placeholder, type SQL, type SQLWrapper } from 'drizzle-orm';
import { WeightedLru } from '../lib/lru.js';
import { forumAuthorVersions, forumTopicVersions } from './tables.js';

/** What a node's topic pages weigh at most together, in characters of post bodies (and the answers made of them). */
const MAX_TOPIC_WEIGHT = 32 * 1024 * 1024;
/** A post's weight besides its bodies: ids, times, its author. */
const POST_WEIGHT = 256;

/** Pages a node caches under the versions they were read at, which their keys hold. */
export type CachedPages<P> = WeightedLru<string, P>;

/** A cached page of a topic: the posts of a classic page or the threads of a threaded one. */
export interface TopicPage {
  rows: CachedPost[];
}

interface CachedPost {
  post: { bodySource: string; bodyHtml: string };
  replies?: CachedPost[];
}

/** The post's bodies twice (the rows, and the answer serialized from them), and its replies. */
function weighPosts(posts: CachedPost[]): number {
  let weight = 0;
  for (const { post, replies } of posts)
    weight += POST_WEIGHT + 2 * (post.bodySource.length + post.bodyHtml.length) + (replies ? weighPosts(replies) : 0);
  return weight;
}

/** SQL: the versions a topic's pages are cached under, as text; select it with the topic. */
export function pageVersions(topicId: SQLWrapper, siteId: SQLWrapper): SQL<string> {
  return sql<string>`concat_ws(':',
    coalesce((select ${forumTopicVersions.version} from ${forumTopicVersions} where ${forumTopicVersions.topicId} = \
${topicId}), 0),
    ${authorVersion(siteId)})`;
}

/** SQL: the community's author version (moved when a member's name or avatar changes). */
export function authorVersion(siteId: SQLWrapper | Placeholder): SQL<number> {
  return sql<number>`coalesce((select ${forumAuthorVersions.version} from ${forumAuthorVersions} where \
${forumAuthorVersions.siteId} = ${siteId}), 0)`;
}

/** A topic as a request read it: its id and the versions its pages are cached under. */
export interface VersionedTopic {
  topic: { id: string };
  pageVersions: string;
}

/** A page of a member's list (notifications, topic lists) and its total, as a node caches it. */
export interface ListPage<R> {
  rows: R[];
  total: number;
}

/** What a node's pages of one member list weigh at most together, about 500 per row. */
const MAX_LIST_WEIGHT = 8 * 1024 * 1024;
const LIST_ROW_WEIGHT = 512;

/** A node's pages of one member list (`app.forum.notificationPages`, `app.forum.topicListPages`). */
export const cachedListPages = <R>(): CachedPages<ListPage<R>> =>
  new WeightedLru(MAX_LIST_WEIGHT, (page) => LIST_ROW_WEIGHT * (page.rows.length + 1));

/** A node's pages of topics' posts (`app.forum.pages`). */
export const cachedTopicPages = (): CachedPages<TopicPage> =>
  new WeightedLru(MAX_TOPIC_WEIGHT, (page) => weighPosts(page.rows));

/** The page of `topic` that `read` names (view, size, offset), cached in `pages`; one view always loads one shape. */
export async function topicPage<P extends TopicPage>(
  pages: CachedPages<TopicPage>,
  topic: VersionedTopic,
  read: string,
  load: () => Promise<P>,
): Promise<P> {
  return (await pages.keep(`${topic.topic.id}\n${topic.pageVersions}\n${read}`, load)) as P;
}
