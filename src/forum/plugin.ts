// The forum domain: its per-node services (`app.forum`: deep-page marks, the digest sweeps, topic
// view counts), and the community surface's Forum API at /api/forum/v1: routes answer only on
// community site hosts, CORS follows the site's applied API_CORS_ORIGINS, and the OpenAPI document
// is built from the routes. The forum UI (ui/plugin.ts) registers after it and uses the same services.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { registerSiteApiCors } from '../core/settings/site-api-cors.js';
import { registerOpenApi } from '../http/openapi.js';
import { configuredMailContext } from './mail/context.js';
import { DigestSweeps } from './mail/digest-job.js';
import { CachedCounts } from './cached-counts.js';
import { cachedListPages, cachedTopicPages, type CachedPages, type TopicPage } from './cached-pages.js';
import type { NotificationPage } from './notifications.js';
import type { TopicListPage } from './topic-list.js';
import { TopicPageMarks } from './page-marks.js';
import { TopicViewCounter } from './topic-views.js';
import { draftRoutes } from './draft-routes.js';
import { uploadRoutes, uploadServing } from './upload-routes.js';
import { memberRoutes } from './member-routes.js';
import { notificationRoutes } from './notification-routes.js';
import { ForumIds } from './forum-ids.js';
import { moderationRoutes } from './moderation-routes.js';
import { ThreadedPostOut } from './schemas.js';
import { structureRoutes } from './structure-routes.js';
import { topicRoutes } from './topic-routes.js';
import { waitlistRoutes } from './waitlist-routes.js';

const FORUM_API_PREFIX = '/api/forum/v1';

interface ForumRuntime {
  /** Where this node seeks deep pages of forum topic lists from (docs/decisions/0022-forum-deep-pages.md). */
  topicMarks: TopicPageMarks;
  /** The counts of members' pages this node keeps (docs/decisions/0106-counts-kept-per-node.md). */
  counts: CachedCounts;
  /** The pages of topics' posts this node keeps (docs/decisions/0109-topic-pages-kept-per-node.md). */
  pages: CachedPages<TopicPage>;
  /** The pages of members' notifications this node keeps (decision 0109). */
  notificationPages: CachedPages<NotificationPage>;
  /** The pages of members' topic lists this node keeps (docs/decisions/0110-topic-lists-kept-per-node.md). */
  topicListPages: CachedPages<TopicListPage>;
  /** Which forum an id or slug a client sent names, resolved before anything is keyed by it. */
  forumIds: ForumIds;
  /** Topic page views this node counted and has yet to write (docs/decisions/0147-forum-topic-views.md). */
  topicViews: TopicViewCounter;
  /** The hourly digest sweeps (docs/decisions/0098-notification-mail.md); tests run one with `runNext`. */
  digests: DigestSweeps;
}

declare module 'fastify' {
  interface FastifyInstance {
    forum: ForumRuntime;
  }
}

async function forumApi(app: FastifyInstance): Promise<void> {
  app.addHook('onRoute', (route) => {
    route.constraints = { ...route.constraints, surface: 'community' };
  });
  app.decorateRequest('forum', null as never);
  app.addSchema(ThreadedPostOut);
  await registerOpenApi(app, {
    title: 'Blume Forum API',
    description:
      'Forums, topics and posts of a community instance. Authenticate with `Authentication-Token: <forum ' +
      'token>` (POST /auth/tokens mints one); anonymous reads work only when the instance enables ' +
      'FORUM_API_PUBLIC_READ and sets API_CORS_ORIGINS. Lists take `page` and `page_size` (default 10, max ' +
      '100), answer a bare JSON array, and carry `X-Pagination` and `Link` headers.',
    prefix: FORUM_API_PREFIX,
    servedOn: 'site',
  });
  await app.register(
    async (api) => {
      await registerSiteApiCors(api);
      await api.register(structureRoutes);
      await api.register(topicRoutes);
      await api.register(memberRoutes);
      await api.register(notificationRoutes);
      await api.register(moderationRoutes);
      await api.register(waitlistRoutes);
      await api.register(uploadRoutes);
      await api.register(draftRoutes);
    },
    { prefix: FORUM_API_PREFIX },
  );
  await app.register(uploadServing);
}

export const forumPlugin = fp(
  async (app: FastifyInstance) => {
    const { database, config } = app.deps;
    const outbox = app.mailOutbox;
    const digests = new DigestSweeps(
      database.db,
      {
        contextFor: (site) => configuredMailContext(app, site),
        mails: async (site) => outbox.enabledFor(await app.instanceSettings.applied(site.id)),
        secretKey: config.secretKey,
        queued: () => outbox.drainSoon(),
      },
      app.log,
      // A site may have its own SMTP server when the server has none, so the sweep always runs.
      { embeddedDatabase: database.driver === 'pglite', enabled: () => true },
    );
    const topicViews = new TopicViewCounter(database.db, app.log);
    app.decorate('forum', {
      topicMarks: new TopicPageMarks(),
      counts: new CachedCounts(),
      pages: cachedTopicPages(),
      notificationPages: cachedListPages(),
      topicListPages: cachedListPages(),
      forumIds: new ForumIds(database.db, app.services.epochs),
      digests,
      topicViews,
    } satisfies ForumRuntime);
    app.addHook('onReady', () => digests.start());
    app.addHook('onClose', () => digests.stop());
    app.addHook('onClose', () => topicViews.close());
    await app.register(forumApi);
  },
  { name: 'blume-forum', dependencies: ['blume-jobs', 'blume-instance-settings'] },
);
