// The job runner's part of the app: the one mail outbox every domain's mail goes through, as
// `app.mailOutbox`, sending from the moment the app is ready until it closes; a site's mail goes
// through the site's own SMTP server when it has one.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { MailOutbox } from './mail-outbox.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Sends queued mail after the transactions that queue it commit. */
    mailOutbox: MailOutbox;
  }
}

export const jobsPlugin = fp(
  async (app: FastifyInstance) => {
    const { database, mailer, config } = app.deps;
    const outbox = new MailOutbox(database.db, mailer, app.log, {
      embeddedDatabase: database.driver === 'pglite',
      sites: {
        applied: (siteId) => app.instanceSettings.applied(siteId),
        serverMail: config.mail,
        secretKey: config.secretKey,
        allowPrivate: config.mailAllowPrivate,
      },
    });
    app.decorate('mailOutbox', outbox);
    // Mail queued by an earlier run (or a node that stopped) goes out once this node is up.
    app.addHook('onReady', () => outbox.start());
    app.addHook('onClose', () => outbox.stop());
  },
  { name: 'blume-jobs' },
);
