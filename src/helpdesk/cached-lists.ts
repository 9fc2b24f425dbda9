// Each node's copy of the pages of ticket lists it answered: agents' inboxes and integrations ask
// the same pages again and again, far more often than tickets change. Pages are cached on the cache
// seam (src/adapters/cache/epochs.ts) under the scope `helpdesk:<site>`, which triggers move with
// every write of the site's tickets, entries or contacts, whoever writes (the API, the pages, the
// contact form, a forum member deleted, SQL): every node learns of it within the seam's bound, at
// once where the write came through a node and the bus carries its announcement. The tickets' and
// entries' triggers file what each statement changed (decision 0150), and a page is kept through a
// change that cannot have touched it (`affected`): a ticket its filters leave out before and after,
// new text without a word of its search. Any other move ends every page. Lists that depend on the
// clock (`sla=breached|at_risk`) are never cached; a cached page's answer is made anew when one of
// its SLA flags may have changed.
import type { Static } from 'typebox';
import type { Cached, CacheEpochs } from '../adapters/cache/epochs.js';
import { presentTicket } from './presenters.js';
import type { TicketOut } from './schemas.js';
import { slaChangesAt } from './sla.js';
import type { ListedTicket } from './tables.js';

/** What the pages weigh at most together, about in bytes: some 500 searches' pages of 25 with what they matched. */
const MAX_BYTES = 32 * 1024 * 1024;

/** What a ticket list filters by, of one ticket, as the triggers file it (migrations/0055_cache_changes.sql). */
export interface FilteredFields {
  status: string;
  priority: string;
  category_id: string | null;
  assignee_id: string | null;
  requester_id: string;
  tags: string[];
  created_at: string;
}

/**
 * One change filed under `helpdesk:<site>`: a ticket written (its fields before and after, null
 * where it was inserted or deleted, and the words of a new subject), or an entry of the ticket
 * written (only `words` of its new text, or `lost` where the ticket lost text).
 */
interface TicketChange {
  id: string;
  before?: FilteredFields | null;
  after?: FilteredFields | null;
  words?: string[] | null;
  lost?: true;
}

/** A search's terms, and the tickets it matched where it counted them all. */
interface SearchedBy {
  /**
   * The ids of the tickets it matched, each between spaces (` t1 t2 `): one string, which costs the
   * garbage collector one object however many tickets matched.
   */
  matched: string | undefined;
  /** The query's words as PostgreSQL stems them (websearch_to_tsquery). */
  words: readonly string[];
  /** The query excludes words: new text may make a ticket match without a word of it, lost text too. */
  negated: boolean;
}

/** What a page's list keeps to, to tell which changes may touch it (`affected`). */
export interface ListedBy {
  /** Whether a ticket's fields pass the list's filters; undefined where they cannot tell (a requester's address). */
  passes: (fields: FilteredFields) => boolean | undefined;
  search?: SearchedBy;
}

export interface TicketListPage {
  rows: ListedTicket[];
  total: number;
  estimated: boolean;
  listedBy: ListedBy;
  /** The API's answer for the page, serialized, and until when its SLA flags hold (`apiAnswer`). */
  answer?: { body: Buffer; until: number };
}

/** The rows, the API's answer made of them, which is about as long, and a search's matched tickets. */
const weigh = (page: TicketListPage): number =>
  2 * JSON.stringify(page.rows).length + (page.listedBy.search?.matched?.length ?? 0);

const wasMatched = (search: SearchedBy, id: string): boolean => search.matched?.includes(` ${id} `) ?? true;

/**
 * The page as the API answers it at `now`, serialized by `serialize`: cached with the page until the
 * first of its tickets' SLA flags may change (`slaChangesAt`), then made anew.
 */
export function apiAnswer(
  page: TicketListPage,
  serialize: (tickets: Array<Static<typeof TicketOut>>) => string,
  now = new Date(),
): Buffer {
  if (page.answer && now.getTime() < page.answer.until) return page.answer.body;
  const body = Buffer.from(serialize(page.rows.map(({ ticket, requester }) => presentTicket(ticket, requester, now))));
  page.answer = { body, until: Math.min(...page.rows.map(({ ticket }) => slaChangesAt(ticket, now))) };
  return body;
}

const textMayMatch = (search: SearchedBy, words: readonly string[]): boolean =>
  search.negated || search.words.some((word) => words.includes(word));

/**
 * Whether a change filed under the site's scope may change a page of the list. A ticket the list's
 * filters leave out before and after cannot. A search that counted its tickets (`matched`) keeps to
 * them, as the text of a ticket it did not match changes only with new words, which a search
 * matches only if they hold one of its own (unless it excludes words).
 */
function affected(page: TicketListPage, change: TicketChange): boolean {
  const { passes, search } = page.listedBy;
  if (change.before === undefined && change.after === undefined) {
    // An entry's text: only a search reads it.
    if (!search) return false;
    if (change.lost) return search.negated || wasMatched(search, change.id);
    return textMayMatch(search, change.words ?? []);
  }
  const passedBefore = change.before ? passes(change.before) : false;
  const passesAfter = change.after ? passes(change.after) : false;
  if (passedBefore === false && passesAfter === false) return false;
  if (!search?.matched || passedBefore === undefined || passesAfter === undefined) return true;
  if (wasMatched(search, change.id)) return true;
  if (!passesAfter) return false;
  // New: its subject is all its text so far (its entries are changes of their own).
  if (!change.before) return textMayMatch(search, change.words ?? []);
  // It passes the filters now and did not before: whether its text matches is not known.
  if (!passedBefore) return true;
  // It passed them and was not matched: its text did not match, and only new words may.
  return change.words != null && textMayMatch(search, change.words);
}

export class TicketListCache {
  private readonly pages: Cached<TicketListPage>;

  constructor(epochs: CacheEpochs) {
    this.pages = epochs.cache({
      name: 'helpdesk ticket lists',
      kind: 'answer',
      maxBytes: MAX_BYTES,
      weigh,
      affected: (page, change) => affected(page, change as TicketChange),
    });
  }

  /** A page of the site's tickets; `read` names everything the answer depends on (the caller's visibility too). */
  page(siteId: string, read: string, load: () => Promise<TicketListPage>): Promise<TicketListPage> {
    return this.pages.cached(`helpdesk:${siteId}`, read, load);
  }
}
