// Ticket list pages kept through writes that cannot change them (decision 0150): random writes to
// a small desk, most of them SQL behind the node's back, and after each one every list a node keeps
// is compared with the same list read anew. A kept page that differs is a stale answer; the test
// also proves that pages are kept through writes (a page that never survives proves nothing).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { mintApiKey } from '../../test/factories/cms.js';
import { addMember, makeCommunity } from '../../test/factories/forum.js';
import { helpdeskApi } from '../../test/factories/helpdesk.js';
import { buildTestApp, json, signIn, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { CacheEpochs } from '../adapters/cache/epochs.js';
import { createMemoryCache } from '../adapters/cache/memory.js';
import { queryRows } from '../db/client.js';
import { TicketListCache, type TicketListPage } from './cached-lists.js';
import type { HelpdeskCaller } from './policy.js';
import type { TicketListQuery } from './schemas.js';
import { listTickets } from './ticket-list.js';

const SITE = 'moves';
const WORDS = ['printer', 'invoice', 'refund', 'login', 'parcel', 'delay', 'screen', 'password'];
const STEPS = 60;

/** A repeatable sequence of numbers in [0, 1): the same walk on every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

for (const database of testDatabases) {
  describe(`ticket lists kept through writes that cannot change them [${database}]`, () => {
    let t: TestApp;
    let kept: TicketListCache;
    let fresh: TicketListCache;
    const ids: string[] = [];
    const categories: string[] = [];
    let agent = '';
    const next = random(42);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const run = (statement: ReturnType<typeof sql>) => t.testDatabase.handle.db.execute(statement);

    before(async () => {
      t = await buildTestApp({ database });
      const owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, SITE, 'pro');
      const key = await mintApiKey(t.app, owner, SITE, ['helpdesk-write']);
      agent = (await addMember(t.app, SITE, 'ann')).member.id;
      const desk = async (path: string, payload: object) => {
        const response = await helpdeskApi(t.app, SITE, { key }, { method: 'POST', path, payload });
        assert.equal(response.statusCode, 201, response.body);
        return json<{ id: string }>(response).id;
      };
      categories.push(await desk('/categories', { name: 'Billing' }), await desk('/categories', { name: 'Shipping' }));
      const agentSet = await helpdeskApi(
        t.app,
        SITE,
        { key },
        {
          method: 'PATCH',
          path: `/agents/${agent}`,
          payload: { capacity: 10, category_ids: [categories[0]] },
        },
      );
      assert.equal(agentSet.statusCode, 200, agentSet.body);
      for (let i = 0; i < 14; i += 1)
        ids.push(
          await desk('/tickets', {
            subject: `${pick(WORDS)} ${pick(WORDS)} question ${i}`,
            body: `About the ${pick(WORDS)}.`,
            requester: { email: pick(['carol@example.test', 'dan@example.test']) },
            priority: pick(['low', 'normal', 'high', 'urgent']),
            ...(i % 3 === 0 ? {} : { category_id: pick(categories) }),
          }),
        );
      kept = new TicketListCache(t.app.services.epochs);
      const off = createMemoryCache();
      fresh = new TicketListCache(new CacheEpochs(t.testDatabase.handle.db, off.pubsub, { answers: false }));
    });
    after(async () => {
      await t.close();
    });

    it('answers every kept list as it reads anew after each write, and keeps pages through writes', async () => {
      const admin: HelpdeskCaller = { kind: 'api_key', id: 'key', scope: 'helpdesk-read' };
      const served: HelpdeskCaller = {
        kind: 'member',
        id: agent,
        admin: false,
        agent: true,
        categories: [categories[0]!],
      };
      const since = new Date(Date.now() - 60_000).toISOString();
      const lists: Array<{ caller: HelpdeskCaller; query: TicketListQuery }> = [
        { caller: admin, query: {} },
        { caller: admin, query: { status: 'new,open' } },
        { caller: admin, query: { status: 'pending' } },
        { caller: admin, query: { priority: 'high,urgent', sort: 'sla_due' } },
        { caller: admin, query: { category: categories[0]! } },
        { caller: admin, query: { category: 'none' } },
        { caller: admin, query: { assignee: agent } },
        { caller: admin, query: { assignee: 'none', status: 'new' } },
        { caller: admin, query: { tag: 'vip' } },
        { caller: admin, query: { requester: 'carol@example.test' } },
        { caller: admin, query: { created_after: since, sort: 'number' } },
        { caller: admin, query: { q: 'printer' } },
        { caller: admin, query: { q: 'refund invoice' } },
        { caller: admin, query: { q: 'parcel', status: 'new,open' } },
        { caller: admin, query: { q: 'login -password' } },
        { caller: admin, query: { q: '"screen delay"', category: categories[1]! } },
        { caller: served, query: { status: 'new,open,pending' } },
        { caller: served, query: { q: 'printer' } },
      ];
      const page = { page: 1, pageSize: 5, offset: 0 };
      const shown = (list: TicketListPage) => ({
        tickets: list.rows.map(({ ticket, requester }) => ({ ...ticket, requester: requester.email })),
        total: list.total,
      });
      const last = new Map<number, TicketListPage>();
      let checks = 0;
      let keptThrough = 0;
      const newEntry = (ticket: string, text: string) =>
        run(sql`insert into helpdesk_entries (id, site_id, ticket_id, author_kind, body_source, body_html, body_text)
                values (${`e-${Math.floor(next() * 1e9)}`}, ${SITE}, ${ticket}, 'agent', ${text}, ${`<p>${text}</p>`}, ${text})`);
      const writes: Array<[string, () => Promise<unknown>]> = [
        [
          'status',
          () =>
            run(
              sql`update helpdesk_tickets set status = ${pick(['new', 'open', 'pending', 'solved'])} where id = ${pick(ids)}`,
            ),
        ],
        [
          'priority',
          () =>
            run(sql`update helpdesk_tickets set priority = ${pick(['low', 'high', 'urgent'])} where id = ${pick(ids)}`),
        ],
        [
          'category',
          () =>
            run(sql`update helpdesk_tickets set category_id = ${pick([...categories, null])} where id = ${pick(ids)}`),
        ],
        [
          'assignee',
          () => run(sql`update helpdesk_tickets set assignee_id = ${pick([agent, null])} where id = ${pick(ids)}`),
        ],
        [
          'tags',
          () =>
            run(
              sql`update helpdesk_tickets set tags = ${next() < 0.5 ? '{vip}' : '{}'}::text[] where id = ${pick(ids)}`,
            ),
        ],
        [
          'subject',
          () => run(sql`update helpdesk_tickets set subject = ${`${pick(WORDS)} again`} where id = ${pick(ids)}`),
        ],
        ['touch', () => run(sql`update helpdesk_tickets set updated_at = now() where id = ${pick(ids)}`)],
        ['requester', () => run(sql`update helpdesk_contacts set name = ${`Name ${next()}`} where site_id = ${SITE}`)],
        ['entry', () => newEntry(pick(ids), `Now the ${pick(WORDS)} and the ${pick(WORDS)}.`)],
        ['entry without a searched word', () => newEntry(pick(ids), 'Thanks, that helped.')],
        [
          'entry moved',
          () =>
            run(
              sql`update helpdesk_entries set ticket_id = ${pick(ids)} where id = (select id from helpdesk_entries where site_id = ${SITE} order by random() limit 1)`,
            ),
        ],
        [
          'entry deleted',
          () =>
            run(
              sql`delete from helpdesk_entries where id = (select id from helpdesk_entries where site_id = ${SITE} order by random() limit 1)`,
            ),
        ],
        [
          'many tickets',
          () => run(sql`update helpdesk_tickets set updated_at = now() where site_id = ${SITE} and status = 'new'`),
        ],
      ];
      for (let step = 0; step <= STEPS; step += 1) {
        if (step > 0) {
          const [name, write] = pick(writes);
          await write();
          // Two polls: each reads every move committed before it started.
          await t.app.services.epochs.poll();
          await t.app.services.epochs.poll();
          for (const [i, list] of lists.entries()) {
            const keptPage = await listTickets(t.testDatabase.handle.db, kept, SITE, list.caller, list.query, page);
            const freshPage = await listTickets(t.testDatabase.handle.db, fresh, SITE, list.caller, list.query, page);
            assert.deepEqual(
              shown(keptPage),
              shown(freshPage),
              `step ${step} (${name}): list ${JSON.stringify(list.query)}`,
            );
            checks += 1;
            if (last.get(i) === keptPage) keptThrough += 1;
            last.set(i, keptPage);
          }
        } else
          for (const [i, list] of lists.entries())
            last.set(i, await listTickets(t.testDatabase.handle.db, kept, SITE, list.caller, list.query, page));
      }
      const [filed] = await queryRows<{ n: number }>(
        t.testDatabase.handle.db,
        sql`select count(*)::int as n from cache_changes where scope = ${`helpdesk:${SITE}`}`,
      );
      assert.ok(filed!.n > 0, 'the triggers filed changes');
      assert.ok(keptThrough > checks / 3, `pages kept through writes: ${keptThrough} of ${checks}`);
    });
  });
}
