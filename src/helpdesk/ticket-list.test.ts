// The ticket list's two ways of reading a page (decision 0148), on both databases through the API:
// a list of more than EXACT_COUNT_LIMIT tickets walks the sort's order, a shorter one, a search and an
// empty one are read whole and sorted. Each page must be the slice of the same tickets sorted here,
// whichever way it was read, with the right total, its requesters, and past the end no rows.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { mintApiKey } from '../../test/factories/cms.js';
import { makeCommunity } from '../../test/factories/forum.js';
import { helpdeskApi, type HelpdeskCredential } from '../../test/factories/helpdesk.js';
import { buildTestApp, json, signIn, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { EXACT_COUNT_LIMIT } from '../db/count.js';

const SITE = 'desk';
/** Enough open tickets in one category that its list walks the sort's order. */
const MANY = EXACT_COUNT_LIMIT + 200;

type Listed = {
  number: number;
  status: string;
  priority: string;
  requester: { email: string };
  updated_at: string;
};

for (const database of testDatabases) {
  describe(`ticket list pages, walked or sorted [${database}]`, () => {
    let t: TestApp;
    let read: HelpdeskCredential;

    /** Ticket n: open in "busy", or every seventh pending and urgent in "quiet"; its times spread over days in no order. */
    const numbers = Array.from({ length: MANY + 70 }, (_, i) => i + 1);
    const quiet = (n: number) => n > MANY;
    const updatedAt = (n: number) => Date.UTC(2026, 10, 1) + ((n * 7919) % 100_003) * 60_000;
    const dueAt = (n: number) => Date.UTC(2026, 10, 20) + ((n * 104_729) % 50_021) * 60_000;

    const list = async (query: string) => {
      const response = await helpdeskApi(t.app, SITE, read, { method: 'GET', path: `/tickets?${query}` });
      assert.equal(response.statusCode, 200, response.body);
      const { total } = JSON.parse(String(response.headers['x-pagination'])) as { total: number };
      return { rows: json<Listed[]>(response), total };
    };

    before(async () => {
      t = await buildTestApp({ database });
      const owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, SITE, 'pro');
      read = { key: await mintApiKey(t.app, owner, SITE, ['helpdesk-read']) };
      const db = t.app.deps.database.db;
      await db.execute(
        sql`insert into helpdesk_categories (id, site_id, name) values ('busy', ${SITE}, 'Busy'), ('quiet', ${SITE}, 'Quiet')`,
      );
      await db.execute(sql`insert into helpdesk_contacts (id, site_id, email)
        select 'c' || n, ${SITE}, 'customer' || n || '@example.test' from generate_series(1, 10) n`);
      await db.execute(sql`insert into helpdesk_tickets (id, site_id, number, subject, status, priority, category_id,
          requester_id, channel, created_at, updated_at, resolution_due_at)
        select 't' || n, ${SITE}, n, 'Order ' || n || case when n % 50 = 0 then ' about the blue kettle' else '' end,
          case when n > ${MANY} then 'pending' else 'open' end,
          case when n > ${MANY} and n % 7 = 0 then 'urgent' else 'normal' end,
          case when n > ${MANY} then 'quiet' else 'busy' end, 'c' || (1 + n % 10), 'web',
          to_timestamp(${Date.UTC(2026, 9, 1) / 1000}), to_timestamp(${updatedAt(0) / 1000} + ((n * 7919) % 100003) * 60),
          to_timestamp(${dueAt(0) / 1000} + ((n * 104729) % 50021) * 60)
        from generate_series(1, ${numbers.length}) n`);
      await db.execute(sql`insert into helpdesk_counters (site_id, last_number) values (${SITE}, ${numbers.length})`);
      await db.execute(sql`analyze helpdesk_tickets`);
    });
    after(() => t.close());

    const newestFirst = (a: number, b: number) => updatedAt(b) - updatedAt(a) || (`t${b}` > `t${a}` ? 1 : -1);

    it('walks a long list in its order, page after page, with an estimated total past the exact limit', async () => {
      const expected = numbers.filter((n) => !quiet(n)).sort(newestFirst);
      const first = await list('category=busy&status=open&page_size=25');
      assert.deepEqual(
        first.rows.map((row) => row.number),
        expected.slice(0, 25),
      );
      assert.ok(first.total > EXACT_COUNT_LIMIT, `the total ${first.total} says the list is long`);
      const deep = await list('category=busy&status=open&page_size=50&page=20');
      assert.deepEqual(
        deep.rows.map((row) => row.number),
        expected.slice(950, 1000),
      );
      assert.equal(deep.rows[0]!.requester.email, `customer${1 + (expected[950]! % 10)}@example.test`);
    });

    it('sorts a short list whole: SLA due first, a page past the end empty with its exact total', async () => {
      const urgent = numbers.filter((n) => quiet(n) && n % 7 === 0).sort((a, b) => dueAt(a) - dueAt(b));
      const page = await list('category=quiet&priority=urgent,high&status=pending,open&sort=sla_due&page_size=5');
      assert.deepEqual(
        page.rows.map((row) => row.number),
        urgent.slice(0, 5),
      );
      assert.equal(page.total, urgent.length);
      const second = await list(
        'category=quiet&priority=urgent,high&status=pending,open&sort=sla_due&page_size=5&page=2',
      );
      assert.deepEqual(
        second.rows.map((row) => row.number),
        urgent.slice(5, 10),
      );
      const past = await list(
        'category=quiet&priority=urgent,high&status=pending,open&sort=sla_due&page_size=5&page=9',
      );
      assert.deepEqual(past.rows, []);
      assert.equal(past.total, urgent.length);
    });

    it('answers a list that matches nothing with no rows and a total of 0', async () => {
      const none = await list('category=busy&priority=urgent&sort=sla_due');
      assert.deepEqual(none, { rows: [], total: 0 });
    });

    it('searches once for the count and the page, newest first', async () => {
      const kettles = numbers.filter((n) => n % 50 === 0).sort(newestFirst);
      const found = await list('q=blue%20kettle&page_size=10');
      assert.deepEqual(
        found.rows.map((row) => row.number),
        kettles.slice(0, 10),
      );
      assert.equal(found.total, kettles.length);
      const inQuiet = await list('q=kettle&category=quiet&sort=number');
      assert.deepEqual(
        inQuiet.rows.map((row) => row.number),
        kettles.filter(quiet).sort((a, b) => a - b),
      );
    });
  });
}
