// Which SMTP server a site's mail goes through: the instance's own (MAIL_SERVER and the other MAIL_*
// settings) when it sets one, else the server-wide BLUME_MAIL_* settings (decision 0117).
import { parseBoolean, type MailConfig } from '../../config/index.js';
import type { InstanceSettings } from './allowlist.js';
import { openSetting } from './service.js';

const DEFAULT_PORT = 587;

/** The instance's own SMTP settings, or undefined when it sets no MAIL_SERVER. */
export function instanceMailConfig(
  settings: InstanceSettings,
  serverMail: MailConfig,
  secretKey: string,
): (MailConfig & { server: string }) | undefined {
  const values = settings.values;
  const server = values.MAIL_SERVER?.trim();
  if (!server) return undefined;
  return {
    server,
    port: values.MAIL_PORT ? Number(values.MAIL_PORT) : DEFAULT_PORT,
    useTls: parseBoolean(values.MAIL_USE_TLS ?? '') ?? false,
    username: values.MAIL_USERNAME?.trim() || undefined,
    password: openSetting(values, 'MAIL_PASSWORD', secretKey),
    defaultSender: values.MAIL_DEFAULT_SENDER?.trim() || serverMail.defaultSender,
  };
}

export type MailInForce =
  | { source: 'instance'; server: string; port: number; sender: string }
  | { source: 'server'; sender: string }
  | { source: 'none' };

/** What the settings page says about the site's mail, from its applied settings. */
export function mailInForce(settings: InstanceSettings, serverMail: MailConfig): MailInForce {
  const values = settings.values;
  const sender = values.MAIL_DEFAULT_SENDER?.trim() || serverMail.defaultSender;
  const server = values.MAIL_SERVER?.trim();
  if (server)
    return { source: 'instance', server, port: values.MAIL_PORT ? Number(values.MAIL_PORT) : DEFAULT_PORT, sender };
  return serverMail.server === undefined ? { source: 'none' } : { source: 'server', sender };
}
