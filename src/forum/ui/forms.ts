// Reading HTML form posts and answering with pages. Forms arrive url-encoded; every field is a
// single bounded string, and a field sent twice counts once (the first), as browsers never do that.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../http/errors.js';
import { MAX_BODY_LENGTH } from '../schemas.js';
import type { UiContext } from './context.js';
import type { SafeHtml } from './html.js';
import { layout, type PageOptions } from './layout.js';

/** Room for a full-size body written in any script: url-encoding makes one character up to 12 bytes. */
export const FORM_BODY_LIMIT = MAX_BODY_LENGTH * 12 + 16 * 1024;

export type FormBody = Record<string, string>;

export function registerFormParser(app: FastifyInstance): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT }, (_request, body, done) => {
    const form: FormBody = Object.create(null) as FormBody;
    for (const [name, value] of new URLSearchParams(body as string)) if (!(name in form)) form[name] = value;
    done(null, form);
  });
}

/** A text field of the posted form; missing fields read as ''. Too long answers undefined. */
export function field(request: FastifyRequest, name: string, maxLength: number): string | undefined {
  const form = (request.body ?? {}) as FormBody;
  const value = typeof form[name] === 'string' ? form[name] : '';
  return value.length > maxLength ? undefined : value;
}

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

export function sendPage(reply: FastifyReply, ui: UiContext, title: string, body: SafeHtml, options: Omit<PageOptions, 'title' | 'body'> & { status?: number } = {}): FastifyReply {
  // Pages vary by who is logged in; personal pages must not be stored at all.
  reply.header('Cache-Control', options.private || ui.viewer.kind === 'member' ? 'no-store' : 'no-cache');
  reply.header('Vary', 'Cookie');
  return reply
    .code(options.status ?? 200)
    .type('text/html; charset=utf-8')
    .send(layout(ui, { title, body, ...options }));
}

/** Redirect after a successful post (303, so reloading does not post again). */
export function seeOther(reply: FastifyReply, location: string): FastifyReply {
  return reply.code(303).header('Location', location).send();
}

/** A local path to return to after logging in; anything else (other hosts, `//x`) goes home. */
export function safeNext(raw: string | undefined): string {
  return raw && /^\/(?![/\\])[\x21-\x7e]*$/.test(raw) ? raw : '/';
}
