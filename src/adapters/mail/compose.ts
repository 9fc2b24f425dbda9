// The mails Blume writes to one person on its own (a link to confirm, accept or reset, a notice of a
// reply): plain text plus simple HTML in one shape, marked as machine-sent. Callers escape what
// comes from people and settings in the HTML they pass; the helpers here escape what they are given.
import { escapeHtml } from '../../lib/html.js';
import type { OutgoingMail } from './types.js';

/** Each line (markup) as a paragraph. */
export function mailParagraphs(lines: string[]): string {
  return lines.map((line) => `<p>${line}</p>`).join('\n');
}

export function mailLink(url: string, label: string): string {
  return `<a href="${escapeHtml(url)}">${escapeHtml(label)}</a>`;
}

interface AutomatedMail {
  to: string;
  subject: string;
  text: string;
  /** The HTML body's markup, put in a plain document. */
  html: string;
  /** Overrides BLUME_MAIL_DEFAULT_SENDER. */
  from?: string | undefined;
}

export function automatedMail(mail: AutomatedMail): OutgoingMail {
  return {
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
    html: `<!doctype html>\n<html><body style="font-family:system-ui,sans-serif;line-height:1.5;max-width:40rem">\n${mail.html}\n</body></html>`,
    ...(mail.from ? { from: mail.from } : {}),
    // Vacation responders and ticket systems should not answer a machine.
    headers: { 'Auto-Submitted': 'auto-generated' },
  };
}
