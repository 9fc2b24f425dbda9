// Each node's copy of the pages of ticket lists it answered (docs/decisions/0108): agents' inboxes
// and integrations ask the same pages again and again, far more often than tickets change. A page
// is kept under the site's generation (src/adapters/cache/generations.ts); every write request to
// the site's help desk, through the API or its pages, ends the generation on every node before it
// answers (`endOnWrites`). A generation lasts TTL_MS at most, so a change made behind the help
// desk's back (a member deleted in the forum, SQL) shows within TTL_MS. Lists that depend on the
// clock (`sla=breached|at_risk`) are never kept; a kept page's answer is made anew when one of its
// SLA flags may have changed.
import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { Generations } from '../adapters/cache/generations.js';
import type { PubSub } from '../adapters/cache/index.js';
import { WeightedLru } from '../lib/lru.js';
import { presentTicket } from './presenters.js';
import type { TicketOut } from './schemas.js';
import { slaChangesAt } from './sla.js';
import type { ListedTicket } from './tables.js';

/** How long a node serves a site's kept pages without hearing of a change. */
export const TTL_MS = 5_000;
/** What the pages weigh at most together, in characters of JSON. */
const MAX_WEIGHT = 16 * 1024 * 1024;

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
 * The page as the API answers it at `now`, serialized by `serialize`: kept with the page until the
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

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

export class KeptTicketLists {
  private readonly generations: Generations;
  private readonly pages = new WeightedLru<string, TicketListPage>(MAX_WEIGHT, weigh);

  constructor(pubsub: PubSub) {
    this.generations = new Generations(pubsub, 'helpdesk:tickets', TTL_MS);
  }

  start(): Promise<void> {
    return this.generations.start();
  }

  stop(): Promise<void> {
    return this.generations.stop();
  }

  /** A page of the site's tickets; `read` names everything the answer depends on (the caller's visibility too). */
  async page(siteId: string, read: string, load: () => Promise<TicketListPage>): Promise<TicketListPage> {
    const serial = await this.generations.serialOf(siteId);
    return this.pages.keep(`${siteId}\n${serial}\n${read}`, load);
  }

  /** Every node, this one included, stops serving the site's kept pages. */
  changed(siteId: string): Promise<void> {
    return this.generations.changed(siteId);
  }

  /**
   * Ends the site's kept pages after every write request in `app`'s scope, before its answer leaves,
   * whatever the answer: a write that failed halfway may have committed a part.
   */
  endOnWrites(app: FastifyInstance): void {
    app.addHook('onSend', async (request, _reply, payload) => {
      if (!READS.has(request.method) && request.target.kind === 'site') await this.changed(request.target.site);
      return payload;
    });
  }
}
