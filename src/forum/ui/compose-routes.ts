// Writing new topics, replies and edits of posts in the composer (docs/decisions/0094-forum-composer.md):
// each post of its form posts, previews or uploads (its `intent`), and a preview or an upload saves
// the draft of a new topic or reply (an edit keeps none).
// The script's small endpoints live here too: a live preview through the same renderer and
// sanitizer as posting (which also saves the draft), @mention suggestions and uploads.
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { field, seeOther } from '../../http/forms.js';
import { AppError } from '../../http/errors.js';
import { consumeRateLimit } from '../../http/rate-limit.js';
import { deleteDraft, findDraft, saveDraft } from '../drafts.js';
import { holdReply, holdTopic, mustHold } from '../held-posts.js';
import { replyMailOptions } from '../mail/context.js';
import { renderBody } from '../markdown.js';
import { suggestMembers } from '../members.js';
import { authorizePostChange, requireMember, requirePoster } from '../policy.js';
import { spendPostingBudget } from '../posting-limit.js';
import { linksAllowed } from '../trust.js';
import { DRAFT_KEY_PATTERN, MAX_BODY_LENGTH, MAX_TITLE_LENGTH } from '../schemas.js';
import { findVisibleForum } from '../structure.js';
import { forumDraftKey, topicDraftKey, type ForumRow, type UploadRow } from '../tables.js';
import {
  createPost,
  createTopic,
  editPost,
  findVisiblePost,
  findVisibleTopic,
  type PostView,
  type VisiblePost,
} from '../topics.js';
import { presentUpload, storeUpload, UPLOADS_PER_HOUR } from '../uploads.js';
import type { UploadedFile } from '../../http/uploads.js';
import { checkForm, loadUi, type UiContext } from './context.js';
import { COMPOSER_BODY_LIMIT, COMPOSER_LIMITS, composerFile, readComposerForm } from './composer-form.js';
import { editPostView, newTopicView, replyPageView, type Composer, type ComposerValues } from './composer-views.js';
import { FORM_BODY_LIMIT, sendPage } from './forms.js';

const SlugParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 100 }) });
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
const ReplyQuery = Type.Object({ to: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) });
const MentionQuery = Type.Object({ q: Type.String({ minLength: 1, maxLength: 39, pattern: '^[A-Za-z0-9_.-]+$' }) });

const TOO_LONG = `The message is longer than ${MAX_BODY_LENGTH.toLocaleString('en')} characters.`;
/** Errors a writer can fix by changing the form; anything else becomes an error page. */
const FIXABLE = new Set([
  'invalid_title',
  'invalid_body',
  'rate_limited',
  'upload_missing',
  'upload_too_large',
  'upload_type_refused',
  'too_many_drafts',
  'trust_required',
]);
const MENTION_SUGGESTIONS = 8;
/** Live previews one member may ask for a minute (the script asks at most every few keystrokes). */
const PREVIEWS_PER_MINUTE = 120;

/** The composer's state a page shows: what was written, its preview and whether a draft is kept. */
type ComposerState = Pick<Composer, 'values' | 'preview' | 'drafted'>;

/** How one composer (new topic, reply or edit) is shown again, posted, and left. */
interface ComposeFlow {
  /** Where previews and uploads keep the draft; none for an edit. */
  draftKey: string | undefined;
  withTitle: boolean;
  render: (state: ComposerState, message: { error?: string; done?: string }, status?: number) => Promise<FastifyReply>;
  /** Posts what was written; answers where to go. */
  post: (values: ComposerValues) => Promise<string>;
  /** Holds what was written for a moderator instead (a first post, FORUM_HOLD_FIRST_POSTS); edits are never held. */
  hold: ((values: ComposerValues) => Promise<unknown>) | undefined;
  /** Where discarding the draft leads. */
  leave: string;
}

/** The Markdown of an upload, on its own line at the end of what was written. */
function withUpload(body: string, markdown: string): string {
  const text = body.replace(/\s+$/, '');
  return `${text}${text ? '\n\n' : ''}${markdown}\n`;
}

export async function composeRoutes(app: FastifyInstance): Promise<void> {
  const db = app.deps.database.db;
  const { blobs } = app.deps;
  // A file over the limit is cut, not thrown (composer-form.ts): the form comes back with the text.
  await app.register(multipart, { limits: COMPOSER_LIMITS, throwFileSizeLimit: false });
  const composerForm = [loadUi, readComposerForm];

  /** Stores an upload the way `POST /api/forum/v1/uploads` does, within the same hourly budget. */
  const upload = async (ui: UiContext, file: UploadedFile): Promise<UploadRow> => {
    requirePoster(ui.viewer);
    await consumeRateLimit(
      app.deps.cache.cache,
      `forum:uploads:${ui.site.id}:${ui.viewer.member.id}`,
      UPLOADS_PER_HOUR,
      3600,
      'uploads',
    );
    return storeUpload(db, blobs, ui.site.id, ui.viewer, file);
  };

  const compose = async (request: FastifyRequest, reply: FastifyReply, flow: ComposeFlow): Promise<FastifyReply> => {
    const ui = request.ui;
    requireMember(ui.viewer);
    const title = flow.withTitle ? field(request, 'title', MAX_TITLE_LENGTH) : undefined;
    const body = field(request, 'body', MAX_BODY_LENGTH);
    if (title === undefined && flow.withTitle)
      return flow.render(
        { values: { title: '', body: body ?? '' } },
        { error: `The title is longer than ${MAX_TITLE_LENGTH} characters.` },
        422,
      );
    if (body === undefined) return flow.render({ values: { title, body: '' } }, { error: TOO_LONG }, 413);
    const intent = field(request, 'intent', 10) || 'post';
    if (intent === 'discard') {
      if (flow.draftKey) await deleteDraft(db, ui.viewer, flow.draftKey);
      return seeOther(reply, flow.leave);
    }
    const values: ComposerValues = { title, body };
    let done: string | undefined;
    try {
      const file = composerFile(request);
      if (file) {
        const stored = await upload(ui, file);
        values.body = withUpload(values.body, presentUpload(stored).markdown);
        done = `Uploaded ${stored.filename}: its Markdown is at the end of the text.`;
      } else if (intent === 'attach') {
        throw new AppError('upload_missing', 'Choose a file to upload first.');
      }
      if (intent === 'preview' || intent === 'attach') {
        if (flow.draftKey) await saveDraft(db, ui.site.id, ui.viewer, flow.draftKey, values);
        return await flow.render(
          { values, preview: preview(ui, values.body), drafted: flow.draftKey !== undefined },
          { ...(done ? { done } : {}) },
        );
      }
      await spendPostingBudget(app, ui.site.id, ui.viewer, request.ip);
      if (flow.hold && flow.draftKey && (await mustHold(db, ui.settings, ui.viewer))) {
        // A first post waits for a moderator (decision 0097); the draft has done its job.
        await flow.hold(values);
        await deleteDraft(db, ui.viewer, flow.draftKey);
        return seeOther(reply, '/held?done=posted');
      }
      return seeOther(reply, await flow.post(values));
    } catch (error) {
      if (error instanceof AppError && FIXABLE.has(error.code))
        return flow.render({ values }, { error: error.message }, error.status);
      throw error;
    }
  };

  /** What posting would store, links held back as posting holds them for a new member. */
  const preview = (ui: UiContext, body: string): string =>
    renderBody(body, { links: ui.viewer.kind === 'member' && linksAllowed(ui.viewer) }).html;

  const draftOf = async (ui: UiContext, key: string): Promise<ComposerState | undefined> => {
    if (ui.viewer.kind !== 'member') return undefined;
    const draft = await findDraft(db, ui.viewer, key);
    return draft ? { values: { title: draft.title ?? '', body: draft.body }, drafted: true } : undefined;
  };

  // New topics ------------------------------------------------------------------------------------

  const newTopicFlow = (request: FastifyRequest, reply: FastifyReply, forum: ForumRow): ComposeFlow => {
    const ui = request.ui;
    const draftKey = forumDraftKey(forum.id);
    return {
      draftKey,
      withTitle: true,
      leave: `/f/${forum.slug}`,
      render: async (state, message, status) =>
        sendPage(reply, ui, 'New topic', newTopicView(ui, forum, { ...state, draftKey }, message.error, message.done), {
          status: status ?? 200,
        }),
      hold: (values) =>
        holdTopic(db, ui.site.id, ui.viewer, { forumId: forum.id, title: values.title ?? '', body: values.body }),
      post: async (values) => {
        const mail = await replyMailOptions(request, ui.site);
        const { topic } = await createTopic(
          db,
          ui.site,
          ui.viewer,
          { forumId: forum.id, title: values.title ?? '', body: values.body },
          mail,
        );
        if (mail) app.mailOutbox.drainSoon();
        return `/t/${topic.topic.id}`;
      },
    };
  };

  app.get<{ Params: { slug: string } }>(
    '/f/:slug/new',
    { schema: { params: SlugParams }, preHandler: loadUi },
    async (request, reply) => {
      const { site, viewer } = request.ui;
      if (viewer.kind === 'guest')
        return seeOther(reply, `/login?next=${encodeURIComponent(`/f/${request.params.slug}/new`)}`);
      const forum = await findVisibleForum(db, site.id, viewer, request.params.slug);
      const state = (await draftOf(request.ui, forumDraftKey(forum.id))) ?? { values: { title: '', body: '' } };
      return newTopicFlow(request, reply, forum).render(state, {});
    },
  );

  app.post<{ Params: { slug: string } }>(
    '/f/:slug/new',
    { schema: { params: SlugParams }, preHandler: composerForm, bodyLimit: COMPOSER_BODY_LIMIT },
    async (request, reply) => {
      const forum = await findVisibleForum(db, request.ui.site.id, request.ui.viewer, request.params.slug);
      return compose(request, reply, newTopicFlow(request, reply, forum));
    },
  );

  // Replies ---------------------------------------------------------------------------------------

  const replyFlow = (
    request: FastifyRequest,
    reply: FastifyReply,
    topicId: string,
    parent: PostView | undefined,
    view: 'classic' | 'threaded',
  ): ComposeFlow => {
    const ui = request.ui;
    const draftKey = topicDraftKey(topicId);
    return {
      draftKey,
      withTitle: false,
      leave: `/t/${topicId}`,
      render: async (state, message, status) => {
        const { topic, forum } = await findVisibleTopic(db, ui.site.id, ui.viewer, topicId);
        const hidden = { view, ...(parent ? { parent_id: parent.post.id } : {}) };
        return sendPage(
          reply,
          ui,
          `Reply: ${topic.title}`,
          replyPageView(ui, topic, forum, parent, { ...state, draftKey, hidden }, message.error, message.done),
          { status: status ?? 200 },
        );
      },
      hold: (values) => holdReply(db, ui.site.id, ui.viewer, topicId, { body: values.body, parentId: parent?.post.id }),
      post: async (values) => {
        const mail = await replyMailOptions(request, ui.site);
        const post = await createPost(
          db,
          ui.site,
          ui.viewer,
          topicId,
          { body: values.body, parentId: parent?.post.id },
          mail,
        );
        // Committed: the outbox sends in the background, so SMTP never delays or fails the reply.
        if (mail) app.mailOutbox.drainSoon();
        return view === 'threaded'
          ? `/t/${topicId}?view=threaded#p-${post.post.id}`
          : `/t/${topicId}?page=last#p-${post.post.id}`;
      },
    };
  };

  /** The post a reply answers, when it is a visible post of the topic. */
  const parentPost = async (ui: UiContext, topicId: string, id: string | undefined): Promise<PostView | undefined> => {
    if (!id) return undefined;
    const parent = await findVisiblePost(db, ui.site.id, ui.viewer, id);
    if (parent.post.topicId !== topicId)
      throw new AppError('parent_not_in_topic', `Post "${id}" is not in this topic.`);
    return parent;
  };

  app.get<{ Params: { id: string }; Querystring: { to?: string } }>(
    '/t/:id/reply',
    { schema: { params: IdParams, querystring: ReplyQuery }, preHandler: loadUi },
    async (request, reply) => {
      const ui = request.ui;
      if (ui.viewer.kind === 'guest') return seeOther(reply, `/login?next=${encodeURIComponent(request.url)}`);
      const { topic } = await findVisibleTopic(db, ui.site.id, ui.viewer, request.params.id);
      const parent = await parentPost(ui, topic.id, request.query.to);
      const state = (await draftOf(ui, topicDraftKey(topic.id))) ?? { values: { body: '' } };
      return replyFlow(request, reply, topic.id, parent, 'classic').render(state, {});
    },
  );

  app.post<{ Params: { id: string } }>(
    '/t/:id/reply',
    { schema: { params: IdParams }, preHandler: composerForm, bodyLimit: COMPOSER_BODY_LIMIT },
    async (request, reply) => {
      const ui = request.ui;
      requireMember(ui.viewer);
      const { topic } = await findVisibleTopic(db, ui.site.id, ui.viewer, request.params.id);
      const parent = await parentPost(ui, topic.id, field(request, 'parent_id', 100) || undefined);
      const view = field(request, 'view', 10) === 'threaded' ? 'threaded' : 'classic';
      return compose(request, reply, replyFlow(request, reply, topic.id, parent, view));
    },
  );

  // Edits -----------------------------------------------------------------------------------------

  const editFlow = (request: FastifyRequest, reply: FastifyReply, post: VisiblePost): ComposeFlow => {
    const ui = request.ui;
    return {
      draftKey: undefined,
      withTitle: false,
      leave: `/t/${post.topicId}#p-${post.id}`,
      render: async (state, message, status) =>
        sendPage(reply, ui, 'Edit post', editPostView(ui, post, state, message.error, message.done), {
          status: status ?? 200,
        }),
      hold: undefined,
      post: async (values) => {
        await editPost(db, ui.site.id, ui.viewer, post.id, values.body);
        return `/t/${post.topicId}#p-${post.id}`;
      },
    };
  };

  app.get<{ Params: { id: string } }>(
    '/p/:id/edit',
    { schema: { params: IdParams }, preHandler: loadUi },
    async (request, reply) => {
      const ui = request.ui;
      if (ui.viewer.kind === 'guest')
        return seeOther(reply, `/login?next=${encodeURIComponent(`/p/${request.params.id}/edit`)}`);
      const { post } = await findVisiblePost(db, ui.site.id, ui.viewer, request.params.id);
      authorizePostChange(ui.viewer, post.authorId);
      return editFlow(request, reply, post).render({ values: { body: post.bodySource } }, {});
    },
  );

  app.post<{ Params: { id: string } }>(
    '/p/:id/edit',
    { schema: { params: IdParams }, preHandler: composerForm, bodyLimit: COMPOSER_BODY_LIMIT },
    async (request, reply) => {
      const ui = request.ui;
      const { post } = await findVisiblePost(db, ui.site.id, ui.viewer, request.params.id);
      // Before anything of the form is used: no preview or upload through a post one may not change.
      authorizePostChange(ui.viewer, post.authorId);
      return compose(request, reply, editFlow(request, reply, post));
    },
  );

  // The script's endpoints ------------------------------------------------------------------------

  /** The sanitized HTML of `body`, as posting would store it; with `draft`, the draft is saved too. */
  app.post(
    '/compose/preview',
    { preHandler: [loadUi, checkForm], bodyLimit: FORM_BODY_LIMIT },
    async (request, reply) => {
      const ui = request.ui;
      requireMember(ui.viewer);
      await consumeRateLimit(
        app.deps.cache.cache,
        `forum:preview:${ui.site.id}:${ui.viewer.member.id}`,
        PREVIEWS_PER_MINUTE,
        60,
        'previews',
      );
      const body = field(request, 'body', MAX_BODY_LENGTH);
      const title = field(request, 'title', MAX_TITLE_LENGTH);
      if (body === undefined || title === undefined) throw new AppError('payload_too_large', TOO_LONG);
      const key = field(request, 'draft', 106) ?? '';
      if (key !== '') {
        if (!new RegExp(DRAFT_KEY_PATTERN).test(key))
          throw new AppError('draft_key_invalid', `"${key}" is not a draft key.`);
        await saveDraft(db, ui.site.id, ui.viewer, key, { title, body });
      }
      return reply.header('Cache-Control', 'no-store').type('text/html; charset=utf-8').send(preview(ui, body));
    },
  );

  app.get<{ Querystring: { q: string } }>(
    '/compose/mentions',
    { schema: { querystring: MentionQuery }, preHandler: loadUi },
    async (request, reply) => {
      requireMember(request.ui.viewer);
      const members = await suggestMembers(db, request.ui.site.id, request.query.q, MENTION_SUGGESTIONS);
      return reply.header('Cache-Control', 'no-store').send(members.map((member) => member.username));
    },
  );

  app.post('/compose/upload', { preHandler: composerForm, bodyLimit: COMPOSER_BODY_LIMIT }, async (request, reply) => {
    const file = composerFile(request);
    if (!file) throw new AppError('upload_missing', 'Send the file in the multipart field `file`.');
    const stored = await upload(request.ui, file);
    return reply.code(201).header('Cache-Control', 'no-store').send(presentUpload(stored));
  });
}
