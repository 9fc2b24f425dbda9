// Answering console requests with a page: the shared frame, no caching, and a refused form shown
// again with the reason in words.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../http/errors.js';
import type { SafeHtml } from '../lib/html.js';
import { layout, type PageOptions } from './views.js';

export function sendPage(
  request: FastifyRequest,
  reply: FastifyReply,
  title: string,
  body: SafeHtml,
  status = 200,
  options: PageOptions = {},
): FastifyReply {
  reply.header('Cache-Control', 'no-store');
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .send(layout(request.console, title, body, options));
}

/** Runs a form action; a known refusal answers the form again with its message and status. */
export async function attempt(
  action: () => Promise<FastifyReply>,
  refused: (error: AppError) => FastifyReply | Promise<FastifyReply>,
): Promise<FastifyReply> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof AppError && error.status < 500) return refused(error);
    throw error;
  }
}
