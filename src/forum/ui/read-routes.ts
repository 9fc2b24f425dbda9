// Reading pages: index, Latest, forum, topic (classic and threaded), member profiles, search and
// feeds, and the jumps to a post or to a topic's first unread post. Every list comes from the same
// services as the Forum API, with the viewer from the session; a member's topic page moves its read
// mark as POST /topics/{id}/read does, and every topic page counts a view (topic-views.ts).
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { effectiveRole, findMemberByUsername } from '../members.js';
import { memberActivity } from '../member-activity.js';
import {
  authorizeBan,
  authorizeModeration,
  authorizeNewTopic,
  authorizePostChange,
  authorizeReply,
  canSeeForum,
  GUEST,
  requireMember,
  requirePoster,
  type Viewer,
} from '../policy.js';
import { advanceReadMark, firstUnreadPost, markAllRead } from '../reads.js';
import { searchForum } from '../search.js';
import { findVisibleForum, listAllForums, listCategories, listVisibleForums } from '../structure.js';
import { cachedTopicList, listLatestByForum, listTopics, listTopicActivity } from '../topic-list.js';
import {
  findVisiblePost,
  findVisibleTopic,
  listPostsClassic,
  listPostsThreaded,
  listThreadFrom,
  postsBefore,
  type PostNode,
  type PostView,
} from '../topics.js';
import type { ForumRow } from '../tables.js';
import { seeOther } from '../../http/forms.js';
import { AppError } from '../../http/errors.js';
import { checkForm, loadGuestUi, loadUi } from './context.js';
import { topicHead } from './discovery.js';
import { atomFeed, openingPosts } from './feed.js';
import { memberView } from './form-views.js';
import { requestOrigin } from '../mail/context.js';
import { pageNumber, permits, sendPage, totalPages } from './forms.js';
import { html } from '../../lib/html.js';
import { topicFacts } from './topic-facts.js';
import {
  forumView,
  indexView,
  latestView,
  newTopicChoiceView,
  searchView,
  topicView,
  type NewTopicTarget,
  type SearchNarrowing,
} from './read-views.js';
import { FORUM_CSS } from './style.css.js';
import { FORUM_JS } from './forum-script.js.js';

const TOPICS_PER_PAGE = 20;
/** How many of each forum's newest topics the index shows. */
const LATEST_PER_FORUM = 3;

/** The forums, of those given, the viewer may see and start a topic in, in their order. */
function startable(viewer: Viewer, forums: ForumRow[]): ForumRow[] {
  return forums.filter((forum) => canSeeForum(viewer, forum) && permits(() => authorizeNewTopic(viewer, forum)));
}

function newTopicTarget(viewer: Viewer, forums: ForumRow[]): NewTopicTarget {
  if (viewer.kind === 'guest') return 'log-in';
  if (forums.length === 0) return undefined;
  return forums.length === 1 ? { forum: forums[0]! } : 'choose';
}
const POSTS_PER_PAGE = 20;
const THREADS_PER_PAGE = 10;
const FEED_SIZE = 30;

const SlugParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 100 }) });
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
const PageQuery = Type.Object({ page: Type.Optional(Type.String({ maxLength: 10 })) });
const TopicQuery = Type.Object({
  page: Type.Optional(Type.String({ maxLength: 10 })),
  view: Type.Optional(Type.Union([Type.Literal('classic'), Type.Literal('threaded')])),
  flagged: Type.Optional(Type.Literal('1')),
  /** Threaded view: one thread continued from this post (read-views.ts THREAD_DEPTH_PER_PAGE). */
  from: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
});

/** Every post a page shows, replies included, in the order they were written. */
function visiblePosts(rows: PostView[] | PostNode[]): PostView[] {
  const all: PostView[] = [];
  const walk = (views: PostView[]) => {
    for (const view of views) {
      all.push(view);
      if ('replies' in view) walk((view as PostNode).replies);
    }
  };
  walk(rows);
  return all.sort(
    (a, b) => a.post.createdAt.getTime() - b.post.createdAt.getTime() || (a.post.id < b.post.id ? -1 : 1),
  );
}
const DAY = Type.Union([Type.Literal(''), Type.String({ format: 'date' })]);
const SearchQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 200 })),
  page: Type.Optional(Type.String({ maxLength: 10 })),
  forum: Type.Optional(Type.String({ maxLength: 100 })),
  category: Type.Optional(Type.String({ maxLength: 100 })),
  author: Type.Optional(Type.String({ maxLength: 40 })),
  after: Type.Optional(DAY),
  before: Type.Optional(DAY),
});

/**
 * The reading pages answer `ETag` and 304 (src/http/etags.ts), made of their bytes: a page shows
 * the header's counts and settings beside its list, more than any one version follows.
 */
const PAGE_TAG = { etag: 'body' } as const;

export async function readRoutes(app: FastifyInstance): Promise<void> {
  const db = app.deps.database.db;

  app.get('/assets/forum.css', async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('Cache-Control', 'public, max-age=3600').send(FORUM_CSS),
  );

  // Members' pages load it (layout.ts); guests' pages only where a post holds a code block.
  app.get('/assets/forum.js', async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('Cache-Control', 'public, max-age=3600').send(FORUM_JS),
  );

  app.get('/', { preHandler: loadUi, config: PAGE_TAG }, async (request, reply) => {
    const { site, viewer } = request.ui;
    const [categories, visible] = await Promise.all([
      listCategories(db, site.id, viewer),
      listVisibleForums(db, site.id, viewer),
    ]);
    const latest = await listLatestByForum(
      db,
      viewer,
      visible.map(({ forum }) => forum.id),
      LATEST_PER_FORUM,
    );
    return sendPage(reply, request.ui, request.ui.title, indexView(request.ui, categories, visible, latest));
  });

  app.get<{ Querystring: { page?: string } }>(
    '/latest',
    { schema: { querystring: PageQuery }, preHandler: loadUi, config: PAGE_TAG },
    async (request, reply) => {
      const { site, viewer, versions } = request.ui;
      const page = pageNumber(request.query.page);
      const listed = { page, pageSize: TOPICS_PER_PAGE, offset: (page - 1) * TOPICS_PER_PAGE };
      // The API's `filter=latest`: every topic the viewer may see, pinned first, then by activity.
      const { rows, total } = await cachedTopicList(
        app.forum.topicListPages,
        viewer,
        versions,
        { filter: 'latest', forumId: undefined, page: listed },
        () => listTopics(db, site.id, viewer, {}, listed),
      );
      const [forums, activity] = await Promise.all([
        listAllForums(db, site.id),
        listTopicActivity(
          db,
          rows.map(({ topic }) => topic.id),
        ),
      ]);
      const byId = new Map(forums.map((forum) => [forum.id, forum]));
      return sendPage(
        reply,
        request.ui,
        'Latest',
        latestView(request.ui, rows, page, totalPages(total, TOPICS_PER_PAGE), {
          forums: byId,
          activity,
          newTopic: newTopicTarget(viewer, startable(viewer, forums)),
        }),
      );
    },
  );

  /** Latest's "New topic" with more than one forum to start in: the member picks one. */
  app.get('/new', { preHandler: loadUi }, async (request, reply) => {
    const { site, viewer } = request.ui;
    if (viewer.kind === 'guest') return seeOther(reply, '/login?next=%2Fnew');
    const forums = startable(viewer, await listAllForums(db, site.id));
    if (forums.length === 1) return seeOther(reply, `/f/${forums[0]!.slug}/new`);
    return sendPage(reply, request.ui, 'New topic', newTopicChoiceView(forums));
  });

  /** "Mark all read", through the service of the API's POST /topics/read. */
  app.post('/latest/read', { preHandler: [loadUi, checkForm] }, async (request, reply) => {
    await markAllRead(db, request.ui.viewer);
    return seeOther(reply, '/latest');
  });

  app.get<{ Params: { slug: string }; Querystring: { page?: string } }>(
    '/f/:slug',
    { schema: { params: SlugParams, querystring: PageQuery }, preHandler: loadUi, config: PAGE_TAG },
    async (request, reply) => {
      const { site, viewer, versions } = request.ui;
      const forum = await findVisibleForum(db, site.id, viewer, request.params.slug);
      const page = pageNumber(request.query.page);
      const listed = { page, pageSize: TOPICS_PER_PAGE, offset: (page - 1) * TOPICS_PER_PAGE };
      const { rows, total } = await cachedTopicList(
        app.forum.topicListPages,
        viewer,
        versions,
        { filter: 'latest', forumId: forum.id, page: listed },
        () => listTopics(db, site.id, viewer, { forumId: forum.id }, listed, app.forum.topicMarks),
      );
      const canStart = permits(() => authorizeNewTopic(viewer, forum));
      return sendPage(
        reply,
        request.ui,
        forum.name,
        forumView(
          request.ui,
          forum,
          rows,
          page,
          totalPages(total, TOPICS_PER_PAGE),
          canStart,
          await listTopicActivity(
            db,
            rows.map(({ topic }) => topic.id),
          ),
        ),
        {
          head: html`<link rel="alternate" type="application/atom+xml" title="${forum.name}" \
href="/f/${forum.slug}/feed.atom">`,
        },
      );
    },
  );

  app.get<{ Params: { id: string }; Querystring: Static<typeof TopicQuery> }>(
    '/t/:id',
    { schema: { params: IdParams, querystring: TopicQuery }, preHandler: loadUi, config: PAGE_TAG },
    async (request, reply) => {
      const { site, viewer } = request.ui;
      const visible = await findVisibleTopic(db, site.id, viewer, request.params.id);
      const { topic, forum } = visible;
      const view = request.query.view ?? 'classic';
      const pageSize = view === 'threaded' ? THREADS_PER_PAGE : POSTS_PER_PAGE;
      const list = view === 'threaded' ? listPostsThreaded : listPostsClassic;
      let page = request.query.page === 'last' ? Number.MAX_SAFE_INTEGER : pageNumber(request.query.page);
      const from = view === 'threaded' ? request.query.from : undefined;
      let rows: PostView[] | PostNode[];
      let pages = 1;
      if (from) {
        const thread = await listThreadFrom(db, app.forum.pages, visible, from);
        if (!thread) throw new AppError('post_not_found', `No post "${from}" in this topic.`);
        rows = [thread];
        page = 1;
      } else {
        // `page=last` (where a new reply lands) needs the total first.
        if (page === Number.MAX_SAFE_INTEGER)
          page = totalPages(
            (await list(db, app.forum.pages, visible, { page: 1, pageSize: 1, offset: 0 })).total,
            pageSize,
          );
        const listed = await list(db, app.forum.pages, visible, { page, pageSize, offset: (page - 1) * pageSize });
        rows = listed.rows;
        pages = totalPages(listed.total, pageSize);
      }
      const can = {
        reply: permits(() => authorizeReply(viewer, forum, topic)),
        moderate: permits(() => authorizeModeration(viewer)),
        react: permits(() => requirePoster(viewer)),
        changePost: (authorId: string | null) => permits(() => authorizePostChange(viewer, authorId)),
      };
      const shown = visiblePosts(rows);
      const facts = await topicFacts(db, viewer, topic.id, shown, {
        draft: viewer.kind === 'member' && can.reply,
        answered: view === 'classic',
      });
      // Read up to the newest post shown when the page holds every post before it: always in the
      // classic view; in the threaded view (threads side by side) only when it shows the whole topic.
      const upTo = !from && (view === 'classic' || pages === 1) ? shown.at(-1) : undefined;
      if (viewer.kind === 'member' && upTo && !(facts.readUpTo && facts.readUpTo >= upTo.post.createdAt))
        await advanceReadMark(db, viewer, topic, upTo.post);
      // The classic first page opens with the opening post: its description needs no query.
      const opening =
        view === 'classic' && page === 1 && !from && shown[0]?.post.parentId === null ? shown[0].post : undefined;
      const openingHtml = opening
        ? opening.deletedAt
          ? undefined
          : opening.bodyHtml
        : (await openingPosts(db, [topic.id])).get(topic.id);
      const head = topicHead({ origin: requestOrigin(request), siteTitle: request.ui.title, topic, page, openingHtml });
      const { liked, readUpTo, answered, draft } = facts;
      const data = {
        topic,
        forum,
        view,
        posts: rows,
        page,
        totalPages: pages,
        liked,
        readUpTo,
        flagged: request.query.flagged === '1',
        answered,
        from,
        draft: draft === undefined ? undefined : { values: { body: draft }, drafted: true },
      };
      // Guests get the script only for what it adds to reading: copy buttons on code blocks.
      const scripts = shown.some(({ post }) => !post.deletedAt && post.bodyHtml.includes('<pre>'));
      app.forum.topicViews.count(topic.id, { viewer, ip: request.ip, userAgent: request.headers['user-agent'] });
      return sendPage(reply, request.ui, topic.title, topicView(request.ui, data, can), { head, scripts });
    },
  );

  /** The classic page of a topic that shows the post. */
  const postPage = async (post: Parameters<typeof postsBefore>[1]): Promise<string> =>
    `/t/${post.topicId}?page=${Math.floor((await postsBefore(db, post)) / POSTS_PER_PAGE) + 1}#p-${post.id}`;

  app.get<{ Params: { id: string } }>(
    '/p/:id',
    { schema: { params: IdParams }, preHandler: loadUi },
    async (request, reply) => {
      const { post } = await findVisiblePost(db, request.ui.site.id, request.ui.viewer, request.params.id);
      return seeOther(reply, await postPage(post));
    },
  );

  app.get<{ Params: { id: string } }>(
    '/t/:id/unread',
    { schema: { params: IdParams }, preHandler: loadUi },
    async (request, reply) => {
      const { site, viewer } = request.ui;
      requireMember(viewer);
      const { topic } = await findVisibleTopic(db, site.id, viewer, request.params.id);
      const post = await firstUnreadPost(db, viewer, topic);
      return seeOther(reply, post ? await postPage({ ...post, topicId: topic.id }) : `/t/${topic.id}?page=last`);
    },
  );

  app.get<{ Params: { username: string } }>(
    '/u/:username',
    {
      schema: { params: Type.Object({ username: Type.String({ minLength: 1, maxLength: 100 }) }) },
      preHandler: loadUi,
    },
    async (request, reply) => {
      const { site, viewer } = request.ui;
      // Profiles are for members: a guest learns nothing about who is registered.
      if (viewer.kind === 'guest') throw new AppError('authentication_required', 'Log in to see member profiles.');
      const member = await findMemberByUsername(db, site.id, request.params.username);
      if (!member) throw new AppError('member_not_found', `No member "${request.params.username}".`);
      const role = effectiveRole(site, member);
      const [{ rows: topics, total }, activity] = await Promise.all([
        listTopics(db, site.id, viewer, { authorId: member.id }, { page: 1, pageSize: 10, offset: 0 }),
        memberActivity(db, site.id, viewer, member.id),
      ]);
      const canBan = !member.userId && permits(() => authorizeBan(viewer, member, role));
      return sendPage(
        reply,
        request.ui,
        member.username,
        memberView(request.ui, member, role, { topics, topicCount: total, ...activity }, canBan),
      );
    },
  );

  app.get<{ Querystring: Static<typeof SearchQuery> }>(
    '/search',
    { schema: { querystring: SearchQuery }, preHandler: loadUi },
    async (request, reply) => {
      const { site, viewer } = request.ui;
      const query = (request.query.q ?? '').trim();
      const page = pageNumber(request.query.page);
      const narrow: SearchNarrowing = {
        forum: request.query.forum?.trim() ?? '',
        category: request.query.category?.trim() ?? '',
        author: request.query.author?.trim() ?? '',
        after: request.query.after ?? '',
        before: request.query.before ?? '',
      };
      const filters = {
        ...(narrow.forum ? { forumId: narrow.forum } : {}),
        ...(narrow.category ? { categoryId: narrow.category } : {}),
        ...(narrow.author ? { author: narrow.author } : {}),
        ...(narrow.after ? { after: new Date(`${narrow.after}T00:00:00Z`) } : {}),
        ...(narrow.before ? { before: new Date(`${narrow.before}T00:00:00Z`) } : {}),
      };
      const { rows, total } = query
        ? await searchForum(
            db,
            site.id,
            viewer,
            query,
            { page, pageSize: TOPICS_PER_PAGE, offset: (page - 1) * TOPICS_PER_PAGE },
            filters,
          )
        : { rows: [], total: 0 };
      const visibleForums = (await listVisibleForums(db, site.id, viewer)).map(({ forum }) => ({
        slug: forum.slug,
        name: forum.name,
      }));
      const visibleCategories = (await listCategories(db, site.id, viewer)).map((category) => ({
        slug: category.slug,
        name: category.name,
      }));
      const form = { query, narrow, forums: visibleForums, categories: visibleCategories };
      return sendPage(
        reply,
        request.ui,
        query ? `Search: ${query}` : 'Search',
        searchView(form, rows, page, totalPages(total, TOPICS_PER_PAGE)),
        { searchPage: true },
      );
    },
  );

  const feedPage = { page: 1, pageSize: FEED_SIZE, offset: 0 };

  app.get('/feed.atom', { preHandler: loadGuestUi }, async (request, reply) => {
    const { site, title } = request.ui;
    const { rows } = await listTopics(db, site.id, GUEST, {}, feedPage);
    const bodies = await openingPosts(
      db,
      rows.map((row) => row.topic.id),
    );
    return reply
      .type('application/atom+xml; charset=utf-8')
      .header('Cache-Control', 'public, max-age=300')
      .send(atomFeed({ origin: requestOrigin(request), title, selfPath: '/feed.atom', topics: rows, bodies }));
  });

  app.get<{ Params: { slug: string } }>(
    '/f/:slug/feed.atom',
    { schema: { params: SlugParams }, preHandler: loadGuestUi },
    async (request, reply) => {
      const { site, title } = request.ui;
      const forum = await findVisibleForum(db, site.id, GUEST, request.params.slug);
      const { rows } = await listTopics(db, site.id, GUEST, { forumId: forum.id }, feedPage);
      const bodies = await openingPosts(
        db,
        rows.map((row) => row.topic.id),
      );
      return reply
        .type('application/atom+xml; charset=utf-8')
        .header('Cache-Control', 'public, max-age=300')
        .send(
          atomFeed({
            origin: requestOrigin(request),
            title,
            selfPath: `/f/${forum.slug}/feed.atom`,
            forum,
            topics: rows,
            bodies,
          }),
        );
    },
  );
}
