// Topics, posts and search. Reads follow the visibility policy; writes are rate limited per member.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { PageQuery, setPaginationHeaders, toPage } from '../http/pagination.js';
import { forumMember, forumReader } from './access.js';
import { topicListTag, topicPostsTag } from './answer-tags.js';
import { replyMailOptions } from './mail/context.js';
import { authorizeModeration } from './policy.js';
import { spendPostingBudget } from './posting-limit.js';
import { flagPost, listFlags, resolveFlag } from './flags.js';
import { decideHeldPost, holdReply, holdTopic, listHeldPosts, mustHold } from './held-posts.js';
import { setLike } from './likes.js';
import { AppError } from '../http/errors.js';
import { listUnreadTopics, markAllRead, markTopicRead } from './reads.js';
import {
  presentFlag,
  presentHeldPost,
  presentLike,
  presentPost,
  presentSearchHit,
  presentThreadedPost,
  presentTopic,
} from './presenters.js';
import {
  FlagOut,
  FlagPatch,
  FlagQuery,
  HeldDecisionOut,
  HeldPostOut,
  HeldPostPatch,
  IdParams,
  LikeOut,
  NewFlagBody,
  MAX_BODY_LENGTH,
  NewPostBody,
  NewTopicBody,
  PostListQuery,
  PostOut,
  PostPatch,
  SearchHitOut,
  SearchQuery,
  TopicCreatedOut,
  TopicListQuery,
  AllReadOut,
  TopicReadBody,
  TopicReadOut,
  TopicOut,
  TopicPatch,
  ThreadedPostList,
  ClassicPostList,
  memberSecurity,
  readerSecurity,
} from './schemas.js';
import { searchForum } from './search.js';
import {
  createPost,
  createTopic,
  deletePost,
  editPost,
  findVisibleTopic,
  listPostsClassic,
  listPostsThreaded,
  updateTopic,
} from './topics.js';
import { cachedTopicList, listTopics } from './topic-list.js';
import { problems } from '../http/openapi.js';
import { JSON_TYPE, sendSerializedOnce } from '../http/response-schemas.js';

/** Room for a full-size Markdown body and its JSON escaping; bigger requests are refused as 413. */
const WRITE_BODY_LIMIT = MAX_BODY_LENGTH * 2 + 16 * 1024;

/**
 * Serializes the answer with one of the shapes the route documents as a union: serializing the union
 * checks every post against its first shape before it writes one.
 */
function serializeAs(reply: FastifyReply, shape: Record<string, unknown>): void {
  reply.serializer(reply.compileSerializationSchema(shape, '200'));
  // A custom serializer leaves the content type to the route.
  reply.type(JSON_TYPE);
}

export async function topicRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const db = app.deps.database.db;
  const postingLimit = async (request: FastifyRequest): Promise<void> => {
    const { site, viewer } = request.forum;
    if (viewer.kind === 'member') await spendPostingBudget(app, site.id, viewer, request.ip);
  };

  app.get(
    '/topics',
    {
      schema: {
        tags: ['topics'],
        summary: 'Topics you can see, pinned first, then by latest post',
        security: readerSecurity,
        querystring: TopicListQuery,
        response: { 200: Type.Array(TopicOut) },
      },
      preHandler: forumReader,
      config: { etag: topicListTag },
    },
    async (request, reply) => {
      const page = toPage(request.query);
      const { site, viewer, versions } = request.forum;
      const { filter = 'latest', forum_id: sent } = request.query;
      // The forum's id, not the id or slug sent: a slug moved and reused names the new forum. None
      // found: the load answers 404 as before, and keeps nothing.
      const forumId = sent === undefined ? undefined : ((await app.forum.forumIds.resolve(site.id, sent)) ?? sent);
      const { rows, total } = await cachedTopicList(
        app.forum.topicListPages,
        viewer,
        versions,
        { filter, forumId, page },
        () =>
          (filter === 'unread'
            ? listUnreadTopics(db, site.id, viewer, forumId, page, app.forum.counts)
            : listTopics(db, site.id, viewer, { forumId }, page, app.forum.topicMarks)
          ).catch((error: unknown) => {
            // A forum the viewer may not see answers exactly as a missing one: by what was sent.
            if (error instanceof AppError && error.code === 'forum_not_found')
              throw new AppError('forum_not_found', `No forum "${sent}".`);
            throw error;
          }),
      );
      setPaginationHeaders(request, reply, page, total);
      return sendSerializedOnce(reply, rows, (cached) => cached.map(presentTopic));
    },
  );

  app.post(
    '/topics/read',
    {
      schema: {
        tags: ['topics'],
        summary: 'Mark every topic read ("mark all read"): no topic is unread until its next post',
        security: memberSecurity,
        response: { 200: AllReadOut },
      },
      preHandler: forumMember,
    },
    async (request) => ({ read_before: (await markAllRead(db, request.forum.viewer)).toISOString() }),
  );

  app.post(
    '/topics/:id/read',
    {
      schema: {
        tags: ['topics'],
        summary: 'Mark the topic read up to a post (a mark never moves back)',
        security: memberSecurity,
        params: IdParams,
        body: TopicReadBody,
        response: { 200: TopicReadOut },
      },
      preHandler: forumMember,
    },
    async (request) => {
      const mark = await markTopicRead(
        db,
        request.forum.site.id,
        request.forum.viewer,
        request.params.id,
        request.body.post_id,
      );
      return {
        topic_id: mark.topicId,
        last_read_post_id: mark.lastReadPostId,
        last_read_at: mark.lastReadAt.toISOString(),
      };
    },
  );

  app.get(
    '/topics/:id',
    {
      schema: {
        tags: ['topics'],
        summary: 'One topic',
        security: readerSecurity,
        params: IdParams,
        response: { 200: TopicOut },
      },
      preHandler: forumReader,
    },
    async (request) =>
      presentTopic(await findVisibleTopic(db, request.forum.site.id, request.forum.viewer, request.params.id)),
  );

  app.post(
    '/topics',
    {
      schema: {
        tags: ['topics'],
        summary: 'Start a topic',
        description:
          'A member without a post yet gets 202 and the held post when the community holds first posts ' +
          '(FORUM_HOLD_FIRST_POSTS) until a moderator approves it.',
        security: memberSecurity,
        body: NewTopicBody,
        response: { 201: TopicCreatedOut, 202: HeldPostOut, ...problems(422) },
      },
      preHandler: [forumMember, postingLimit],
      bodyLimit: WRITE_BODY_LIMIT,
    },
    async (request, reply) => {
      const { site, viewer, settings } = request.forum;
      const input = { forumId: request.body.forum_id, title: request.body.title, body: request.body.body };
      if (await mustHold(db, settings, viewer))
        return reply.code(202).send(presentHeldPost(await holdTopic(db, site.id, viewer, input)));
      const mail = await replyMailOptions(request, site);
      const { topic, post } = await createTopic(
        db,
        site,
        viewer,
        { forumId: request.body.forum_id, title: request.body.title, body: request.body.body },
        mail,
      );
      if (mail) app.mailOutbox.drainSoon();
      return reply.code(201).send({ ...presentTopic(topic), first_post: presentPost(post) });
    },
  );

  app.patch(
    '/topics/:id',
    {
      schema: {
        tags: ['moderation'],
        summary: 'Retitle, pin, lock or hide a topic (moderators)',
        security: memberSecurity,
        params: IdParams,
        body: TopicPatch,
        response: { 200: TopicOut, ...problems(422) },
      },
      preHandler: forumMember,
    },
    async (request) => {
      authorizeModeration(request.forum.viewer);
      return presentTopic(
        await updateTopic(db, request.forum.site.id, request.forum.viewer, request.params.id, request.body),
      );
    },
  );

  app.get(
    '/topics/:id/posts',
    {
      schema: {
        tags: ['posts'],
        summary:
          'Posts of a topic, classic (flat, oldest first) or threaded (top-level posts paginated, replies nested)',
        security: readerSecurity,
        params: IdParams,
        querystring: PostListQuery,
        // The threaded shape comes first: a classic post lacks `replies` and so falls through to PostOut.
        response: { 200: Type.Array(Type.Union([Type.Ref('ForumThreadedPost'), PostOut])) },
      },
      preHandler: forumReader,
      config: { etag: topicPostsTag },
    },
    async (request, reply) => {
      const visible =
        request.forum.topic ??
        (await findVisibleTopic(db, request.forum.site.id, request.forum.viewer, request.params.id));
      const page = toPage(request.query);
      if (request.query.view === 'threaded') {
        const { rows, total } = await listPostsThreaded(db, app.forum.pages, visible, page);
        setPaginationHeaders(request, reply, page, total);
        serializeAs(reply, ThreadedPostList);
        return sendSerializedOnce(reply, rows, (cached) => cached.map(presentThreadedPost));
      }
      const { rows, total } = await listPostsClassic(db, app.forum.pages, visible, page);
      setPaginationHeaders(request, reply, page, total);
      serializeAs(reply, ClassicPostList);
      return sendSerializedOnce(reply, rows, (cached) => cached.map(presentPost));
    },
  );

  app.post(
    '/topics/:id/posts',
    {
      schema: {
        tags: ['posts'],
        summary: 'Reply to a topic, optionally to one of its posts',
        description:
          'A member without a post yet gets 202 and the held post when the community holds first posts ' +
          '(FORUM_HOLD_FIRST_POSTS) until a moderator approves it.',
        security: memberSecurity,
        params: IdParams,
        body: NewPostBody,
        response: { 201: PostOut, 202: HeldPostOut, ...problems(409, 422) },
      },
      preHandler: [forumMember, postingLimit],
      bodyLimit: WRITE_BODY_LIMIT,
    },
    async (request, reply) => {
      const { site, viewer, settings } = request.forum;
      const input = { body: request.body.body, parentId: request.body.parent_id };
      if (await mustHold(db, settings, viewer))
        return reply.code(202).send(presentHeldPost(await holdReply(db, site.id, viewer, request.params.id, input)));
      const mail = await replyMailOptions(request, site);
      const post = await createPost(db, site, viewer, request.params.id, input, mail);
      // Committed: the outbox sends in the background, so SMTP never delays or fails the reply.
      if (mail) app.mailOutbox.drainSoon();
      return reply.code(201).send(presentPost(post));
    },
  );

  app.patch(
    '/posts/:id',
    {
      schema: {
        tags: ['posts'],
        summary: 'Edit a post (author or moderators)',
        security: memberSecurity,
        params: IdParams,
        body: PostPatch,
        response: { 200: PostOut, ...problems(422) },
      },
      preHandler: [forumMember, postingLimit],
      bodyLimit: WRITE_BODY_LIMIT,
    },
    async (request) =>
      presentPost(
        await editPost(db, request.forum.site.id, request.forum.viewer, request.params.id, request.body.body),
      ),
  );

  app.delete(
    '/posts/:id',
    {
      schema: {
        tags: ['posts'],
        summary: 'Delete a post, leaving a tombstone (author or moderators)',
        security: memberSecurity,
        params: IdParams,
        response: { 204: Type.Null() },
      },
      preHandler: forumMember,
    },
    async (request, reply) => {
      await deletePost(db, request.forum.site.id, request.forum.viewer, request.params.id);
      return reply.code(204).send(null);
    },
  );

  for (const [method, liked] of [
    ['POST', true],
    ['DELETE', false],
  ] as const) {
    app.route({
      method,
      url: '/posts/:id/like',
      schema: {
        tags: ['posts'],
        summary: liked ? 'Like a post (idempotent; not your own)' : 'Take your like back (idempotent)',
        security: memberSecurity,
        params: IdParams,
        response: { 200: LikeOut, ...problems(403) },
      },
      preHandler: forumMember,
      handler: async (request) => {
        const mail = liked ? await replyMailOptions(request, request.forum.site) : undefined;
        const state = await setLike(db, request.forum.site, request.forum.viewer, request.params.id, liked, mail);
        if (mail) app.mailOutbox.drainSoon();
        return presentLike(state);
      },
    });
  }

  app.post(
    '/posts/:id/flags',
    {
      schema: {
        tags: ['moderation'],
        summary: 'Flag a post for the moderators (once; not your own)',
        security: memberSecurity,
        params: IdParams,
        body: NewFlagBody,
        response: { 201: FlagOut, ...problems(403, 409) },
      },
      preHandler: [forumMember, postingLimit],
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(
          presentFlag(await flagPost(db, request.forum.site.id, request.forum.viewer, request.params.id, request.body)),
        ),
  );

  app.get(
    '/flags',
    {
      schema: {
        tags: ['moderation'],
        summary: 'The flag queue, newest first (moderators)',
        security: memberSecurity,
        querystring: FlagQuery,
        response: { 200: Type.Array(FlagOut), ...problems(403) },
      },
      preHandler: forumMember,
    },
    async (request, reply) => {
      const page = toPage(request.query);
      const { rows, total } = await listFlags(
        db,
        request.forum.site.id,
        request.forum.viewer,
        request.query.state ?? 'open',
        page,
      );
      setPaginationHeaders(request, reply, page, total);
      return rows.map(presentFlag);
    },
  );

  app.patch(
    '/flags/:id',
    {
      schema: {
        tags: ['moderation'],
        summary:
          'Decide on a flag: hide the post, dismiss the flag, or hide the post and warn or suspend its ' +
          'author (moderators)',
        security: memberSecurity,
        params: IdParams,
        body: FlagPatch,
        response: { 200: FlagOut, ...problems(403, 409, 422) },
      },
      preHandler: forumMember,
    },
    async (request) => {
      const { action, reason, until } = request.body;
      return presentFlag(
        await resolveFlag(db, request.forum.site, request.forum.viewer, request.params.id, {
          action,
          reason,
          until: until ? new Date(until) : null,
        }),
      );
    },
  );

  app.get(
    '/held-posts',
    {
      schema: {
        tags: ['moderation'],
        summary: 'Posts held for a moderator, oldest first: all of them for moderators, your own for members',
        security: memberSecurity,
        querystring: PageQuery,
        response: { 200: Type.Array(HeldPostOut) },
      },
      preHandler: forumMember,
    },
    async (request, reply) => {
      const page = toPage(request.query);
      const { rows, total } = await listHeldPosts(db, request.forum.site.id, request.forum.viewer, page);
      setPaginationHeaders(request, reply, page, total);
      return rows.map(presentHeldPost);
    },
  );

  app.patch(
    '/held-posts/:id',
    {
      schema: {
        tags: ['moderation'],
        summary: 'Approve or reject a held post (moderators)',
        security: memberSecurity,
        params: IdParams,
        body: HeldPostPatch,
        response: { 200: HeldDecisionOut, ...problems(403, 404) },
      },
      preHandler: forumMember,
    },
    async (request) => {
      const { site, viewer } = request.forum;
      const mail = request.body.action === 'approve' ? await replyMailOptions(request, site) : undefined;
      const { postId, topicId } = await decideHeldPost(
        db,
        site,
        viewer,
        request.params.id,
        { action: request.body.action, reason: request.body.reason },
        mail,
      );
      if (mail) app.mailOutbox.drainSoon();
      return { action: request.body.action, post_id: postId, topic_id: topicId };
    },
  );

  app.get(
    '/search',
    {
      schema: {
        tags: ['search'],
        summary: 'Full-text search over topics and posts you can see',
        security: readerSecurity,
        querystring: SearchQuery,
        response: { 200: Type.Array(SearchHitOut) },
      },
      preHandler: forumReader,
    },
    async (request, reply) => {
      const page = toPage(request.query);
      const { q, forum_id: forumId, category_id: categoryId, author, after, before } = request.query;
      const filters = {
        ...(forumId ? { forumId } : {}),
        ...(categoryId ? { categoryId } : {}),
        ...(author ? { author } : {}),
        ...(after ? { after: new Date(`${after}T00:00:00Z`) } : {}),
        ...(before ? { before: new Date(`${before}T00:00:00Z`) } : {}),
      };
      const { rows, total } = await searchForum(db, request.forum.site.id, request.forum.viewer, q, page, filters);
      setPaginationHeaders(request, reply, page, total);
      return rows.map(presentSearchHit);
    },
  );
}
