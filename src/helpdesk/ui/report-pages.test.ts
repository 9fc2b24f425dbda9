// The reports pages of the agent inbox on both databases: /desk/reports leads to the tickets report;
// each of the five reports is a page with a chart drawn as inline SVG (an image named by its title
// and description) and its figures in a table; the range form narrows it and a refused range is
// said on the page; each report downloads as CSV with a header row, quoting and no formula a
// spreadsheet would run; admins of the help desk see them, agents who are not admins do not, and
// the desk's navigation links them for admins only.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addMember, communityHost, makeCommunity, type ForumActor } from '../../../test/factories/forum.js';
import { buildTestApp, signIn, type TestApp } from '../../../test/helpers/app.js';
import { testDatabases } from '../../../test/helpers/databases.js';
import { pageText, UiClient } from '../../../test/helpers/forum-ui.js';
import { makeAgent } from '../agents.js';
import { createCategory } from '../categories.js';
import { REPORT_COLUMNS, REPORT_KINDS } from '../reports.js';
import { openTicket } from '../tickets.js';
import { triageTicket } from '../triage.js';

const today = () => new Date().toISOString().slice(0, 10);

for (const database of testDatabases) {
  describe(`help desk report pages [${database}]`, () => {
    let t: TestApp;
    let ada: ForumActor;
    let ann: ForumActor;
    const db = () => t.app.deps.database.db;
    const as = async (actor: ForumActor) => {
      const ui = new UiClient(t.app, communityHost('desk'));
      assert.equal((await ui.login(actor.member.username, actor.password)).statusCode, 303);
      return ui;
    };

    before(async () => {
      t = await buildTestApp({ database, env: { BLUME_RATE_LOGIN_PER_MINUTE: '1000' } });
      const owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'desk', 'pro');
      ada = await addMember(t.app, 'desk', 'ada', 'admin');
      ann = await addMember(t.app, 'desk', 'ann');
      // A category whose name a spreadsheet would take for a formula, with a comma and quotes in it.
      const risky = (await createCategory(db(), 'desk', { name: '=HYPERLINK("http://evil.example","Refunds, all")' }))
        .id;
      await makeAgent(db(), 'desk', ada.member.id, { available: false });
      await makeAgent(db(), 'desk', ann.member.id, { categoryIds: [risky], available: false });
      for (let i = 1; i <= 3; i++) {
        const { ticket } = await openTicket(db(), 'desk', {
          subject: `Question ${i}`,
          body: 'Help?',
          requester: { email: `c${i}@customer.example`, name: `Customer ${i}` },
          channel: 'api',
          categoryId: i === 1 ? risky : null,
        });
        if (i === 2)
          await triageTicket(db(), 'desk', ticket.id, { kind: 'account', id: 'owner' }, { status: 'solved' });
      }
    });
    after(() => t.close());

    it('draws each report as an SVG chart with its figures in a table', async () => {
      const admin = await as(ada);
      const start = await admin.get('/desk/reports');
      assert.equal(start.statusCode, 303);
      assert.equal(start.headers.location, '/desk/reports/tickets');
      for (const kind of REPORT_KINDS) {
        const page = await admin.get(`/desk/reports/${kind}`);
        assert.equal(page.statusCode, 200, kind);
        assert.match(
          page.body,
          new RegExp(
            `<svg viewBox="0 0 \\d+ 240"[^>]* role="img" aria-labelledby="chart-${kind}-title" aria-describedby="chart-${kind}-desc"`,
          ),
          kind,
        );
        assert.match(page.body, new RegExp(`<title id="chart-${kind}-title">[^<]+ to ${today()}</title>`), kind);
        assert.match(page.body, /<table class="list report-figures"><caption>/, kind);
        assert.match(page.body, new RegExp(`href="/desk/reports/${kind}\\.csv" download`), kind);
        assert.match(page.body, /<a href="\/desk\/reports"[^>]*>Reports<\/a>/);
      }
      const tickets = await admin.get('/desk/reports/tickets');
      assert.match(pageText(tickets.body), /in all: created 3, solved 1, reopened 0/);
      assert.match(tickets.body, new RegExp(`<th scope="row">${today()}</th><td>3</td><td>1</td>`));
      // Every bar carries its figure for a pointer's tooltip.
      assert.match(tickets.body, new RegExp(`<rect class="s0"[^>]*><title>${today()}: Created 3</title></rect>`));
      const agents = await admin.get('/desk/reports/agents');
      assert.match(agents.body, /<th scope="row">ann<\/th>/);
      // The category's name is text on the page, never markup.
      const categories = await admin.get('/desk/reports/categories');
      assert.match(categories.body, /=HYPERLINK\(&quot;http:\/\/evil.example&quot;,&quot;Refunds, all&quot;\)/);
    });

    it('narrows to the range of the form, and says why a range is refused', async () => {
      const admin = await as(ada);
      const past = await admin.get('/desk/reports/trends?from=2020-01-01&to=2020-01-31&interval=week');
      assert.equal(past.statusCode, 200);
      assert.match(pageText(past.body), /Nothing happened in this range to draw/);
      assert.match(past.body, /<input type="date" id="report-from" name="from" value="2020-01-01">/);
      assert.match(past.body, /<option value="week" selected>Week<\/option>/);
      assert.match(
        past.body,
        /href="\/desk\/reports\/trends\.csv\?from=2020-01-01&amp;to=2020-01-31&amp;interval=week"/,
      );
      // A blank field of the form is the default.
      assert.equal((await admin.get('/desk/reports/sla?from=&to=&interval=')).statusCode, 200);
      const backwards = await admin.get('/desk/reports/sla?from=2024-02-01&to=2024-01-01');
      assert.equal(backwards.statusCode, 422);
      assert.match(pageText(backwards.body), /The range ends \(2024-01-01\) before it starts \(2024-02-01\)/);
      assert.doesNotMatch(backwards.body, /<svg/);
      const tooLong = await admin.get('/desk/reports/tickets?from=2020-01-01&to=2024-01-01');
      assert.equal(tooLong.statusCode, 422);
      assert.match(pageText(tooLong.body), /at most 400 days/);
      assert.equal((await admin.get('/desk/reports/tickets?interval=year')).statusCode, 422);
      assert.equal((await admin.get('/desk/reports/revenue')).statusCode, 404);
      assert.equal((await admin.get('/desk/reports/tickets.csv?from=2024-02-01&to=2024-01-01')).statusCode, 422);
    });

    it('downloads each report as CSV with a header row, quoted and formula-safe', async () => {
      const admin = await as(ada);
      const csv = await admin.get('/desk/reports/categories.csv');
      assert.equal(csv.statusCode, 200);
      assert.match(String(csv.headers['content-type']), /^text\/csv; charset=utf-8/);
      assert.match(
        String(csv.headers['content-disposition']),
        new RegExp(`^attachment; filename="helpdesk-categories-\\d{4}-\\d\\d-\\d\\d-${today()}\\.csv"$`),
      );
      const lines = csv.body.split('\r\n');
      assert.equal(lines[0], 'category_id,name,created,solved,open_now');
      assert.ok(
        lines.some((line) =>
          /^[A-Za-z0-9]+,"'=HYPERLINK\(""http:\/\/evil.example"",""Refunds, all""\)",1,0,1$/.test(line),
        ),
        csv.body,
      );
      assert.ok(lines.includes(',(none),2,1,1'), csv.body);
      for (const kind of REPORT_KINDS) {
        const response = await admin.get(`/desk/reports/${kind}.csv?from=2020-01-01&to=2020-01-31`);
        assert.equal(response.statusCode, 200, kind);
        const [header, ...rows] = response.body.split('\r\n');
        assert.equal(header, REPORT_COLUMNS[kind].join(','), kind);
        // Nothing happened in that range: no period has a row, while every agent and category has one.
        if (kind === 'tickets' || kind === 'trends' || kind === 'sla') assert.deepEqual(rows, [''], kind);
      }
      const trends = await admin.get('/desk/reports/trends.csv');
      assert.equal(trends.body.split('\r\n')[0], 'period,created,solved,reopened,backlog_change');
      assert.match(trends.body, new RegExp(`\r\n${today()},3,1,0,2\r\n`));
    });

    it('shows the reports to admins of the help desk only', async () => {
      const agent = await as(ann);
      const list = await agent.get('/desk/open');
      assert.equal(list.statusCode, 200);
      assert.doesNotMatch(list.body, /href="\/desk\/reports"/);
      assert.equal((await agent.get('/desk/reports/tickets')).statusCode, 403);
      assert.equal((await agent.get('/desk/reports/tickets.csv')).statusCode, 403);
      assert.equal((await agent.get('/desk/reports')).statusCode, 403);
      const guest = await new UiClient(t.app, communityHost('desk')).get('/desk/reports/tickets');
      assert.equal(guest.statusCode, 303);
    });
  });
}
