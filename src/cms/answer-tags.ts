// What the Content API's reads are read under, for their `ETag` (src/http/etags.ts): the epochs of
// the cache seam's scopes they read (`cms-types:<site>` for the model, `cms:<type>` for a type and
// its entries), which triggers move with every write, whoever writes, and the type's next scheduled
// publication (an entry shows then with nothing written). Forum views and reads with `include=`
// read rows of other scopes: their tags are made of their bytes.
import type { FastifyRequest } from 'fastify';
import type { EtagParts } from '../http/etags.js';
import { FORUM_TYPE_SLUGS } from './forum-types.js';
import { authorizeStatusView } from './policy.js';
import type { ReadQuery } from './sources.js';

const typesScope = (request: FastifyRequest): string => `cms-types:${request.cms.site.id}`;

/** The site's content model (`GET /content-types[/{slug}]`). */
export async function contentModelTag(request: FastifyRequest): Promise<EtagParts> {
  return [await request.server.services.epochs.epochOf(typesScope(request))];
}

/** A stored type's entries, listed (`GET /entries/{type}`); the query string is the URL's. */
export async function entryListTag(request: FastifyRequest): Promise<EtagParts | undefined> {
  const { type: slug } = request.params as { type: string };
  const query = request.query as ReadQuery;
  if (FORUM_TYPE_SLUGS.includes(slug) || query.include) return undefined;
  const { epochs } = request.server.services;
  // Read before the type, so a type changed meanwhile is not tagged with the epoch before it.
  const model = await epochs.epochOf(typesScope(request));
  const type = await request.server.cms.types.get(request.cms.site.id, slug);
  // No such type: the handler answers 404.
  if (!type) return undefined;
  // A key that may not read drafts is refused by the handler; so it is before any 304.
  const view = authorizeStatusView(request.cms.caller, query.status);
  const [entries, next] = await Promise.all([
    epochs.epochOf(`cms:${type.id}`),
    request.server.cms.reads.nextPublished(type),
  ]);
  return [model, type.id, entries, next, view];
}
