// Shared list pagination: `page` (default 1) and `page_size` (default 10, max 100); the response
// carries `X-Pagination` (JSON) and an RFC 8288 `Link` header.
import { Type, type Static } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { WeightedLru } from '../lib/lru.js';

export const PageQuery = Type.Object({
  page: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'Page number, from 1.' }),
  ),
  page_size: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'Items per page, 1 to 100.' }),
  ),
});
export type PageQuery = Static<typeof PageQuery>;

export interface Page {
  page: number;
  pageSize: number;
  offset: number;
}

export function toPage(query: { page?: number; page_size?: number }): Page {
  const page = query.page ?? 1;
  const pageSize = query.page_size ?? 10;
  return { page, pageSize, offset: (page - 1) * pageSize };
}

interface PaginationMeta {
  total: number;
  total_pages: number;
  first_page: number;
  last_page: number;
  page: number;
  previous_page?: number;
  next_page?: number;
}

function paginationMeta(page: Page, total: number): PaginationMeta {
  const totalPages = Math.max(1, Math.ceil(total / page.pageSize));
  const meta: PaginationMeta = {
    total,
    total_pages: totalPages,
    first_page: 1,
    last_page: totalPages,
    page: page.page,
  };
  if (page.page > 1) meta.previous_page = Math.min(page.page - 1, totalPages);
  if (page.page < totalPages) meta.next_page = page.page + 1;
  return meta;
}

/** What the two headers weigh together at most, about in bytes. */
const MAX_HEADER_BYTES = 1024 * 1024;

/**
 * The headers made for each URL and total, as the same pages are asked again and again: a pure
 * function of both, so nothing here can go stale.
 */
const madeHeaders = new WeightedLru<string, { pagination: string; link: string }>(
  MAX_HEADER_BYTES,
  ({ pagination, link }) => 2 * (pagination.length + link.length),
);

export function setPaginationHeaders(request: FastifyRequest, reply: FastifyReply, page: Page, total: number): void {
  const key = `${total} ${page.page} ${page.pageSize} ${request.url}`;
  let made = madeHeaders.get(key);
  if (made === undefined) madeHeaders.set(key, (made = paginationHeaders(request.url, page, total)));
  reply.header('X-Pagination', made.pagination);
  reply.header('Link', made.link);
}

function paginationHeaders(url: string, page: Page, total: number): { pagination: string; link: string } {
  const meta = paginationMeta(page, total);
  const base = new URL(url, 'http://x');
  // The query is serialized once, apart from the URL (setting a URL's own parameters serializes the
  // whole URL each time), with the page number the one part each link puts in.
  const query = new URLSearchParams(base.search);
  query.set('page', '0');
  query.set('page_size', String(page.pageSize));
  const parts = query.toString().split('&');
  const at = parts.indexOf('page=0');
  const link = (rel: string, target: number): string => {
    parts[at] = `page=${target}`;
    return `<${base.pathname}?${parts.join('&')}>; rel="${rel}"`;
  };
  const links = [link('first', meta.first_page), link('last', meta.last_page)];
  if (meta.previous_page !== undefined) links.push(link('prev', meta.previous_page));
  if (meta.next_page !== undefined) links.push(link('next', meta.next_page));
  return { pagination: JSON.stringify(meta), link: links.join(', ') };
}
