import { MailDisabledError, type Mailer, type OutgoingMail, type SentMail } from './types.js';

/**
 * The mailer when BLUME_MAIL_SERVER is unset. It never pretends to send: every call is logged
 * (so an operator sees which mail was lost) and rejected with MailDisabledError.
 */
export function createDisabledMailer(warn: (text: string) => void): Mailer {
  return {
    driver: 'disabled',
    async send(message: OutgoingMail): Promise<SentMail> {
      const to = Array.isArray(message.to) ? message.to.join(', ') : message.to;
      warn(`mail to ${to} ("${message.subject}") not sent: BLUME_MAIL_SERVER is not set`);
      throw new MailDisabledError();
    },
    async close() {},
  };
}
