// Outgoing mail, chosen once at startup: SMTP when BLUME_MAIL_SERVER is set, else a mailer that
// refuses loudly.
import type { MailConfig } from '../../config/index.js';
import { createDisabledMailer } from './disabled.js';
import { createSmtpMailer, type SmtpOptions } from './smtp.js';
import type { Mailer } from './types.js';

export { MailDisabledError, type Mailer, type OutgoingMail, type SentMail } from './types.js';

interface MailerOptions extends SmtpOptions {
  /** Where the disabled mailer reports what it did not send. */
  warn?: (text: string) => void;
}

const warnOnStderr = (text: string): void => {
  process.stderr.write(`blume: ${text}\n`);
};

export async function createMailer(config: MailConfig, options: MailerOptions = {}): Promise<Mailer> {
  const { server } = config;
  if (server === undefined) return createDisabledMailer(options.warn ?? warnOnStderr);
  return createSmtpMailer({ ...config, server }, options);
}
