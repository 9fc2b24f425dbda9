// Help desk reports over a day's work, on both databases: two tickets opened, one answered by the
// agent, paused (pending), then solved, the other left open and paused; every report shows it, as
// JSON and as CSV, and bad ranges and non-admin agents are refused. An answer is reused until the
// desk changes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mintApiKey } from '../../test/factories/cms.js';
import { addMember, makeCommunity, type ForumActor } from '../../test/factories/forum.js';
import { helpdeskApi, type HelpdeskCredential } from '../../test/factories/helpdesk.js';
import { buildTestApp, json, signIn, type Actor, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { sql } from 'drizzle-orm';
import { queryRows } from '../db/client.js';

type Report = {
  from: string;
  to: string;
  interval: string;
  totals: Record<string, number>;
  rows: Array<Record<string, string | number | null>>;
};

for (const database of testDatabases) {
  describe(`help desk reports [${database}]`, () => {
    let t: TestApp;
    let write: HelpdeskCredential;
    let ann: ForumActor;
    let firstId: string;
    let owner: Actor;
    const api = (
      credential: HelpdeskCredential,
      method: 'GET' | 'POST' | 'PATCH',
      path: string,
      payload?: object,
      headers?: Record<string, string>,
    ) =>
      helpdeskApi(t.app, 'desk', credential, {
        method,
        path,
        ...(payload ? { payload } : {}),
        ...(headers ? { headers } : {}),
      });
    const report = async (kind: string, query = '') => {
      const response = await api(write, 'GET', `/reports/${kind}${query}`);
      assert.equal(response.statusCode, 200, response.body);
      return json<Report>(response);
    };
    const today = new Date().toISOString().slice(0, 10);

    before(async () => {
      t = await buildTestApp({ database });
      owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'desk', 'pro');
      write = { key: await mintApiKey(t.app, owner, 'desk', ['helpdesk-write']) };
      ann = await addMember(t.app, 'desk', 'ann');
      assert.equal((await api(write, 'PATCH', `/agents/${ann.member.id}`, { capacity: 5 })).statusCode, 200);
      const open = async (subject: string) =>
        json<{ id: string; assignee_id: string | null }>(
          await api(write, 'POST', '/tickets', {
            subject,
            body: 'Help.',
            requester: { email: `${subject.toLowerCase()}@customer.example` },
          }),
        );
      const first = await open('Alpha');
      const second = await open('Beta');
      firstId = first.id;
      assert.equal(first.assignee_id, ann.member.id, 'auto-assigned to the one agent');
      const agent = { token: ann.token };
      assert.equal((await api(agent, 'POST', `/tickets/${first.id}/replies`, { body: 'On it.' })).statusCode, 201);
      assert.equal((await api(agent, 'PATCH', `/tickets/${first.id}`, { status: 'pending' })).statusCode, 200);
      assert.equal((await api(agent, 'PATCH', `/tickets/${first.id}`, { status: 'solved' })).statusCode, 200);
      assert.equal((await api(agent, 'PATCH', `/tickets/${second.id}`, { status: 'pending' })).statusCode, 200);
    });
    after(() => t.close());

    it("counts the day's tickets, solves and replies, per period and in totals", async () => {
      const tickets = await report('tickets');
      assert.equal(tickets.to, today);
      assert.equal(tickets.interval, 'day');
      assert.deepEqual(tickets.totals, { created: 2, solved: 1, reopened: 0, agent_replies: 1, requester_replies: 0 });
      assert.deepEqual(tickets.rows, [
        { period: today, created: 2, solved: 1, reopened: 0, agent_replies: 1, requester_replies: 0 },
      ]);
      const monthly = await report('tickets', `?interval=month&from=${today}&to=${today}`);
      assert.equal(monthly.rows[0]!.period, `${today.slice(0, 7)}-01`);
      assert.deepEqual((await report('trends')).totals, { created: 2, solved: 1, reopened: 0, backlog_change: 1 });
    });

    it('reads closed days from their daily sums, summed once, exactly as the history counts them', async () => {
      const db = t.app.deps.database.db;
      const dayAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
      // The reports above summed the closed days of their range; this test starts before them.
      await db.execute(sql`delete from helpdesk_report_days where site_id = 'desk'`);
      // Only days of the site's lifetime are summed: the site is made to have existed for a while.
      const createdAt = (
        await queryRows<{ at: string }>(db, sql`select created_at::text as at from sites where id = 'desk'`)
      )[0]!.at;
      await db.execute(sql`update sites set created_at = ${`${dayAgo(12)}T00:00:00Z`}::timestamptz where id = 'desk'`);
      await t.app.services.epochs.announce();
      // Past days' history as it would have been written then: a creation and two replies ten days
      // ago, a solve nine days ago, and only a priority change five days ago.
      await db.execute(sql`insert into helpdesk_history (site_id, ticket_id, actor_kind, event, to_value, created_at) values
        ('desk', ${firstId}, 'system', 'created', null, ${`${dayAgo(10)}T08:00:00Z`}::timestamptz),
        ('desk', ${firstId}, 'member', 'reply', null, ${`${dayAgo(10)}T09:00:00Z`}::timestamptz),
        ('desk', ${firstId}, 'requester', 'reply', null, ${`${dayAgo(10)}T23:59:59Z`}::timestamptz),
        ('desk', ${firstId}, 'member', 'status', '"solved"'::jsonb, ${`${dayAgo(9)}T00:00:00Z`}::timestamptz),
        ('desk', ${firstId}, 'member', 'priority', '"high"'::jsonb, ${`${dayAgo(5)}T12:00:00Z`}::timestamptz)`);
      const query = `?from=${dayAgo(12)}&to=${today}`;
      const expected = [
        { period: dayAgo(10), created: 1, solved: 0, reopened: 0, agent_replies: 1, requester_replies: 1 },
        { period: dayAgo(9), created: 0, solved: 1, reopened: 0, agent_replies: 0, requester_replies: 0 },
        { period: dayAgo(5), created: 0, solved: 0, reopened: 0, agent_replies: 0, requester_replies: 0 },
        { period: today, created: 2, solved: 1, reopened: 0, agent_replies: 1, requester_replies: 0 },
      ];
      const first = await report('tickets', query);
      assert.deepEqual(first.rows, expected);
      const summed = await queryRows<{ day: string; events: number }>(
        db,
        sql`select day::text as day, events from helpdesk_report_days where site_id = 'desk' order by day`,
      );
      // A day closes an hour after it ends (reports.ts): in the first hour of today, yesterday is open.
      const closedDays = new Date(Date.now() - 3_600_000).toISOString().slice(0, 10) === today ? 12 : 11;
      assert.equal(summed.length, closedDays, 'every closed day of the range has its row, empty days too');
      assert.deepEqual(
        summed.filter((row) => row.events > 0),
        [
          { day: dayAgo(10), events: 3 },
          { day: dayAgo(9), events: 1 },
          { day: dayAgo(5), events: 1 },
        ],
      );
      assert.ok(
        summed.every((row) => row.day < today),
        'today is read from the history, not summed',
      );
      assert.deepEqual(
        (await report('tickets', query)).rows,
        expected,
        'the second reading, from the sums, is the same',
      );
      const weekly = await report('tickets', `${query}&interval=week`);
      assert.equal(weekly.totals.created, 3);
      assert.equal(weekly.totals.requester_replies, 1);
      await db.execute(
        sql`delete from helpdesk_history where site_id = 'desk' and created_at < ${`${today}T00:00:00Z`}::timestamptz`,
      );
      await db.execute(sql`delete from helpdesk_report_days where site_id = 'desk'`);
      await db.execute(sql`update sites set created_at = ${createdAt}::timestamptz where id = 'desk'`);
      await t.app.services.epochs.announce();
    });

    it('a read-only key writes no daily sums for days before the site existed, and bad days answer 422', async () => {
      const db = t.app.deps.database.db;
      const read = { key: await mintApiKey(t.app, owner, 'desk', ['helpdesk-read']) };
      const sums = async () =>
        (
          await queryRows<{ n: number }>(
            db,
            sql`select count(*)::int as n from helpdesk_report_days where site_id = 'desk'`,
          )
        )[0]!.n;
      const before = await sums();
      for (const query of ['?from=2001-01-01&to=2002-02-04', '?from=1970-01-01&to=1971-01-01', '?to=1999-12-31']) {
        const response = await api(read, 'GET', `/reports/tickets${query}`);
        assert.equal(response.statusCode, 200, response.body);
        assert.deepEqual(json<Report>(response).rows, []);
      }
      assert.equal(await sums(), before, 'no row for a day before the site existed');
      for (const query of ['?to=0000-01-01', '?from=0000-01-01&to=0000-12-31', '?from=1969-12-31&to=1970-01-02']) {
        const response = await api(read, 'GET', `/reports/tickets${query}`);
        assert.equal(response.statusCode, 422, `${query}: ${response.body}`);
        assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
        assert.equal(json(response).code, 'invalid_report_range');
      }
      assert.equal(await sums(), before);
    });

    it("shows the agent's work, the categories and the SLA clocks, the paused one included", async () => {
      const agents = await report('agents');
      assert.deepEqual(agents.rows, [
        { agent_id: ann.member.id, username: 'ann', assigned: 2, replies: 1, solved: 1, open_now: 1 },
      ]);
      assert.deepEqual((await report('categories')).rows, [
        { category_id: null, name: '(none)', created: 2, solved: 1, open_now: 1 },
      ]);
      const sla = await report('sla');
      assert.equal(sla.totals.tickets, 2);
      assert.equal(sla.totals.paused, 1, "the pending ticket's clock is stopped");
      assert.equal(sla.totals.breached, 0);
      assert.equal(typeof sla.rows[0]!.avg_first_response_minutes, 'number');
    });

    it('answers CSV for Accept: text/csv', async () => {
      const response = await api(write, 'GET', '/reports/agents', undefined, { accept: 'text/csv' });
      assert.equal(response.statusCode, 200);
      assert.match(String(response.headers['content-type']), /^text\/csv/);
      assert.match(
        String(response.headers['content-disposition']),
        /attachment; filename="helpdesk-agents-\d{4}-\d\d-\d\d-\d{4}-\d\d-\d\d\.csv"/,
      );
      assert.equal(
        response.body,
        `agent_id,username,assigned,replies,solved,open_now\r\n${ann.member.id},ann,2,1,1,1\r\n`,
      );
    });

    it('refuses bad ranges and agents who are not admins', async () => {
      const backwards = await api(write, 'GET', '/reports/tickets?from=2026-02-01&to=2026-01-01');
      assert.equal(backwards.statusCode, 422);
      assert.equal(json(backwards).code, 'invalid_report_range');
      assert.equal(
        json(await api(write, 'GET', '/reports/tickets?from=2020-01-01&to=2026-01-01')).code,
        'invalid_report_range',
      );
      assert.equal((await api(write, 'GET', '/reports/tickets?from=yesterday')).statusCode, 400);
      assert.equal((await api(write, 'GET', '/reports/everything')).statusCode, 400);
      assert.equal((await api({ token: ann.token }, 'GET', '/reports/tickets')).statusCode, 403);
    });

    it('answers a report again from memory until the desk changes', async () => {
      const first = await report('categories');
      // A write past the history moves no change marker: the remembered answer stands.
      await t.app.deps.database.db.execute(sql`update helpdesk_tickets set status = 'closed' where site_id = 'desk'`);
      assert.deepEqual(await report('categories'), first);
      // A ticket opened through the API writes its history: the next answer is computed anew.
      assert.equal(
        (
          await api(write, 'POST', '/tickets', {
            subject: 'Gamma',
            body: 'Help.',
            requester: { email: 'gamma@customer.example' },
          })
        ).statusCode,
        201,
      );
      const changed = await report('categories');
      assert.deepEqual([changed.totals.created, changed.totals.open_now], [first.totals.created! + 1, 1]);
    });
  });
}
