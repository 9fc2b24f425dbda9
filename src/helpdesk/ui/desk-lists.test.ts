// The inbox's lists at scale, on both databases: full-text search at /desk/search and `q=` on every
// list, filters (status, priority, category, assignee, requester, tag, SLA state, opening date),
// orders (open work SLA due first, so the breached urgent ticket leads), solved and closed views,
// saved views per agent, bulk changes to ticked tickets (CSRF checked, tickets the agent may not
// see left alone), rows with relative SLA times beside the exact ones, and only agents and admins
// of the help desk get any of it. The API's list takes the new order and date filters too.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { addMember, communityHost, makeCommunity, type ForumActor } from '../../../test/factories/forum.js';
import { helpdeskApi } from '../../../test/factories/helpdesk.js';
import { buildTestApp, json, signIn, type TestApp } from '../../../test/helpers/app.js';
import { testDatabases } from '../../../test/helpers/databases.js';
import { pageText, UiClient } from '../../../test/helpers/forum-ui.js';
import { makeAgent } from '../agents.js';
import { createCategory } from '../categories.js';
import { ticketHistory } from '../history.js';
import { helpdeskSavedViews, helpdeskTickets, type TicketPriority, type TicketRow } from '../tables.js';
import { findTicket, openTicket } from '../tickets.js';

const HOUR = 3_600_000;

/** The subjects of a list page, in order. */
const subjects = (body: string) => [...body.matchAll(/data-open data-key="o">#\d+ ([^<]+)</g)].map((m) => m[1]);

for (const database of testDatabases) {
  describe(`inbox lists [${database}]`, () => {
    let t: TestApp;
    let ann: ForumActor;
    let bob: ForumActor;
    let ada: ForumActor;
    let sam: ForumActor;
    let billing = '';
    let shipping = '';
    const tickets: Record<string, TicketRow> = {};
    const db = () => t.app.deps.database.db;
    const as = async (actor: ForumActor) => {
      const ui = new UiClient(t.app, communityHost('desk'));
      assert.equal((await ui.login(actor.member.username, actor.password)).statusCode, 303);
      return ui;
    };
    const ticket = async (key: string) => (await findTicket(db(), 'desk', tickets[key]!.id))!;

    before(async () => {
      t = await buildTestApp({ database, env: { BLUME_RATE_LOGIN_PER_MINUTE: '1000' } });
      const owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'desk', 'pro');
      billing = (await createCategory(db(), 'desk', { name: 'Billing' })).id;
      shipping = (await createCategory(db(), 'desk', { name: 'Shipping' })).id;
      ann = await addMember(t.app, 'desk', 'ann');
      bob = await addMember(t.app, 'desk', 'bob');
      ada = await addMember(t.app, 'desk', 'ada', 'admin');
      sam = await addMember(t.app, 'desk', 'sam');
      await makeAgent(db(), 'desk', ann.member.id, { categoryIds: [billing], available: false });
      await makeAgent(db(), 'desk', bob.member.id, { categoryIds: [shipping], available: false });
      const open = async (
        key: string,
        subject: string,
        options: { priority?: TicketPriority; category?: string; tags?: string[]; email?: string; body?: string } = {},
      ) => {
        tickets[key] = (
          await openTicket(db(), 'desk', {
            subject,
            body: options.body ?? `About ${subject}.`,
            requester: { email: options.email ?? `${key}@customer.example`, name: `Customer ${key}` },
            channel: 'api',
            priority: options.priority,
            categoryId: options.category ?? null,
            tags: options.tags,
          })
        ).ticket;
      };
      await open('invoice', 'Invoice copy needed', {
        priority: 'low',
        category: billing,
        tags: ['vip'],
        email: 'vip@big.example',
      });
      await open('reset', 'Password reset loop', { priority: 'high', body: 'The reset link shows a teapot error.' });
      await open('fire', 'Printer on fire', { priority: 'urgent' });
      await open('parcel', 'Parcel lost', { category: shipping });
      await open('question', 'Old question', { priority: 'normal' });
      await open('archived', 'Archived thing', { priority: 'normal' });
      const set = (key: string, values: Partial<TicketRow>) =>
        db().update(helpdeskTickets).set(values).where(eq(helpdeskTickets.id, tickets[key]!.id));
      // The urgent ticket missed its reply by 20 minutes; the old ones were opened last year.
      await set('fire', { firstResponseDueAt: new Date(Date.now() - HOUR / 3) });
      const lastYear = new Date(Date.UTC(new Date().getUTCFullYear() - 1, 5, 1));
      await set('question', { status: 'solved', solvedAt: new Date(), createdAt: lastYear });
      await set('archived', { status: 'closed', solvedAt: new Date(), closedAt: new Date(), createdAt: lastYear });
    });
    after(() => t.close());

    it('lists open work SLA due first, the breached urgent ticket leading, with relative and exact SLA times', async () => {
      const agent = await as(ada);
      const open = await agent.get('/desk/open');
      assert.equal(open.statusCode, 200);
      assert.deepEqual(subjects(open.body), [
        'Printer on fire',
        'Password reset loop',
        'Parcel lost',
        'Invoice copy needed',
      ]);
      const text = pageText(open.body);
      assert.match(text, /4 tickets · SLA due first/);
      assert.match(text, /Breached 20 min ago/);
      assert.match(text, /Reply due in 4 h/);
      assert.match(open.body, /<time datetime="\d{4}-\d\d-\d\dT[\d:.]+Z">/);
      assert.match(open.body, /<span class="badge priority priority-urgent">Urgent<\/span>/);
      assert.match(open.body, /<span class="badge priority priority-low">Low<\/span>/);
      // Another order on request: the newest first.
      assert.deepEqual(subjects((await agent.get('/desk/open?sort=-created_at')).body), [
        'Parcel lost',
        'Printer on fire',
        'Password reset loop',
        'Invoice copy needed',
      ]);
    });

    it('filters by status, priority, category, assignee, requester, tag, SLA state and opening date', async () => {
      const agent = await as(ada);
      const list = async (query: string) => {
        const response = await agent.get(`/desk/search?${query}`);
        assert.equal(response.statusCode, 200, query);
        return subjects(response.body).sort();
      };
      assert.deepEqual(await list('status=solved'), ['Old question']);
      assert.deepEqual(await list('priority=urgent'), ['Printer on fire']);
      assert.deepEqual(await list(`category=${billing}`), ['Invoice copy needed']);
      assert.deepEqual(await list('category=none&priority=high'), ['Password reset loop']);
      assert.deepEqual(await list('requester=VIP%40big.example'), ['Invoice copy needed']);
      assert.deepEqual(await list('tag=VIP'), ['Invoice copy needed']);
      assert.deepEqual(await list('sla=breached'), ['Printer on fire']);
      const thisYear = `${new Date().getUTCFullYear()}-01-01`;
      assert.deepEqual(await list(`created_before=${thisYear}`), ['Archived thing', 'Old question']);
      assert.equal((await list(`created_after=${thisYear}`)).length, 4);
      await triage(agent, 'reset', { assignee: bob.member.id });
      assert.deepEqual(await list(`assignee=${bob.member.id}`), ['Password reset loop']);
      assert.deepEqual(await list('assignee=none&status=new'), [
        'Invoice copy needed',
        'Parcel lost',
        'Printer on fire',
      ]);
      // A view's own filters hold under the form's: "mine" of ann has nothing, "open" narrowed by priority.
      assert.deepEqual(subjects((await agent.get('/desk/open?priority=low')).body), ['Invoice copy needed']);

      const bad = await agent.get('/desk/search?status=lost&created_after=yesterday');
      assert.equal(bad.statusCode, 400);
      assert.match(bad.body, /Unknown status &quot;lost&quot;; use new, open/);
      const badDate = await agent.get('/desk/search?created_after=yesterday');
      assert.equal(badDate.statusCode, 400);
      assert.match(badDate.body, /created_after &quot;yesterday&quot; is no date/);
      assert.equal((await agent.get('/desk/search?sort=subject')).statusCode, 400);
    });

    it('searches subjects and threads in full text, within what the agent may see', async () => {
      const admin = await as(ada);
      assert.deepEqual(subjects((await admin.get('/desk/search?q=printer')).body), ['Printer on fire']);
      assert.deepEqual(subjects((await admin.get('/desk/search?q=teapot')).body), ['Password reset loop']);
      assert.deepEqual(subjects((await admin.get('/desk/open?q=teapot+OR+parcel')).body).sort(), [
        'Parcel lost',
        'Password reset loop',
      ]);
      const none = await admin.get('/desk/search?q=zeppelin');
      assert.match(pageText(none.body), /No ticket matches/);
      assert.match(pageText((await admin.get('/desk/search?q=printer')).body), /Search: printer/);
      // ann serves billing: the shipping ticket stays out of her search.
      const agent = await as(ann);
      assert.deepEqual(subjects((await agent.get('/desk/search?q=parcel')).body), []);
    });

    it('shows solved and closed work in their own views', async () => {
      const agent = await as(ada);
      assert.deepEqual(subjects((await agent.get('/desk/solved')).body), ['Old question']);
      const closed = await agent.get('/desk/closed');
      assert.deepEqual(subjects(closed.body), ['Archived thing']);
      assert.match(pageText(closed.body), /Met/);
      assert.doesNotMatch(subjects((await agent.get('/desk/open')).body).join(), /Old question|Archived/);
    });

    it("takes the SLA order and opening dates in the API's list", async () => {
      const list = async (query: string) =>
        helpdeskApi(t.app, 'desk', { token: ada.token }, { method: 'GET', path: `/tickets?${query}` });
      const due = await list('status=new,open,pending,on_hold&sort=sla_due');
      assert.equal(due.statusCode, 200);
      assert.equal(json<Array<{ subject: string }>>(due)[0]!.subject, 'Printer on fire');
      const old = await list(`created_before=${new Date().getUTCFullYear()}-01-01&sort=number`);
      assert.deepEqual(
        json<Array<{ subject: string }>>(old).map((row) => row.subject),
        ['Old question', 'Archived thing'],
      );
      const bad = await list('created_after=soon');
      assert.equal(bad.statusCode, 400);
      assert.equal(json(bad).code, 'invalid_filter');
    });

    it('changes ticked tickets in bulk: assignee, status, priority and a tag, each with its history; CSRF checked', async () => {
      const agent = await as(ann);
      await agent.get('/desk/search');
      const fields = {
        back: '/desk/search?priority=low&page=1',
        assignee: 'me',
        priority: 'high',
        status: 'open',
        tag: 'Callback',
        [`ticket-${tickets.invoice!.number}`]: String(tickets.invoice!.number),
        [`ticket-${tickets.fire!.number}`]: String(tickets.fire!.number),
        // ann does not serve shipping: this one stays as it was.
        [`ticket-${tickets.parcel!.number}`]: String(tickets.parcel!.number),
      };
      const forged = await agent.post('/desk/bulk', fields, { csrf: 'not-the-token' });
      assert.equal(forged.statusCode, 403);
      assert.equal((await ticket('invoice')).assigneeId, null);

      const done = await agent.post('/desk/bulk', fields);
      assert.equal(done.statusCode, 303);
      assert.equal(done.headers.location, '/desk/search?priority=low&page=1&updated=2&refused=1');
      for (const key of ['invoice', 'fire']) {
        const row = await ticket(key);
        assert.equal(row.assigneeId, ann.member.id, key);
        assert.equal(row.priority, 'high', key);
        assert.equal(row.status, 'open', key);
        assert.ok(row.tags.includes('callback'), key);
      }
      assert.deepEqual((await ticket('invoice')).tags, ['vip', 'callback']);
      const events = (await ticketHistory(db(), tickets.fire!.id)).map((row) => row.event);
      for (const name of ['assignee', 'priority', 'status', 'tags'] as const) assert.ok(events.includes(name), name);
      const parcel = await ticket('parcel');
      assert.equal(parcel.assigneeId, null);
      assert.equal(parcel.priority, 'normal');
      const landed = pageText((await agent.get(done.headers.location!)).body);
      assert.match(landed, /Changed 2 tickets\. 1 ticket was left unchanged/);

      const nothing = await agent.post('/desk/bulk', { back: '/desk/mine', assignee: 'me' });
      assert.equal(nothing.headers.location, '/desk/mine?bulk=none');
      assert.match(pageText((await agent.get('/desk/mine?bulk=none')).body), /Tick the tickets to change first/);
      // A back address outside the inbox's lists is not followed.
      const elsewhere = await agent.post('/desk/bulk', {
        back: 'https://evil.example/desk/mine',
        status: 'open',
        [`ticket-${tickets.invoice!.number}`]: '1',
      });
      assert.equal(elsewhere.headers.location, '/desk/mine?updated=1');
    });

    it("saves an agent's view with its filters, lists it for them alone, and deletes it", async () => {
      const agent = await as(ann);
      await agent.get('/desk/open?priority=high');
      const saved = await agent.post('/desk/views', {
        name: 'Hot work',
        query: 'status=new,open&priority=high&sort=sla_due',
      });
      assert.equal(saved.statusCode, 303);
      const path = saved.headers.location!;
      assert.match(path, /^\/desk\/views\/[A-Za-z0-9]+$/);
      const view = await agent.get(path);
      assert.equal(view.statusCode, 200);
      assert.match(pageText(view.body), /Hot work/);
      // The bulk change above made the invoice and the fire high priority.
      assert.deepEqual(subjects(view.body).sort(), ['Invoice copy needed', 'Password reset loop', 'Printer on fire']);
      // Listed beside the views on every list page; the form narrows it further.
      assert.match((await agent.get('/desk/mine')).body, new RegExp(`<a href="${path}">Hot work</a>`));
      assert.deepEqual(subjects((await agent.get(`${path}?q=invoice`)).body), ['Invoice copy needed']);

      const again = await agent.post('/desk/views', { name: 'hot WORK', query: 'priority=low' });
      assert.equal(again.statusCode, 422);
      assert.match(again.body, /You already have a view named &quot;hot WORK&quot;\./);
      const empty = await agent.post('/desk/views', { name: '  ', query: 'priority=low' });
      assert.equal(empty.statusCode, 422);

      // Another agent neither sees nor deletes it.
      const other = await as(bob);
      assert.equal((await other.get(path)).statusCode, 404);
      assert.doesNotMatch((await other.get('/desk/mine')).body, /Hot work/);
      assert.equal((await other.post(`${path}/delete`, {})).statusCode, 404);

      assert.equal((await agent.post(`${path}/delete`, {}, { csrf: false })).statusCode, 403);
      await agent.get(path);
      assert.equal((await agent.post(`${path}/delete`, {})).statusCode, 303);
      assert.equal((await agent.get(path)).statusCode, 404);
      assert.equal((await db().select().from(helpdeskSavedViews)).length, 0);
    });

    it('keeps every list, search, saved view and bulk change from members who are not agents, and from guests', async () => {
      const guest = new UiClient(t.app, communityHost('desk'));
      const away = await guest.get('/desk/search?q=printer');
      assert.equal(away.statusCode, 303);
      assert.match(away.headers.location!, /^\/login\?next=/);
      const member = await as(sam);
      for (const path of ['/desk/search?q=printer', '/desk/solved', '/desk/closed']) {
        const refused = await member.get(path);
        assert.equal(refused.statusCode, 403, path);
        assert.doesNotMatch(refused.body, /Printer on fire/);
      }
      await member.get('/');
      const bulk = await member.post('/desk/bulk', {
        back: '/desk/open',
        status: 'closed',
        [`ticket-${tickets.fire!.number}`]: '1',
      });
      assert.equal(bulk.statusCode, 403);
      assert.notEqual((await ticket('fire')).status, 'closed');
      assert.equal((await member.post('/desk/views', { name: 'Mine', query: '' })).statusCode, 403);
    });

    async function triage(agent: UiClient, key: string, fields: Record<string, string>): Promise<void> {
      await agent.get(`/desk/tickets/${tickets[key]!.number}`);
      assert.equal((await agent.post(`/desk/tickets/${tickets[key]!.number}/triage`, fields)).statusCode, 303);
    }
  });
}
