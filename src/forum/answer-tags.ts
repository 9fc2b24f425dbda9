// What the Forum API's polled reads are read under, for their `ETag` (src/http/etags.ts): the
// versions triggers move, read fresh by every request in the statement that reads its token's
// member or its topic (decisions 0106, 0109, 0110), so a tag is exact on every node. A guest's list
// has no versions read: its tag is made of its bytes.
import type { FastifyRequest } from 'fastify';
import type { EtagParts } from '../http/etags.js';
import { visibilityClass } from './policy.js';
import { findVisibleTopic } from './topics.js';

/** A member's topic list (`GET /topics`): its marks, what it may see, the forums' lists, the forum resolved. */
export async function topicListTag(request: FastifyRequest): Promise<EtagParts | undefined> {
  const { site, viewer, versions } = request.forum;
  if (viewer.kind !== 'member' || !versions) return undefined;
  const { forum_id: sent } = request.query as { forum_id?: string };
  // A slug moved and reused names another forum: the tag names the forum, not what was sent.
  const forumId = sent === undefined ? undefined : await request.server.forum.forumIds.resolve(site.id, sent);
  const { member } = viewer;
  return [
    member.id,
    member.readVersion,
    versions.visibilityAndAuthor,
    versions.topicLists,
    visibilityClass(viewer),
    forumId,
  ];
}

/**
 * A topic's posts (`GET /topics/{id}/posts`): the topic's page versions, read with the topic, which
 * the handler then uses (`request.forum.topic`). A topic the viewer may not see answers 404 here.
 */
export async function topicPostsTag(request: FastifyRequest): Promise<EtagParts> {
  const { site, viewer } = request.forum;
  const { id } = request.params as { id: string };
  const visible = await findVisibleTopic(request.server.deps.database.db, site.id, viewer, id);
  request.forum.topic = visible;
  return [visible.topic.id, visible.pageVersions, visibilityClass(viewer)];
}

/** A member's notifications (`GET /notifications`): its notifications and what it may see. */
export function notificationsTag(request: FastifyRequest): EtagParts | undefined {
  const { viewer, versions } = request.forum;
  if (viewer.kind !== 'member' || !versions) return undefined;
  return [viewer.member.id, viewer.member.notificationVersion, versions.visibilityAndAuthor, visibilityClass(viewer)];
}
