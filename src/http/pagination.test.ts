// The pagination headers of a list: X-Pagination's numbers, and Link's targets keeping the request's
// other parameters where they were, page and page_size set once each.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { setPaginationHeaders, toPage } from './pagination.js';

function headersFor(url: string, query: { page?: number; page_size?: number }, total: number): Record<string, string> {
  const headers: Record<string, string> = {};
  const reply = { header: (name: string, value: string) => (headers[name] = value) } as unknown as FastifyReply;
  setPaginationHeaders({ url } as FastifyRequest, reply, toPage(query), total);
  return headers;
}

describe('pagination headers', () => {
  it("links every page of the list with the request's other parameters in place", () => {
    const headers = headersFor(
      '/api/x/tickets?status=open&page=2&q=a%20b&page=9&page_size=5',
      { page: 2, page_size: 5 },
      23,
    );
    assert.deepEqual(JSON.parse(headers['X-Pagination']!), {
      total: 23,
      total_pages: 5,
      first_page: 1,
      last_page: 5,
      page: 2,
      previous_page: 1,
      next_page: 3,
    });
    assert.equal(
      headers.Link,
      [
        '</api/x/tickets?status=open&page=1&q=a+b&page_size=5>; rel="first"',
        '</api/x/tickets?status=open&page=5&q=a+b&page_size=5>; rel="last"',
        '</api/x/tickets?status=open&page=1&q=a+b&page_size=5>; rel="prev"',
        '</api/x/tickets?status=open&page=3&q=a+b&page_size=5>; rel="next"',
      ].join(', '),
    );
  });

  it('answers the same URL anew when the total changed, though it keeps the headers it made', () => {
    const url = '/api/x/tickets?status=open&page=2&page_size=10';
    const before = headersFor(url, { page: 2, page_size: 10 }, 30);
    assert.deepEqual(headersFor(url, { page: 2, page_size: 10 }, 30), before);
    const after = headersFor(url, { page: 2, page_size: 10 }, 15);
    assert.equal(JSON.parse(after['X-Pagination']!).last_page, 2);
    assert.equal(JSON.parse(after['X-Pagination']!).next_page, undefined);
    assert.doesNotMatch(after.Link!, /rel="next"/);
  });

  it('adds page and page_size to a request without them, and links no neighbours of a lone page', () => {
    const headers = headersFor('/api/x/topics', {}, 0);
    assert.equal(
      headers.Link,
      '</api/x/topics?page=1&page_size=10>; rel="first", </api/x/topics?page=1&page_size=10>; rel="last"',
    );
  });
});
