// Where a type's entries live: the CMS's own table (articles and custom types) or the forum's tables
// (topics, posts, forums, categories). Routes talk to either through this one interface.
import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/client.js';
import type { SiteRow } from '../core/sites/tables.js';
import type { Page } from '../http/pagination.js';
import type { CachedPages, TopicPage } from '../forum/cached-pages.js';
import type { CmsCaller } from './policy.js';
import type { PublishedReads } from './published-reads.js';
import type { ContentTypeDirectory } from './type-directory.js';
import type { EntryListQuery, EntryOut } from './schemas.js';
import type { EntryInput } from './entries.js';

export interface SourceContext {
  db: Database;
  /** Where stored types are read from (this node's copies). */
  types: ContentTypeDirectory;
  /** What this node keeps of published reads. */
  reads: PublishedReads;
  /** What this node keeps of forum topics' pages of posts (the `posts` view reads them). */
  topicPages: CachedPages<TopicPage>;
  site: SiteRow;
  caller: CmsCaller;
}

/** The context of `caller`'s request to `site`, on this node's database and CMS services (`app.cms`). */
export function sourceContext(app: FastifyInstance, site: SiteRow, caller: CmsCaller): SourceContext {
  return {
    db: app.deps.database.db,
    types: app.cms.types,
    reads: app.cms.reads,
    topicPages: app.forum.pages,
    site,
    caller,
  };
}

export interface ReadQuery {
  fields?: string | undefined;
  include?: string | undefined;
  status?: 'published' | 'draft' | 'any' | undefined;
}

interface EntryWithTag {
  entry: EntryOut;
  /** Stored entries only: forum views have no version to match. */
  etag?: string | undefined;
}

export interface EntrySource {
  /** A page and the list's total; `estimated` when the total is the planner's estimate (src/db/count.ts). */
  list(
    ctx: SourceContext,
    query: EntryListQuery & Record<string, unknown>,
    page: Page,
  ): Promise<{ rows: EntryOut[]; total: number; estimated?: boolean }>;
  read(ctx: SourceContext, idOrSlug: string, query: ReadQuery): Promise<EntryWithTag>;
  create(ctx: SourceContext, input: EntryInput): Promise<EntryWithTag>;
  update(ctx: SourceContext, id: string, input: EntryInput, ifMatch: string | undefined): Promise<EntryWithTag>;
  remove(ctx: SourceContext, idOrSlug: string, ifMatch: string | undefined): Promise<void>;
}
