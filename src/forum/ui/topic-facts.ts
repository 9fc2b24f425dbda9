// What a topic page shows of its reader beside the posts: which shown posts the member likes, how far
// it has read, its draft reply, and, in the classic view, who wrote the posts the shown replies
// answer. One prepared statement: four would be four round trips (bench/README.md, "Forum member
// reads"). A guest's classic page asks it too, with no member, for the answered authors.
import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { preparedStatement } from '../../db/prepared.js';
import type { Author } from '../avatars.js';
import { draftBodyOf } from '../drafts.js';
import { likedAmong } from '../likes.js';
import type { Viewer } from '../policy.js';
import { readMarkAt } from '../reads.js';
import { topicDraftKey } from '../tables.js';
import { authorsAmong, authorsByPost, type PostView } from '../topics.js';

const factsStatement = preparedStatement('forum_ui_topic_facts', (db: Database) => {
  const memberId = sql.placeholder('memberId');
  return db
    .select({
      liked: likedAmong(memberId, sql.placeholder('postIds')),
      readUpTo: readMarkAt(memberId, sql.placeholder('topicId')),
      draft: draftBodyOf(memberId, sql.placeholder('draftKey')),
      answered: authorsAmong(db, sql.placeholder('parentIds')),
    })
    .from(sql`(select 1) as one`);
});

interface TopicFacts {
  liked: Set<string>;
  readUpTo: Date | undefined;
  draft: string | undefined;
  /** Authors of the posts the shown replies answer (classic view only). */
  answered: Map<string, Author | null> | undefined;
}

interface FactsWanted {
  /** The member may reply: its draft is shown. */
  draft: boolean;
  /** The classic view names who each reply answers. */
  answered: boolean;
}

export async function topicFacts(
  db: Database,
  viewer: Viewer,
  topicId: string,
  shown: PostView[],
  wanted: FactsWanted,
): Promise<TopicFacts> {
  const memberId = viewer.kind === 'member' ? viewer.member.id : '';
  // A guest's threaded page shows none of these.
  if (!memberId && !wanted.answered)
    return { liked: new Set(), readUpTo: undefined, draft: undefined, answered: undefined };
  const parentIds = wanted.answered ? shown.flatMap(({ post }) => (post.parentId ? [post.parentId] : [])) : [];
  const [row] = await factsStatement(db, undefined).execute({
    memberId,
    topicId,
    postIds: memberId ? shown.map(({ post }) => post.id) : [],
    draftKey: wanted.draft ? topicDraftKey(topicId) : '',
    parentIds: [...new Set(parentIds)],
  });
  return {
    liked: new Set(row?.liked ?? []),
    readUpTo: row?.readUpTo ?? undefined,
    draft: row?.draft ?? undefined,
    answered: wanted.answered ? authorsByPost(row?.answered ?? []) : undefined,
  };
}
