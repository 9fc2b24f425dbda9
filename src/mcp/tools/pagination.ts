// The list tools page like the APIs do: `page` in, the X-Pagination header's numbers out.
import { z } from 'zod';
import type { ApiAnswer } from '../api.js';

export const Pagination = z
  .object({ page: z.number(), total: z.number(), total_pages: z.number(), next_page: z.number().optional() })
  .describe("From the API's X-Pagination header; call again with page: next_page for more.");

export const pageArg = z.number().int().min(1).optional().describe('Page number (1 by default).');

export function paginationOf(answer: ApiAnswer<unknown>): z.infer<typeof Pagination> {
  const header = answer.headers['x-pagination'];
  const parsed = typeof header === 'string' ? (JSON.parse(header) as Record<string, number>) : {};
  const page = parsed.page ?? 1;
  return {
    page,
    total: parsed.total ?? 0,
    total_pages: parsed.total_pages ?? 1,
    ...(parsed.next_page ? { next_page: parsed.next_page } : {}),
  };
}

export function pageNote(pagination: z.infer<typeof Pagination>): string {
  return `page ${pagination.page} of ${pagination.total_pages} (${pagination.total} in all)`;
}
