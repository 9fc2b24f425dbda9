// Writing: new topics, replies (to the topic or to a post), editing and deleting posts, and topic
// moderation. The services check the policy; forms re-render with the message when input is refused.
import { field, seeOther } from '../../http/forms.js';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../http/errors.js';
import { authorizeModeration, requireMember } from '../policy.js';
import { spendPostingBudget } from '../posting-limit.js';
import { MAX_BODY_LENGTH, MAX_TITLE_LENGTH } from '../schemas.js';
import { replyMailOptions } from '../mail/context.js';
import { findVisibleForum } from '../structure.js';
import { createPost, createTopic, deletePost, editPost, findVisiblePost, updateTopic, type TopicChange } from '../topics.js';
import { checkForm, loadUi } from './context.js';
import { editPostView, newTopicView } from './form-views.js';
import { FORM_BODY_LIMIT, sendPage } from './forms.js';

const SlugParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 100 }) });
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

const TOO_LONG = `The message is longer than ${MAX_BODY_LENGTH.toLocaleString('en')} characters.`;

/** Errors a writer can fix by changing the form; anything else becomes an error page. */
const FIXABLE = new Set(['invalid_title', 'invalid_body', 'rate_limited']);

const MODERATION: Record<string, TopicChange> = {
  pin: { pinned: true },
  unpin: { pinned: false },
  lock: { locked: true },
  unlock: { locked: false },
  hide: { hidden: true },
  unhide: { hidden: false },
};

export async function writeRoutes(app: FastifyInstance): Promise<void> {
  const db = app.deps.database.db;
  const form = [loadUi, checkForm];

  app.get<{ Params: { slug: string } }>('/f/:slug/new', { schema: { params: SlugParams }, preHandler: loadUi }, async (request, reply) => {
    const { site, viewer } = request.ui;
    if (viewer.kind === 'guest') return seeOther(reply, `/login?next=${encodeURIComponent(`/f/${request.params.slug}/new`)}`);
    const forum = await findVisibleForum(db, site.id, viewer, request.params.slug);
    return sendPage(reply, request.ui, 'New topic', newTopicView(request.ui, forum, {}));
  });

  app.post<{ Params: { slug: string } }>('/f/:slug/new', { schema: { params: SlugParams }, preHandler: form, bodyLimit: FORM_BODY_LIMIT }, async (request, reply) => {
    const ui = request.ui;
    requireMember(ui.viewer);
    const forum = await findVisibleForum(db, ui.site.id, ui.viewer, request.params.slug);
    const title = field(request, 'title', MAX_TITLE_LENGTH);
    const body = field(request, 'body', MAX_BODY_LENGTH);
    const again = (message: string, status: number) =>
      sendPage(reply, ui, 'New topic', newTopicView(ui, forum, { title: title ?? '', body: body ?? '' }, message), { status });
    if (title === undefined) return again(`The title is longer than ${MAX_TITLE_LENGTH} characters.`, 422);
    if (body === undefined) return again(TOO_LONG, 413);
    try {
      await spendPostingBudget(app, ui.site.id, ui.viewer.member.id);
      const mail = await replyMailOptions(request, ui.site);
      const { topic } = await createTopic(db, ui.site, ui.viewer, { forumId: forum.id, title, body }, mail);
      if (mail) app.services.mailOutbox.drainSoon();
      return seeOther(reply, `/t/${topic.topic.id}`);
    } catch (error) {
      if (error instanceof AppError && FIXABLE.has(error.code)) return again(error.message, error.status);
      throw error;
    }
  });

  app.post<{ Params: { id: string } }>('/t/:id/reply', { schema: { params: IdParams }, preHandler: form, bodyLimit: FORM_BODY_LIMIT }, async (request, reply) => {
    const ui = request.ui;
    requireMember(ui.viewer);
    const body = field(request, 'body', MAX_BODY_LENGTH);
    if (body === undefined) throw new AppError('payload_too_large', TOO_LONG);
    const parentId = field(request, 'parent_id', 100) || undefined;
    const view = field(request, 'view', 10) === 'threaded' ? 'threaded' : 'classic';
    await spendPostingBudget(app, ui.site.id, ui.viewer.member.id);
    const mail = await replyMailOptions(request, ui.site);
    const post = await createPost(db, ui.site, ui.viewer, request.params.id, { body, parentId }, mail);
    // Committed: the outbox sends in the background, so SMTP never delays or fails the reply.
    if (mail) app.services.mailOutbox.drainSoon();
    return seeOther(reply, view === 'threaded' ? `/t/${request.params.id}?view=threaded#p-${post.post.id}` : `/t/${request.params.id}?page=last#p-${post.post.id}`);
  });

  app.get<{ Params: { id: string } }>('/p/:id/edit', { schema: { params: IdParams }, preHandler: loadUi }, async (request, reply) => {
    const ui = request.ui;
    if (ui.viewer.kind === 'guest') return seeOther(reply, `/login?next=${encodeURIComponent(`/p/${request.params.id}/edit`)}`);
    const { post } = await findVisiblePost(db, ui.site.id, ui.viewer, request.params.id);
    return sendPage(reply, ui, 'Edit post', editPostView(ui, post, post.bodySource));
  });

  app.post<{ Params: { id: string } }>('/p/:id/edit', { schema: { params: IdParams }, preHandler: form, bodyLimit: FORM_BODY_LIMIT }, async (request, reply) => {
    const ui = request.ui;
    requireMember(ui.viewer);
    const { post } = await findVisiblePost(db, ui.site.id, ui.viewer, request.params.id);
    const body = field(request, 'body', MAX_BODY_LENGTH);
    if (body === undefined) return sendPage(reply, ui, 'Edit post', editPostView(ui, post, '', TOO_LONG), { status: 413 });
    try {
      await spendPostingBudget(app, ui.site.id, ui.viewer.member.id);
      await editPost(db, ui.site.id, ui.viewer, post.id, body);
    } catch (error) {
      if (error instanceof AppError && FIXABLE.has(error.code)) return sendPage(reply, ui, 'Edit post', editPostView(ui, post, body, error.message), { status: error.status });
      throw error;
    }
    return seeOther(reply, `/t/${post.topicId}#p-${post.id}`);
  });

  app.post<{ Params: { id: string } }>('/p/:id/delete', { schema: { params: IdParams }, preHandler: form }, async (request, reply) => {
    const ui = request.ui;
    requireMember(ui.viewer);
    const { post } = await findVisiblePost(db, ui.site.id, ui.viewer, request.params.id);
    await deletePost(db, ui.site.id, ui.viewer, post.id);
    return seeOther(reply, `/t/${post.topicId}`);
  });

  app.post<{ Params: { id: string } }>('/t/:id/moderate', { schema: { params: IdParams }, preHandler: form }, async (request, reply) => {
    const ui = request.ui;
    authorizeModeration(ui.viewer);
    const action = field(request, 'action', 10) ?? '';
    const change = Object.hasOwn(MODERATION, action) ? MODERATION[action] : undefined;
    if (!change) throw new AppError('bad_request', 'Unknown moderation action.');
    await updateTopic(db, ui.site.id, ui.viewer, request.params.id, change);
    return seeOther(reply, `/t/${request.params.id}`);
  });
}
