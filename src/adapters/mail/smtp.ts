import { isIP } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import type { MailConfig } from '../../config/index.js';
import { resolveTarget } from '../../lib/outbound-targets.js';
import { bracketMessageId, type Mailer, type OutgoingMail, type SentMail } from './types.js';

export interface SmtpOptions {
  /** Extra TLS options (a private CA in tests or for an internal relay). */
  tls?: ConnectionOptions;
  /**
   * Connect only to public addresses: the host is resolved and checked before every send, and the
   * connection goes to the address checked (an instance's own MAIL_SERVER, decision 0117).
   */
  publicOnly?: boolean;
}

/**
 * SMTP through nodemailer. BLUME_MAIL_USE_TLS=True means implicit TLS from the first byte (port 465);
 * otherwise the connection starts plain and upgrades with STARTTLS whenever the server offers it.
 * Certificates are always verified: a relay with a private CA needs NODE_EXTRA_CA_CERTS.
 */
export async function createSmtpMailer(
  config: MailConfig & { server: string },
  options: SmtpOptions = {},
): Promise<Mailer> {
  // Imported lazily: a server without mail never loads the SMTP stack.
  const { createTransport } = await import('nodemailer');
  const host = config.server.replace(/^\[|\]$/g, '');
  const transportTo = (address: string) =>
    createTransport({
      host: address,
      port: config.port,
      secure: config.useTls,
      auth: config.username ? { user: config.username, pass: config.password ?? '' } : undefined,
      // Certificates are verified against the configured name, not the address connected.
      tls: address === host || isIP(host) ? options.tls : { servername: host, ...options.tls },
      // Requests wait on these; nodemailer's defaults (minutes) would hold a request far too long.
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    });
  const shared = options.publicOnly ? undefined : transportTo(host);
  return {
    driver: 'smtp',
    async send(message: OutgoingMail): Promise<SentMail> {
      const transport = shared ?? transportTo((await resolveTarget(host, false))[0]!);
      const info = await transport
        .sendMail({
          from: message.from ?? config.defaultSender,
          to: message.to,
          subject: message.subject,
          text: message.text,
          html: message.html,
          headers: message.headers,
          messageId: message.messageId ? bracketMessageId(message.messageId) : undefined,
          inReplyTo: message.inReplyTo ? bracketMessageId(message.inReplyTo) : undefined,
          references: message.references?.map(bracketMessageId),
        })
        .finally(() => {
          if (!shared) transport.close();
        });
      return { messageId: info.messageId };
    },
    async close() {
      shared?.close();
    },
  };
}
