/** One outgoing e-mail. Addresses are RFC 5322 mailboxes (`Name <a@b>` or `a@b`). */
export interface OutgoingMail {
  to: string | string[];
  subject: string;
  text: string;
  html?: string;
  /** Extra headers (`List-Id`, `Auto-Submitted`, ...); the adapter sets From, To, Subject, Date. */
  headers?: Record<string, string>;
  /** Message-ID of the mail this one answers (threading in the reader's mail client). */
  inReplyTo?: string;
  /** Message-IDs of the thread, oldest first. */
  references?: string[];
  /** Our own Message-ID, so a later reply can point at it; generated when absent. */
  messageId?: string;
  /** Overrides BLUME_MAIL_DEFAULT_SENDER (a help desk answering from its own address). */
  from?: string;
}

export interface SentMail {
  /** The Message-ID the mail went out with, angle brackets included. */
  messageId: string;
}

export interface Mailer {
  readonly driver: 'smtp' | 'disabled';
  send(message: OutgoingMail): Promise<SentMail>;
  close(): Promise<void>;
}

/** Thrown by the disabled mailer: callers turn it into a clear answer instead of a silent drop. */
export class MailDisabledError extends Error {
  constructor() {
    super('Outgoing mail is disabled on this server: set BLUME_MAIL_SERVER (and BLUME_MAIL_* settings) to send mail.');
    this.name = 'MailDisabledError';
  }
}

/** Message-IDs travel with angle brackets in headers; callers may store them either way. */
export function bracketMessageId(id: string): string {
  const bare = id.trim().replace(/^<|>$/g, '');
  return `<${bare}>`;
}
