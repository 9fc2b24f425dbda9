// Writing besides the composer (compose-routes.ts, which edits posts too): deleting posts, likes and
// flags, and topic moderation. The services check the policy; forms re-render with the message when
// input is refused.
import { field, safeNext, seeOther } from '../../http/forms.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../http/errors.js';
import { authorizeModeration, requireMember } from '../policy.js';
import { spendPostingBudget } from '../posting-limit.js';
import { MAX_FLAG_NOTE_LENGTH } from '../schemas.js';
import { replyMailOptions } from '../mail/context.js';
import { flagPost } from '../flags.js';
import { setLike } from '../likes.js';
import { FLAG_REASONS } from '../tables.js';
import { deletePost, findVisiblePost, updateTopic, type TopicChange } from '../topics.js';
import { checkForm, loadUi } from './context.js';

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

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

  app.post<{ Params: { id: string } }>(
    '/p/:id/delete',
    { schema: { params: IdParams }, preHandler: form },
    async (request, reply) => {
      const ui = request.ui;
      requireMember(ui.viewer);
      const { post } = await findVisiblePost(db, ui.site.id, ui.viewer, request.params.id);
      await deletePost(db, ui.site.id, ui.viewer, post.id);
      return seeOther(reply, `/t/${post.topicId}`);
    },
  );

  /** The topic page a like or flag form came from (a local path only), at the post, with a notice. */
  const backTo = (request: FastifyRequest, postId: string, notice?: string): string => {
    const back = safeNext(field(request, 'back', 200));
    const path = back.startsWith('/t/') ? back : '/';
    return `${path}${notice ? `${path.includes('?') ? '&' : '?'}${notice}` : ''}#p-${postId}`;
  };

  app.post<{ Params: { id: string } }>(
    '/p/:id/like',
    { schema: { params: IdParams }, preHandler: form },
    async (request, reply) => {
      const liked = field(request, 'liked', 5) !== 'false';
      const mail = liked ? await replyMailOptions(request, request.ui.site) : undefined;
      await setLike(db, request.ui.site, request.ui.viewer, request.params.id, liked, mail);
      if (mail) app.mailOutbox.drainSoon();
      return seeOther(reply, backTo(request, request.params.id));
    },
  );

  app.post<{ Params: { id: string } }>(
    '/p/:id/flag',
    { schema: { params: IdParams }, preHandler: form },
    async (request, reply) => {
      const ui = request.ui;
      requireMember(ui.viewer);
      const reason = FLAG_REASONS.find((known) => known === field(request, 'reason', 20));
      if (!reason) throw new AppError('bad_request', 'Choose why the post should be looked at.');
      const note = field(request, 'note', MAX_FLAG_NOTE_LENGTH);
      if (note === undefined)
        throw new AppError(
          'bad_request',
          `The note is longer than ${MAX_FLAG_NOTE_LENGTH.toLocaleString('en')} characters.`,
        );
      // Flags spend the posting budget, as in the API: flagging is no way around the flood limit.
      await spendPostingBudget(app, ui.site.id, ui.viewer, request.ip);
      await flagPost(db, ui.site.id, ui.viewer, request.params.id, { reason, note });
      return seeOther(reply, backTo(request, request.params.id, 'flagged=1'));
    },
  );

  app.post<{ Params: { id: string } }>(
    '/t/:id/moderate',
    { schema: { params: IdParams }, preHandler: form },
    async (request, reply) => {
      const ui = request.ui;
      authorizeModeration(ui.viewer);
      const action = field(request, 'action', 10) ?? '';
      const change = Object.hasOwn(MODERATION, action) ? MODERATION[action] : undefined;
      if (!change) throw new AppError('bad_request', 'Unknown moderation action.');
      await updateTopic(db, ui.site.id, ui.viewer, request.params.id, change);
      return seeOther(reply, `/t/${request.params.id}`);
    },
  );
}
