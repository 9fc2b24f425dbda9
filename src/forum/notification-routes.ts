// The member's notifications in the Forum API: the list, marking read, and which of them are mailed
// (docs/decisions/0075-forum-notifications.md, 0098-notification-mail.md).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { problems } from '../http/openapi.js';
import { setPaginationHeaders, toPage } from '../http/pagination.js';
import { sendSerializedOnce } from '../http/response-schemas.js';
import { forumMember } from './access.js';
import { notificationsTag } from './answer-tags.js';
import { mailSettingsOf, updateMailSettings } from './mail/settings.js';
import { listCachedNotifications, markNotificationsRead } from './notifications.js';
import { requireMember } from './policy.js';
import { presentNotification } from './presenters.js';
import {
  MailSettingsOut,
  MailSettingsPatch,
  memberSecurity,
  NotificationOut,
  NotificationQuery,
  NotificationsReadBody,
  NotificationsReadOut,
} from './schemas.js';

export async function notificationRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const db = app.deps.database.db;

  app.get(
    '/notifications',
    {
      schema: {
        tags: ['notifications'],
        summary: 'Your notifications (replies, mentions, likes), newest first',
        security: memberSecurity,
        querystring: NotificationQuery,
        response: { 200: Type.Array(NotificationOut) },
      },
      preHandler: forumMember,
      config: { etag: notificationsTag },
    },
    async (request, reply) => {
      const { site, viewer, versions } = request.forum;
      requireMember(viewer);
      const page = toPage(request.query);
      const { rows, total } = await listCachedNotifications(
        db,
        app.forum.notificationPages,
        app.forum.counts,
        site.id,
        viewer,
        versions,
        request.query.unread ?? false,
        page,
      );
      setPaginationHeaders(request, reply, page, total);
      return sendSerializedOnce(reply, rows, (cached) => cached.map(presentNotification));
    },
  );

  app.get(
    '/notifications/settings',
    {
      schema: {
        tags: ['notifications'],
        summary: 'Which notifications you get by mail, and your digest',
        security: memberSecurity,
        response: { 200: MailSettingsOut },
      },
      preHandler: forumMember,
    },
    async (request) => {
      requireMember(request.forum.viewer);
      return mailSettingsOf(request.forum.viewer.member);
    },
  );

  app.patch(
    '/notifications/settings',
    {
      schema: {
        tags: ['notifications'],
        summary: 'Change which notifications you get by mail (the fields you send), and your digest',
        security: memberSecurity,
        body: MailSettingsPatch,
        response: { 200: MailSettingsOut, ...problems(422) },
      },
      preHandler: forumMember,
    },
    async (request) => {
      requireMember(request.forum.viewer);
      return updateMailSettings(db, request.forum.viewer.member, request.body);
    },
  );

  app.post(
    '/notifications/read',
    {
      schema: {
        tags: ['notifications'],
        summary: 'Mark your notifications read (the ones named, or all)',
        security: memberSecurity,
        body: NotificationsReadBody,
        response: { 200: NotificationsReadOut },
      },
      preHandler: forumMember,
    },
    async (request) => ({
      unread_count: await markNotificationsRead(db, request.forum.site.id, request.forum.viewer, request.body.ids),
    }),
  );
}
