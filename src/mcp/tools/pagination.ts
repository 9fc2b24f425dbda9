// Every list tool pages like the APIs do: `page` and `page_size` in, the X-Pagination header's
// numbers out, and a text that says how to get the next page. Lists an API answers whole (releases,
// builds, content types) are paged here the same way.
import { z } from 'zod';
import type { ApiAnswer } from '../api.js';

const DEFAULT_PAGE_SIZE = 20;

export const Pagination = z
  .object({
    page: z.number(),
    page_size: z.number(),
    total: z.number(),
    total_pages: z.number(),
    next_page: z.number().optional(),
  })
  .describe('Call the tool again with page: next_page (and the same page_size) for more.');
export type Pagination = z.infer<typeof Pagination>;

export const pageArgs = {
  page: z.number().int().min(1).max(1_000_000).optional().describe('Page number (1 by default).'),
  page_size: z
    .number()
    .int()
    .min(1)
    .max(100)
    .optional()
    .describe(`Items per page, 1 to 100 (${DEFAULT_PAGE_SIZE} by default).`),
};

/** The query an API lists a page with. */
export function pageQuery(args: { page?: number; page_size?: number }): { page: number; page_size: number } {
  return { page: args.page ?? 1, page_size: args.page_size ?? DEFAULT_PAGE_SIZE };
}

export function paginationOf(answer: ApiAnswer<unknown>, pageSize: number): Pagination {
  const header = answer.headers['x-pagination'];
  const parsed = typeof header === 'string' ? (JSON.parse(header) as Record<string, number>) : {};
  return {
    page: parsed.page ?? 1,
    page_size: pageSize,
    total: parsed.total ?? 0,
    total_pages: parsed.total_pages ?? 1,
    ...(parsed.next_page ? { next_page: parsed.next_page } : {}),
  };
}

/** One page of a list the API answers whole. */
export function pageOf<T>(
  items: T[],
  args: { page?: number; page_size?: number },
): { items: T[]; pagination: Pagination } {
  const { page, page_size } = pageQuery(args);
  const totalPages = Math.max(1, Math.ceil(items.length / page_size));
  return {
    items: items.slice((page - 1) * page_size, page * page_size),
    pagination: {
      page,
      page_size,
      total: items.length,
      total_pages: totalPages,
      ...(page < totalPages ? { next_page: page + 1 } : {}),
    },
  };
}

/** "page 1 of 3 (52 in all); next page: call <tool> again with page: 2 and page_size: 20". */
export function pageNote(tool: string, pagination: Pagination): string {
  const where = `page ${pagination.page} of ${pagination.total_pages} (${pagination.total} in all)`;
  return pagination.next_page
    ? `${where}; next page: call ${tool} again with the same arguments and page: ${pagination.next_page}`
    : `${where}; this is the last page`;
}
