// The member's notifications: the list (GET /notifications) and marking read, through the services
// of GET /notifications and POST /notifications/read of the Forum API; and which of them we mail
// (/account/notifications), through the service of the API's /notifications/settings.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { field, seeOther } from '../../http/forms.js';
import { listNotifications, markNotificationsRead } from '../notifications.js';
import { requireMember } from '../policy.js';
import { checkForm, loadUi } from './context.js';
import { pageNumber, sendPage, totalPages } from './forms.js';
import { mailSettingsView, notificationsView } from './notification-views.js';
import { AppError } from '../../http/errors.js';
import { mailSettingsOf, updateMailSettings, type MailSettings } from '../mail/settings.js';
import { DIGEST_FREQUENCIES, MAIL_DELIVERIES, NOTIFICATION_KINDS } from '../tables.js';

/** The value when it is one of `allowed`. */
function choice<T extends string>(allowed: readonly T[], value: string | undefined): T | undefined {
  return allowed.find((option) => option === value);
}

const NOTIFICATIONS_PER_PAGE = 30;
const PageQuery = Type.Object({ page: Type.Optional(Type.String({ maxLength: 10 })) });

export async function notificationRoutes(app: FastifyInstance): Promise<void> {
  const db = app.deps.database.db;

  app.get<{ Querystring: { page?: string } }>(
    '/notifications',
    { schema: { querystring: PageQuery }, preHandler: loadUi },
    async (request, reply) => {
      const { site, viewer } = request.ui;
      requireMember(viewer);
      const page = pageNumber(request.query.page);
      const { rows, total } = await listNotifications(
        db,
        site.id,
        viewer,
        false,
        { page, pageSize: NOTIFICATIONS_PER_PAGE, offset: (page - 1) * NOTIFICATIONS_PER_PAGE },
        app.forum.counts,
      );
      return sendPage(
        reply,
        request.ui,
        'Notifications',
        notificationsView(request.ui, rows, page, totalPages(total, NOTIFICATIONS_PER_PAGE)),
        { private: true },
      );
    },
  );

  app.get('/account/notifications', { preHandler: loadUi }, async (request, reply) => {
    const { viewer } = request.ui;
    requireMember(viewer);
    return sendPage(
      reply,
      request.ui,
      'Mail settings',
      mailSettingsView(request.ui, mailSettingsOf(viewer.member), app.mailOutbox.enabledFor(request.ui.settings)),
      { private: true },
    );
  });

  app.post('/account/notifications', { preHandler: [loadUi, checkForm] }, async (request, reply) => {
    const ui = request.ui;
    requireMember(ui.viewer);
    const chosen: Partial<Record<keyof MailSettings, string>> = {};
    for (const name of [...NOTIFICATION_KINDS, 'digest'] as const) chosen[name] = field(request, name, 20);
    const wanted = {
      reply: choice(MAIL_DELIVERIES, chosen.reply),
      mention: choice(MAIL_DELIVERIES, chosen.mention),
      like: choice(MAIL_DELIVERIES, chosen.like),
      digest: choice(DIGEST_FREQUENCIES, chosen.digest),
    };
    if (!wanted.reply || !wanted.mention || !wanted.like || !wanted.digest)
      throw new AppError('validation_failed', 'Choose one of the offered settings for each kind of mail.');
    const enabled = app.mailOutbox.enabledFor(ui.settings);
    try {
      const saved = await updateMailSettings(db, ui.viewer.member, wanted as MailSettings);
      return sendPage(
        reply,
        ui,
        'Mail settings',
        mailSettingsView(ui, saved, enabled, { kind: 'ok', text: 'Saved.' }),
        { private: true },
      );
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'digest_off') throw error;
      return sendPage(
        reply,
        ui,
        'Mail settings',
        mailSettingsView(ui, wanted as MailSettings, enabled, { kind: 'error', text: error.message }),
        { status: 422, private: true },
      );
    }
  });

  /** Marks one notification read (field `id`), or all of them. */
  app.post('/notifications/read', { preHandler: [loadUi, checkForm] }, async (request, reply) => {
    // One notification, or a group of them (likes of one post), as ids joined by commas.
    const ids = field(request, 'id', 100 * NOTIFICATIONS_PER_PAGE)
      ?.split(',')
      .filter(Boolean)
      .slice(0, NOTIFICATIONS_PER_PAGE);
    await markNotificationsRead(db, request.ui.site.id, request.ui.viewer, ids?.length ? ids : undefined);
    return seeOther(reply, '/notifications');
  });
}
