// Atom feeds of recent topics, for the whole community and per forum. Feed readers share and cache
// what they fetch, so feeds always show what a guest sees, whoever asks.
import { and, asc, inArray, isNull } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { escapeXml } from '../../lib/html.js';
import type { ForumRow } from '../tables.js';
import { forumPosts } from '../tables.js';
import type { TopicView } from '../topics.js';

/** Opening posts of topics (already filtered by the policy), by topic id. */
export async function openingPosts(db: Executor, topicIds: string[]): Promise<Map<string, string>> {
  if (topicIds.length === 0) return new Map();
  const rows = await db
    .selectDistinctOn([forumPosts.topicId], {
      topicId: forumPosts.topicId,
      html: forumPosts.bodyHtml,
      deletedAt: forumPosts.deletedAt,
    })
    .from(forumPosts)
    .where(and(inArray(forumPosts.topicId, topicIds), isNull(forumPosts.parentId)))
    .orderBy(forumPosts.topicId, asc(forumPosts.createdAt), asc(forumPosts.id));
  return new Map(rows.filter((row) => !row.deletedAt).map((row) => [row.topicId, row.html]));
}

interface FeedInput {
  origin: string;
  title: string;
  selfPath: string;
  forum?: ForumRow;
  topics: TopicView[];
  bodies: Map<string, string>;
}

export function atomFeed(input: FeedInput): string {
  const { origin } = input;
  const updated = input.topics.reduce(
    (latest, { topic }) => (topic.lastPostAt > latest ? topic.lastPostAt : latest),
    new Date(0),
  );
  const alternate = input.forum ? `${origin}/f/${input.forum.slug}` : `${origin}/`;
  const entries = input.topics.map(({ topic, author }) => {
    const body = input.bodies.get(topic.id);
    return `<entry>
<id>${escapeXml(`${origin}/t/${topic.id}`)}</id>
<title>${escapeXml(topic.title)}</title>
<link rel="alternate" type="text/html" href="${escapeXml(`${origin}/t/${topic.id}`)}"/>
<published>${topic.createdAt.toISOString()}</published>
<updated>${topic.lastPostAt.toISOString()}</updated>
<author><name>${escapeXml(author?.username ?? 'a former member')}</name></author>
${body !== undefined ? `<content type="html">${escapeXml(body)}</content>` : ''}
</entry>`;
  });
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
<id>${escapeXml(`${origin}${input.selfPath}`)}</id>
<title>${escapeXml(input.forum ? `${input.forum.name} · ${input.title}` : input.title)}</title>
<link rel="self" type="application/atom+xml" href="${escapeXml(`${origin}${input.selfPath}`)}"/>
<link rel="alternate" type="text/html" href="${escapeXml(alternate)}"/>
<updated>${updated.toISOString()}</updated>
<generator>Blume</generator>
${entries.join('\n')}
</feed>
`;
}
