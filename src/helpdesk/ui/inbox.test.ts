// The agent inbox (/desk) on both databases: guests go to log in, members who are not agents and
// sites without the help desk get a 403 page; the views list what the API's list service gives an
// agent (their categories only), SLA due first or as sorted, paged; an agent cannot read or triage a
// ticket of a category they do not serve; forms without their CSRF token change nothing; a reply
// from the inbox is mailed, the requester's mailed answer threads back onto the same ticket, and the
// SLA clock stops while the ticket is pending; the AI draft button says why it cannot work, or puts
// the provider's draft into the reply box without sending it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { createMember } from '../../forum/members.js';
import { addMember, communityHost, makeCommunity, type ForumActor } from '../../../test/factories/forum.js';
import {
  aiSettings,
  AI_PROVIDER_ENV,
  startAiProvider,
  type AiProviderServer,
} from '../../../test/helpers/ai-provider.js';
import { buildTestApp, json, portal, signIn, type Actor, type TestApp } from '../../../test/helpers/app.js';
import { testDatabases } from '../../../test/helpers/databases.js';
import { eventually } from '../../../test/helpers/eventually.js';
import { pageText, UiClient } from '../../../test/helpers/forum-ui.js';
import { decodedBody, startSmtpSink, type SmtpSink, sinkMailEnv } from '../../../test/helpers/smtp-sink.js';
import { makeAgent } from '../agents.js';
import { createCategory } from '../categories.js';
import { helpdeskDrafts, helpdeskTickets, type TicketRow } from '../tables.js';
import { findTicket, listEntries, openTicket } from '../tickets.js';

const SUPPORT = 'support@help.example.com';

for (const database of testDatabases) {
  describe(`agent inbox [${database}]`, () => {
    let t: TestApp;
    let owner: Actor;
    let sink: SmtpSink;
    let ai: AiProviderServer;
    let ann: ForumActor;
    let bob: ForumActor;
    let sam: ForumActor;
    let ada: ForumActor;
    let billing = '';
    let shipping = '';
    const tickets: Record<string, TicketRow> = {};
    const client = (site = 'desk') => new UiClient(t.app, communityHost(site));
    const db = () => t.app.deps.database.db;
    const ticket = async (number: number) => (await findTicket(db(), 'desk', String(number)))!;
    const as = async (actor: ForumActor, site = 'desk') => {
      const ui = client(site);
      assert.equal((await ui.login(actor.member.username, actor.password)).statusCode, 303);
      return ui;
    };
    const inbound = (body: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/helpdesk/v1/inbound-email',
        headers: {
          host: communityHost('desk'),
          'content-type': 'message/rfc822',
          authorization: 'Bearer inbound-secret',
        },
        payload: body,
      });
    const configure = async (site: string, values: Record<string, string>) => {
      assert.equal(
        (await portal(t.app, owner, { method: 'PUT', url: `/api/instances/${site}/env`, payload: values })).statusCode,
        200,
      );
      await portal(t.app, owner, { method: 'POST', url: `/api/instances/${site}/restart` });
    };

    before(async () => {
      sink = await startSmtpSink();
      ai = await startAiProvider();
      t = await buildTestApp({
        database,
        env: {
          ...AI_PROVIDER_ENV,
          BLUME_RATE_LOGIN_PER_MINUTE: '1000',
          ...sinkMailEnv(sink),
        },
      });
      owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'desk', 'pro');
      await makeCommunity(t.app, owner, 'hobby', 'free');
      await makeCommunity(t.app, owner, 'biz', 'business');
      await configure('desk', {
        HELPDESK_SUPPORT_ADDRESS: SUPPORT,
        HELPDESK_INBOUND_SECRET: 'inbound-secret',
        FORUM_TITLE: 'Acme Support',
      });
      billing = (await createCategory(db(), 'desk', { name: 'Billing' })).id;
      shipping = (await createCategory(db(), 'desk', { name: 'Shipping' })).id;
      ann = await addMember(t.app, 'desk', 'ann');
      bob = await addMember(t.app, 'desk', 'bob');
      sam = await addMember(t.app, 'desk', 'sam');
      ada = await addMember(t.app, 'desk', 'ada', 'admin');
      // Unavailable agents take no tickets on their own: the tests assign them.
      await makeAgent(db(), 'desk', ann.member.id, { categoryIds: [billing], available: false });
      await makeAgent(db(), 'desk', bob.member.id, { categoryIds: [shipping], available: false });
      const open = async (key: string, subject: string, categoryId: string | null) => {
        tickets[key] = (
          await openTicket(db(), 'desk', {
            subject,
            body: `About ${subject}.`,
            requester: { email: `${key}@customer.example`, name: key },
            channel: 'api',
            categoryId,
          })
        ).ticket;
      };
      for (let i = 1; i <= 24; i++) await open(`filler${i}`, `Filler question ${i}`, null);
      await open('refund', 'Refund please', billing);
      await open('parcel', 'Parcel lost', shipping);
      await open('late', 'Waiting since Monday', null);
      await db()
        .update(helpdeskTickets)
        .set({ firstResponseDueAt: new Date(Date.now() - 60_000) })
        .where(eq(helpdeskTickets.id, tickets.late!.id));
    });
    after(async () => {
      await t.close();
      await sink.close();
      await ai.close();
    });

    it('sends guests to log in and refuses members who are not agents, and sites without the help desk, in words', async () => {
      const guest = await client().get('/desk/unassigned');
      assert.equal(guest.statusCode, 303);
      assert.equal(guest.headers.location, '/login?next=%2Fdesk%2Funassigned');
      const member = await as(sam);
      const refused = await member.get('/desk/open');
      assert.equal(refused.statusCode, 403);
      assert.match(pageText(refused.body), /not an agent of this help desk/);
      assert.doesNotMatch(refused.body, /Refund please/);
      await member.get('/');
      const triage = await member.post(`/desk/tickets/${tickets.refund!.number}/triage`, { status: 'solved' });
      assert.equal(triage.statusCode, 403);
      assert.equal((await ticket(tickets.refund!.number)).status, 'new');

      // The forum token of addMember needs the Forum API, which a free plan lacks: a member with a password will do.
      const hal = {
        member: await createMember(db(), 'hobby', {
          username: 'hal',
          email: 'hal@members.test',
          password: 'pw-hal-0123456789',
        }),
        password: 'pw-hal-0123456789',
        token: '',
      };
      await makeAgent(db(), 'hobby', hal.member.id);
      const free = await (await as(hal, 'hobby')).get('/desk/open');
      assert.equal(free.statusCode, 403);
      assert.match(pageText(free.body), /does not include helpdesk api; upgrade the plan/);
    });

    it('links the header to the inbox for agents and admins of a site with the help desk, and for nobody else', async () => {
      const deskLink = /<a href="\/desk">Help desk<\/a>/;
      assert.doesNotMatch((await client().get('/latest')).body, deskLink, 'guest');
      assert.doesNotMatch((await (await as(sam)).get('/latest')).body, deskLink, 'a member who is not an agent');
      const agent = await as(ann);
      assert.match((await agent.get('/latest')).body, deskLink, 'an agent');
      assert.match((await agent.get('/desk/mine')).body, deskLink, 'the inbox pages too');
      assert.match((await (await as(ada)).get('/latest')).body, deskLink, 'an admin who is no agent');
      // The Free plan has no help desk: its admin gets no link to a page that would refuse them.
      const hobbyAdmin = {
        member: await createMember(db(), 'hobby', {
          username: 'hobbyadmin',
          email: 'hobbyadmin@members.test',
          password: 'pw-hobbyadmin-0123456789',
          role: 'admin',
        }),
        password: 'pw-hobbyadmin-0123456789',
        token: '',
      };
      assert.doesNotMatch(
        (await (await as(hobbyAdmin, 'hobby')).get('/latest')).body,
        deskLink,
        'an admin on a plan without it',
      );
    });

    it("lists an agent's views from the API's list service: their categories only, SLA due first or as sorted, paged", async () => {
      const agent = await as(ann);
      assert.equal((await agent.get('/desk')).headers.location, '/desk/mine');
      const first = await agent.get('/desk/unassigned?sort=-updated_at');
      assert.equal(first.statusCode, 200);
      assert.match(String(first.headers['content-security-policy']), /script-src 'self'/);
      assert.match(first.body, /<script src="\/desk\/assets\/desk\.js" defer><\/script>/);
      const subjects = (body: string) => [...body.matchAll(/data-open data-key="o">#\d+ ([^<]+)</g)].map((m) => m[1]);
      // 24 fillers, the refund and the late one are ann's (no category or billing); the parcel is not.
      assert.equal(pageText(first.body).match(/26 tickets/)?.[0], '26 tickets');
      assert.deepEqual(subjects(first.body).slice(0, 3), [
        'Waiting since Monday',
        'Refund please',
        'Filler question 24',
      ]);
      assert.equal(subjects(first.body).length, 25);
      assert.doesNotMatch(first.body, /Parcel lost/);
      assert.match(first.body, /rel="next" href="\/desk\/unassigned\?sort=-updated_at&amp;page=2"/);
      assert.deepEqual(subjects((await agent.get('/desk/unassigned?sort=-updated_at&page=2')).body), [
        'Filler question 1',
      ]);
      // By default open work comes SLA due first: the ticket past its reply target leads.
      assert.equal(subjects((await agent.get('/desk/unassigned')).body)[0], 'Waiting since Monday');
      const breached = await agent.get('/desk/breached');
      assert.deepEqual(subjects(breached.body), ['Waiting since Monday']);
      assert.match(pageText(breached.body), /Breached/);
      assert.match(pageText((await agent.get('/desk/mine')).body), /No open tickets are assigned to you/);

      // "Assign to me" on a row of the list: back to the list, the ticket now in "mine".
      const taken = await agent.post(`/desk/tickets/${tickets.refund!.number}/triage`, {
        assignee: 'me',
        back: '/desk/unassigned',
      });
      assert.equal(taken.statusCode, 303);
      assert.equal(taken.headers.location, `/desk/unassigned?assigned=${tickets.refund!.number}`);
      assert.match(
        pageText((await agent.get(taken.headers.location)).body),
        new RegExp(`Ticket #${tickets.refund!.number} is assigned to you`),
      );
      assert.deepEqual(subjects((await agent.get('/desk/mine')).body), ['Refund please']);
      assert.equal((await ticket(tickets.refund!.number)).assigneeId, ann.member.id);

      const admin = await as(ada);
      assert.match((await admin.get('/desk/open?sort=-updated_at')).body, /Parcel lost/);
    });

    it("keeps a ticket of a category the agent does not serve from them, and the agent's tickets out of categories they do not serve", async () => {
      const agent = await as(ann);
      const parcel = tickets.parcel!.number;
      assert.equal((await agent.get(`/desk/tickets/${parcel}`)).statusCode, 404);
      await agent.get('/desk/open');
      assert.equal((await agent.post(`/desk/tickets/${parcel}/triage`, { assignee: 'me' })).statusCode, 404);
      assert.equal(
        (await agent.post(`/desk/tickets/${parcel}/replies`, { body: 'Mine now', internal: 'false' })).statusCode,
        404,
      );
      assert.equal((await ticket(parcel)).assigneeId, null);
      assert.equal((await listEntries(db(), tickets.parcel!.id, true, { pageSize: 10, offset: 0 })).total, 1);

      const page = await agent.get(`/desk/tickets/${tickets.refund!.number}`);
      assert.doesNotMatch(page.body, new RegExp(`<option value="${shipping}"`), 'only served categories are offered');
      const moved = await agent.post(`/desk/tickets/${tickets.refund!.number}/triage`, { category: shipping });
      assert.equal(moved.statusCode, 403);
      assert.match(pageText(moved.body), /You do not serve category/);
      assert.equal((await ticket(tickets.refund!.number)).categoryId, billing);
    });

    it('changes nothing when a form comes without its CSRF token', async () => {
      const agent = await as(ann);
      const number = tickets.refund!.number;
      await agent.get(`/desk/tickets/${number}`);
      const before = (await listEntries(db(), tickets.refund!.id, true, { pageSize: 50, offset: 0 })).total;
      for (const [path, fields] of [
        ['replies', { body: 'Forged reply', internal: 'false' }],
        ['triage', { status: 'closed' }],
        ['draft', {}],
      ] as const) {
        const forged = await agent.post(`/desk/tickets/${number}/${path}`, fields, { csrf: false });
        assert.equal(forged.statusCode, 403, path);
        assert.equal(
          (await agent.post(`/desk/tickets/${number}/${path}`, fields, { csrf: 'wrong' })).statusCode,
          403,
          path,
        );
      }
      assert.equal((await listEntries(db(), tickets.refund!.id, true, { pageSize: 50, offset: 0 })).total, before);
      assert.equal((await ticket(number)).status, 'new');
      assert.equal((await db().select().from(helpdeskDrafts)).length, 0);
    });

    it("mails a reply from the inbox; the requester's mailed answer threads back; the SLA clock stops while pending", async () => {
      const opened = json<{ ticket_id: string; number: number }>(
        await inbound(
          [
            'From: Ria <ria@customer.example>',
            `To: ${SUPPORT}`,
            'Subject: Invoice is wrong',
            'Message-ID: <ria-1@customer.example>',
            '',
            'The total is off by ten.',
            '',
          ].join('\r\n'),
        ),
      );
      const agent = await as(ann);
      const path = `/desk/tickets/${opened.number}`;
      const page = await agent.get(path);
      assert.match(pageText(page.body), /E-mailed to ria@customer\.example/);
      assert.equal(
        (await agent.post(`${path}/replies`, { body: 'Checking with billing.', internal: 'true' })).headers.location,
        `${path}?done=noted#thread-heading`,
      );
      const sent = await agent.post(`${path}/replies`, {
        body: 'Sorry, a corrected invoice is on its way.',
        internal: 'false',
      });
      assert.equal(sent.headers.location, `${path}?done=mailed#thread-heading`);
      const empty = await agent.post(`${path}/replies`, { body: '  ', internal: 'false' });
      assert.equal(empty.statusCode, 422);
      assert.match(pageText(empty.body), /Write the reply first/);

      await t.app.mailOutbox.idle();
      const mails = await eventually(
        'the reply mail',
        () => (sink.received.length > 0 ? sink.received : undefined),
        5_000,
      );
      assert.equal(mails.length, 1, 'the note is not mailed');
      assert.deepEqual(mails[0]!.to, ['ria@customer.example']);
      assert.match(decodedBody(mails[0]!), /corrected invoice/);
      const replyTo = /<?([^<>\s]+@help\.example\.com)>?/.exec(mails[0]!.headers.get('reply-to') ?? '')![1]!;

      // Waiting for the requester: the clock stops.
      assert.equal((await agent.post(`${path}/triage`, { status: 'pending' })).headers.location, `${path}?done=saved`);
      const paused = await ticket(opened.number);
      assert.ok(paused.slaPausedAt, 'the clock stopped');
      assert.match(
        pageText((await agent.get(path)).body),
        /Paused since .* the clock stops while the ticket is pending/,
      );

      const back = await inbound(
        [
          'From: Ria <ria@customer.example>',
          `To: ${replyTo}`,
          'Subject: Re: your reply',
          'Message-ID: <ria-2@customer.example>',
          '',
          'Thanks, got it.',
          '',
          `On Tue, Acme Support <${replyTo}> wrote:`,
          '> Sorry, a corrected invoice is on its way.',
          '',
        ].join('\r\n'),
      );
      assert.deepEqual(json(back), {
        ticket_id: opened.ticket_id,
        number: opened.number,
        created: true,
        ignored: null,
      });
      const woken = await ticket(opened.number);
      assert.equal(woken.status, 'open');
      assert.equal(woken.slaPausedAt, null);
      assert.ok(
        woken.resolutionDueAt!.getTime() > paused.resolutionDueAt!.getTime(),
        'the due time moved on by the pause',
      );

      const thread = pageText((await agent.get(path)).body);
      assert.match(
        thread,
        /The total is off by ten\..*Checking with billing\..*corrected invoice is on its way\..*Thanks, got it\./,
      );
      assert.match(thread, /ann Internal note/);
    });

    it("says why the AI draft button cannot work, or puts the provider's draft in the reply box and sends nothing", async () => {
      const agent = await as(ann);
      const refund = `/desk/tickets/${tickets.refund!.number}`;
      assert.match(
        pageText((await agent.get(refund)).body),
        /AI drafts need the Business plan; this community is on the pro plan/,
      );
      assert.equal((await agent.post(`${refund}/draft`, {})).statusCode, 403);

      const bea = await addMember(t.app, 'biz', 'bea');
      await makeAgent(db(), 'biz', bea.member.id);
      const { ticket: question } = await openTicket(db(), 'biz', {
        subject: 'Password mail',
        body: 'The reset mail never arrives.',
        requester: { email: 'erin@customer.example' },
        channel: 'web',
      });
      const desk = await as(bea, 'biz');
      const path = `/desk/tickets/${question.number}`;
      assert.match(pageText((await desk.get(path)).body), /AI content drafting is off/);
      await configure('biz', {
        ...aiSettings(ai, 'helper-1'),
      });
      ai.answer = 'Hi Erin, please look in your spam folder.';
      await desk.get(path);
      const drafted = await desk.post(`${path}/draft`, { instructions: 'mention the spam folder' });
      assert.equal(drafted.statusCode, 303, drafted.body);
      assert.match(drafted.headers.location!, new RegExp(`^${path}\\?draft=[a-z0-9]+#reply$`));
      const page = await desk.get(drafted.headers.location!);
      assert.match(page.body, /<textarea id="reply-body"[^>]*>Hi Erin, please look in your spam folder\.<\/textarea>/);
      assert.match(pageText(page.body), /An AI draft \(helper-1\) is in the reply box/);
      assert.equal(
        (await listEntries(db(), question.id, true, { pageSize: 10, offset: 0 })).total,
        1,
        'the draft is not sent',
      );
      const sent = JSON.stringify(ai.calls.at(-1)!.body);
      assert.match(sent, /reset mail never arrives/);
      assert.match(sent, /mention the spam folder/, "the agent's instructions go along");
      const failed = await desk.post(`${path}/draft`, { instructions: 'scenario:refuse' });
      assert.equal(failed.statusCode, 502);
      assert.match(pageText(failed.body), /No draft: /);
    });

    it('serves the shortcuts script', async () => {
      const script = await client().get('/desk/assets/desk.js');
      assert.equal(script.statusCode, 200);
      assert.match(String(script.headers['content-type']), /^text\/javascript/);
      assert.match(script.body, /keydown/);
    });
  });
}
