// The Help desk API end to end on both databases: plans and scopes, tickets opened through the API
// and auto-assigned, the list's filters, sort and pagination, triage within an agent's categories,
// replies and notes, history, categories, agents with their workload, SLA policies, and bad input
// that changes nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mintApiKey } from '../../test/factories/cms.js';
import { addMember, makeCommunity, type ForumActor } from '../../test/factories/forum.js';
import { helpdeskApi, type HelpdeskCredential } from '../../test/factories/helpdesk.js';
import { buildTestApp, json, signIn, type Actor, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';

type Ticket = {
  id: string;
  number: number;
  subject: string;
  status: string;
  priority: string;
  category_id: string | null;
  assignee_id: string | null;
  tags: string[];
  requester: { email: string };
  sla: { paused: boolean; breached: boolean };
};
type Entry = { id: string; internal: boolean; body_html: string; author: { kind: string; id: string | null } };

for (const database of testDatabases) {
  describe(`Help desk API [${database}]`, () => {
    let t: TestApp;
    let owner: Actor;
    let read: HelpdeskCredential;
    let write: HelpdeskCredential;
    let ann: ForumActor;
    let bob: ForumActor;
    let stranger: ForumActor;
    let billing = '';
    let shipping = '';

    before(async () => {
      t = await buildTestApp({ database });
      owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'desk');
      await makeCommunity(t.app, owner, 'cheap', 'free');
      read = { key: await mintApiKey(t.app, owner, 'desk', ['helpdesk-read']) };
      write = { key: await mintApiKey(t.app, owner, 'desk', ['helpdesk-write']) };
      ann = await addMember(t.app, 'desk', 'ann');
      bob = await addMember(t.app, 'desk', 'bob');
      stranger = await addMember(t.app, 'desk', 'stranger');
    });
    after(() => t.close());

    const api = (
      credential: HelpdeskCredential,
      method: string,
      path: string,
      payload?: unknown,
      headers: Record<string, string> = {},
    ) =>
      helpdeskApi(t.app, 'desk', credential, {
        method: method as 'GET',
        path,
        ...(payload !== undefined ? { payload: payload as object } : {}),
        headers,
      });
    const as = (actor: ForumActor): HelpdeskCredential => ({ token: actor.token });

    it('sets up categories and agents as an admin', async () => {
      const made = await api(write, 'POST', '/categories', { name: 'Billing', description: 'Money' });
      assert.equal(made.statusCode, 201);
      billing = json<{ id: string }>(made).id;
      shipping = json<{ id: string }>(await api(write, 'POST', '/categories', { name: 'Shipping' })).id;
      const duplicate = await api(write, 'POST', '/categories', { name: 'billing' });
      assert.equal(duplicate.statusCode, 409);
      assert.equal(json(duplicate).code, 'helpdesk_category_exists');
      assert.equal((await api(read, 'POST', '/categories', { name: 'Nope' })).statusCode, 403);

      const annAgent = await api(write, 'PATCH', `/agents/${ann.member.id}`, { capacity: 2, category_ids: [billing] });
      assert.equal(annAgent.statusCode, 200, annAgent.body);
      assert.deepEqual(json(annAgent), {
        ...json(annAgent),
        id: ann.member.id,
        username: 'ann',
        capacity: 2,
        available: true,
        category_ids: [billing],
        open_tickets: 0,
      });
      assert.equal(
        (await api(write, 'PATCH', `/agents/${bob.member.id}`, { capacity: 5, category_ids: [billing, shipping] }))
          .statusCode,
        200,
      );
      assert.equal(json(await api(write, 'PATCH', '/agents/nobody', { capacity: 1 })).code, 'agent_not_found');
      const unknownCategory = await api(write, 'PATCH', `/agents/${bob.member.id}`, { category_ids: ['nope'] });
      assert.equal(unknownCategory.statusCode, 404);
    });

    it('refuses the API on the free plan, without a credential, and to members who are not agents', async () => {
      const freeKey = { key: await mintApiKey(t.app, owner, 'cheap', ['helpdesk-read']) };
      const free = await helpdeskApi(t.app, 'cheap', freeKey, { method: 'GET', path: '/tickets' });
      assert.equal(free.statusCode, 403);
      assert.equal(json(free).code, 'plan_required');
      const anonymous = await api(undefined, 'GET', '/tickets');
      assert.equal(anonymous.statusCode, 401);
      assert.match(String(anonymous.headers['www-authenticate']), /Bearer/);
      const member = await api(as(stranger), 'GET', '/tickets');
      assert.equal(member.statusCode, 403);
      assert.equal(json(member).code, 'not_an_agent');
      const cmsKey = { key: await mintApiKey(t.app, owner, 'desk', ['cms-read']) };
      assert.equal(json(await api(cmsKey, 'GET', '/tickets')).code, 'scope_missing');
    });

    it('opens tickets through the API, numbered and auto-assigned round robin', async () => {
      const first = await api(write, 'POST', '/tickets', {
        subject: 'Refund please',
        body: 'I was charged **twice**',
        requester: { email: 'Carol@Example.test', name: 'Carol' },
        category_id: billing,
        priority: 'high',
        tags: ['Refund'],
      });
      assert.equal(first.statusCode, 201, first.body);
      const a = json<Ticket>(first);
      assert.equal(a.status, 'new');
      assert.equal(a.requester.email, 'carol@example.test');
      assert.deepEqual(a.tags, ['refund']);
      const b = json<Ticket>(
        await api(write, 'POST', '/tickets', {
          subject: 'Invoice copy',
          body: 'Need my invoice',
          requester: { email: 'dan@example.test' },
          category_id: billing,
        }),
      );
      const c = json<Ticket>(
        await api(write, 'POST', '/tickets', {
          subject: 'Where is my parcel',
          body: 'Tracking number?',
          requester: { email: 'carol@example.test' },
          category_id: shipping,
        }),
      );
      assert.equal(b.number, a.number + 1);
      assert.deepEqual(
        [a.assignee_id, b.assignee_id, c.assignee_id].sort(),
        [ann.member.id, bob.member.id, bob.member.id].sort(),
      );
      assert.equal(c.assignee_id, bob.member.id);
      const byNumber = await api(read, 'GET', `/tickets/${a.number}`);
      assert.equal(json<Ticket>(byNumber).id, a.id);
      assert.equal(
        (await api(read, 'POST', '/tickets', { subject: 'x', body: 'y', requester: { email: 'e@x.test' } })).statusCode,
        403,
      );
    });

    it('refuses bad tickets and changes nothing', async () => {
      const before = json<Ticket[]>(await api(read, 'GET', '/tickets?page_size=100')).length;
      const badEmail = await api(write, 'POST', '/tickets', {
        subject: 's',
        body: 'b',
        requester: { email: 'not-an-address' },
      });
      assert.equal(badEmail.statusCode, 422);
      assert.equal(json(badEmail).code, 'invalid_ticket');
      const badPriority = await api(write, 'POST', '/tickets', {
        subject: 's',
        body: 'b',
        requester: { email: 'a@b.test' },
        priority: 'whenever',
      });
      assert.equal(badPriority.statusCode, 400);
      const badCategory = await api(write, 'POST', '/tickets', {
        subject: 's',
        body: 'b',
        requester: { email: 'a@b.test' },
        category_id: 'nope',
      });
      assert.equal(badCategory.statusCode, 422);
      assert.equal(json<Ticket[]>(await api(read, 'GET', '/tickets?page_size=100')).length, before);
      const badStatus = await api(read, 'GET', '/tickets?status=done');
      assert.equal(badStatus.statusCode, 400);
      assert.equal(json(badStatus).code, 'invalid_filter');
    });

    it('filters, sorts and pages the list', async () => {
      const billingOnly = await api(read, 'GET', `/tickets?category=${billing}&sort=number&page_size=1`);
      assert.equal(billingOnly.statusCode, 200);
      const pagination = JSON.parse(String(billingOnly.headers['x-pagination'])) as {
        total: number;
        next_page?: number;
      };
      assert.equal(pagination.total, 2);
      assert.equal(pagination.next_page, 2);
      assert.match(String(billingOnly.headers.link), /rel="next"/);
      assert.equal(json<Ticket[]>(billingOnly)[0]!.subject, 'Refund please');
      assert.deepEqual(
        json<Ticket[]>(await api(read, 'GET', '/tickets?q=parcel')).map((x) => x.subject),
        ['Where is my parcel'],
      );
      assert.deepEqual(
        json<Ticket[]>(await api(read, 'GET', '/tickets?q=twice')).map((x) => x.subject),
        ['Refund please'],
      );
      assert.deepEqual(
        json<Ticket[]>(await api(read, 'GET', '/tickets?tag=refund')).map((x) => x.subject),
        ['Refund please'],
      );
      assert.equal(json<Ticket[]>(await api(read, 'GET', '/tickets?requester=carol@example.test')).length, 2);
      assert.deepEqual(
        json<Ticket[]>(await api(read, 'GET', '/tickets?priority=high,urgent')).map((x) => x.subject),
        ['Refund please'],
      );
      assert.equal(json<Ticket[]>(await api(read, 'GET', `/tickets?assignee=${bob.member.id}`)).length, 2);
      assert.equal(json<Ticket[]>(await api(as(bob), 'GET', '/tickets?assignee=me')).length, 2);
      assert.deepEqual(
        json<Ticket[]>(await api(read, 'GET', '/tickets?sort=-priority')).map((x) => x.priority)[0],
        'high',
      );
      assert.equal(json<Ticket[]>(await api(read, 'GET', '/tickets?sla=breached')).length, 0);
    });

    it('shows an agent only the categories they serve, and refuses triage into others', async () => {
      const seen = json<Ticket[]>(await api(as(ann), 'GET', '/tickets?page_size=100'));
      assert.ok(seen.every((x) => x.category_id === billing));
      const parcel = json<Ticket[]>(await api(read, 'GET', '/tickets?q=parcel'))[0]!;
      assert.equal((await api(as(ann), 'GET', `/tickets/${parcel.id}`)).statusCode, 404);
      assert.equal((await api(as(ann), 'GET', `/tickets/${parcel.id}/replies`)).statusCode, 404);
      const refund = seen.find((x) => x.subject === 'Refund please')!;
      const refused = await api(as(ann), 'PATCH', `/tickets/${refund.id}`, { category_id: shipping });
      assert.equal(refused.statusCode, 403);
      assert.equal(json(refused).code, 'category_not_served');
      assert.equal(json<Ticket>(await api(read, 'GET', `/tickets/${refund.id}`)).category_id, billing);
    });

    it('triages, replies, notes and records every change in the history', async () => {
      const refund = json<Ticket[]>(await api(read, 'GET', '/tickets?tag=refund'))[0]!;
      const note = await api(as(bob), 'POST', `/tickets/${refund.id}/replies`, {
        body: 'Check the <b>ledger</b>',
        internal: true,
      });
      assert.equal(note.statusCode, 201);
      assert.doesNotMatch(json<Entry>(note).body_html, /<b>/);
      const reply = await api(as(bob), 'POST', `/tickets/${refund.id}/replies`, { body: 'Refund on its way' });
      assert.equal(json<Entry>(reply).author.id, bob.member.id);
      const patched = await api(as(bob), 'PATCH', `/tickets/${refund.id}`, {
        status: 'pending',
        priority: 'urgent',
        tags: ['refund', 'vip'],
        assignee_id: bob.member.id,
      });
      assert.equal(patched.statusCode, 200, patched.body);
      const ticket = json<Ticket>(patched);
      assert.equal(ticket.status, 'pending');
      assert.equal(ticket.sla.paused, true);
      assert.deepEqual(ticket.tags, ['refund', 'vip']);
      const notAgent = await api(write, 'PATCH', `/tickets/${refund.id}`, { assignee_id: stranger.member.id });
      assert.equal(notAgent.statusCode, 422);
      const badStatus = await api(write, 'PATCH', `/tickets/${refund.id}`, { status: 'done' });
      assert.equal(badStatus.statusCode, 400);

      const thread = json<Entry[]>(await api(read, 'GET', `/tickets/${refund.number}/replies`));
      assert.deepEqual(
        thread.map((e) => [e.author.kind, e.internal]),
        [
          ['requester', false],
          ['agent', true],
          ['agent', false],
        ],
      );
      const publicOnly = json<Entry[]>(await api(read, 'GET', `/tickets/${refund.number}/replies?internal=false`));
      assert.equal(publicOnly.length, 2);
      const history = json<Array<{ event: string; actor: { kind: string } }>>(
        await api(read, 'GET', `/tickets/${refund.id}/history`),
      );
      const events = history.map((h) => h.event);
      for (const event of ['created', 'assignee', 'note', 'reply', 'status', 'priority', 'tags'])
        assert.ok(events.includes(event), `history has ${event}: ${events.join(',')}`);
      assert.equal(history.at(-1)!.actor.kind, 'member');
    });

    it('lists agents with their workload and reassigns when one becomes unavailable', async () => {
      const agents = json<Array<{ id: string; open_tickets: number }>>(await api(read, 'GET', '/agents'));
      const bobLoad = agents.find((a) => a.id === bob.member.id)!.open_tickets;
      assert.ok(bobLoad >= 1);
      // An agent may change their own availability, not their capacity.
      assert.equal((await api(as(ann), 'PATCH', `/agents/${ann.member.id}`, { capacity: 50 })).statusCode, 403);
      const away = await api(as(bob), 'PATCH', `/agents/${bob.member.id}`, { available: false });
      assert.equal(away.statusCode, 200, away.body);
      const after = json<Array<{ id: string; open_tickets: number }>>(await api(read, 'GET', '/agents'));
      assert.equal(after.find((a) => a.id === bob.member.id)!.open_tickets, 0);
      assert.ok(after.find((a) => a.id === ann.member.id)!.open_tickets <= 2, 'never above capacity');
    });

    it('sets SLA targets per priority', async () => {
      const set = await api(write, 'PUT', '/sla-policies/urgent', {
        first_response_minutes: 30,
        resolution_minutes: 120,
      });
      assert.equal(set.statusCode, 200);
      const policies = json<Array<{ priority: string; first_response_minutes: number }>>(
        await api(read, 'GET', '/sla-policies'),
      );
      assert.equal(policies.find((p) => p.priority === 'urgent')!.first_response_minutes, 30);
      assert.equal(
        (await api(write, 'PUT', '/sla-policies/whenever', { first_response_minutes: 30, resolution_minutes: 120 }))
          .statusCode,
        400,
      );
    });

    it('deletes a category; its tickets stay, without one', async () => {
      const parcel = json<Ticket[]>(await api(read, 'GET', '/tickets?q=parcel'))[0]!;
      assert.equal((await api(write, 'DELETE', `/categories/${shipping}`)).statusCode, 204);
      assert.equal(json<Ticket>(await api(read, 'GET', `/tickets/${parcel.id}`)).category_id, null);
      assert.equal((await api(write, 'DELETE', `/categories/${shipping}`)).statusCode, 404);
    });
  });
}
