// Answering forum form posts with pages; reading the forms themselves is src/http/forms.ts.
import type { FastifyReply } from 'fastify';
import { AppError } from '../../http/errors.js';
import { MAX_BODY_LENGTH } from '../schemas.js';
import type { UiContext } from './context.js';
import type { SafeHtml } from '../../lib/html.js';
import { layout, type PageOptions } from './layout.js';

/** Room for a full-size body written in any script: url-encoding makes one character up to 12 bytes. */
export const FORM_BODY_LIMIT = MAX_BODY_LENGTH * 12 + 16 * 1024;

/** `?page=` as a positive integer, 1 when absent or malformed. */
export function pageNumber(raw: unknown): number {
  const n = typeof raw === 'string' && /^\d{1,6}$/.test(raw) ? Number(raw) : 1;
  return Math.max(1, n);
}

export function totalPages(total: number, pageSize: number): number {
  return Math.max(1, Math.ceil(total / pageSize));
}

/** Whether a policy check passes, for showing or hiding a control; the action still checks it. */
export function permits(check: () => void): boolean {
  try {
    check();
    return true;
  } catch (error) {
    if (error instanceof AppError) return false;
    throw error;
  }
}

export function sendPage(
  reply: FastifyReply,
  ui: UiContext,
  title: string,
  body: SafeHtml,
  options: Omit<PageOptions, 'title' | 'body'> & { status?: number } = {},
): FastifyReply {
  // Pages vary by who is logged in; personal pages must not be stored at all.
  reply.header('Cache-Control', options.private || ui.viewer.kind === 'member' ? 'no-store' : 'no-cache');
  reply.header('Vary', 'Cookie');
  return reply
    .code(options.status ?? 200)
    .type('text/html; charset=utf-8')
    .send(layout(ui, { title, body, ...options }));
}
