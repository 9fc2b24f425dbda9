// Each node's copy of the pages of ticket lists it answered: agents' inboxes and integrations ask
// the same pages again and again, far more often than tickets change. Pages are cached on the cache
// seam (src/adapters/cache/epochs.ts) under the scope `helpdesk:<site>`, which triggers move with
// every write of the site's tickets or contacts, whoever writes (the API, the pages, the contact
// form, a forum member deleted, SQL): every node drops its pages within the seam's bound, at once
// where the write came through a node and the bus carries its announcement. Lists that depend on
// the clock (`sla=breached|at_risk`) are never cached; a cached page's answer is made anew when one of
// its SLA flags may have changed.
import type { Static } from 'typebox';
import type { Cached, CacheEpochs } from '../adapters/cache/epochs.js';
import { presentTicket } from './presenters.js';
import type { TicketOut } from './schemas.js';
import { slaChangesAt } from './sla.js';
import type { ListedTicket } from './tables.js';

/** What the pages weigh at most together, about in bytes. */
const MAX_BYTES = 16 * 1024 * 1024;

export interface TicketListPage {
  rows: ListedTicket[];
  total: number;
  estimated: boolean;
  /** The API's answer for the page, serialized, and until when its SLA flags hold (`apiAnswer`). */
  answer?: { body: Buffer; until: number };
}

/** The rows, and the API's answer made of them, which is about as long. */
const weigh = (page: TicketListPage): number => 2 * JSON.stringify(page.rows).length;

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

export class TicketListCache {
  private readonly pages: Cached<TicketListPage>;

  constructor(epochs: CacheEpochs) {
    this.pages = epochs.cache({ name: 'helpdesk ticket lists', kind: 'answer', maxBytes: MAX_BYTES, weigh });
  }

  /** A page of the site's tickets; `read` names everything the answer depends on (the caller's visibility too). */
  page(siteId: string, read: string, load: () => Promise<TicketListPage>): Promise<TicketListPage> {
    return this.pages.cached(`helpdesk:${siteId}`, read, load);
  }
}
