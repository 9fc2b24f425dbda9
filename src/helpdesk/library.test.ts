// The desk's tags, canned replies and archived categories through the Help desk API, on both
// databases: tags listed with their counts, renamed (a ticket carrying both keeps one) and deleted
// across every ticket, each change in the ticket's history; canned replies added, read, changed and
// deleted by admins only, an unknown placeholder refused, and one filled in for a ticket with the
// requester's and the agent's names; an archived category takes no new ticket while its tickets
// keep it, and comes back.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mintApiKey } from '../../test/factories/cms.js';
import { addMember, makeCommunity, type ForumActor } from '../../test/factories/forum.js';
import { helpdeskApi, type HelpdeskCredential } from '../../test/factories/helpdesk.js';
import { buildTestApp, json, signIn, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { makeAgent } from './agents.js';
import { ticketHistory } from './history.js';
import { findTicket, openTicket } from './tickets.js';

for (const database of testDatabases) {
  describe(`Help desk tags, canned replies and archived categories [${database}]`, () => {
    let t: TestApp;
    let read: HelpdeskCredential;
    let write: HelpdeskCredential;
    let ann: ForumActor;
    const numbers: number[] = [];
    const db = () => t.app.deps.database.db;
    const api = (credential: HelpdeskCredential, method: string, path: string, payload?: unknown) =>
      helpdeskApi(t.app, 'desk', credential, {
        method: method as 'GET',
        path,
        ...(payload !== undefined ? { payload: payload as object } : {}),
      });

    before(async () => {
      t = await buildTestApp({ database });
      const owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'desk');
      read = { key: await mintApiKey(t.app, owner, 'desk', ['helpdesk-read']) };
      write = { key: await mintApiKey(t.app, owner, 'desk', ['helpdesk-write']) };
      ann = await addMember(t.app, 'desk', 'ann');
      await makeAgent(db(), 'desk', ann.member.id, { available: false });
      for (const tags of [['vip', 'late'], ['late'], ['vip', 'refund'], []]) {
        const { ticket } = await openTicket(db(), 'desk', {
          subject: 'Where is it?',
          body: 'Still waiting.',
          requester: { email: `c${numbers.length}@customer.example`, name: numbers.length ? null : 'Cleo Customer' },
          channel: 'api',
          tags,
        });
        numbers.push(ticket.number);
      }
    });
    after(() => t.close());

    const tagsOf = async (index: number) => (await findTicket(db(), 'desk', String(numbers[index])))!.tags;

    it('lists, renames and deletes tags across tickets, each change in the history', async () => {
      const listed = await api(read, 'GET', '/tags');
      assert.equal(listed.statusCode, 200);
      assert.deepEqual(json(listed), [
        { tag: 'late', tickets: 2 },
        { tag: 'refund', tickets: 1 },
        { tag: 'vip', tickets: 2 },
      ]);
      assert.equal((await api(read, 'PATCH', '/tags/late', { name: 'delayed' })).statusCode, 403);
      const agentRename = await helpdeskApi(
        t.app,
        'desk',
        { token: ann.token },
        {
          method: 'PATCH',
          path: '/tags/late',
          payload: { name: 'delayed' },
        },
      );
      assert.equal(agentRename.statusCode, 403);
      // Renaming "late" to "vip": the first ticket carries both and keeps one, where "vip" was.
      const renamed = await api(write, 'PATCH', '/tags/late', { name: ' VIP ' });
      assert.equal(renamed.statusCode, 200);
      assert.deepEqual(json(renamed), { changed: 2 });
      assert.deepEqual(await tagsOf(0), ['vip']);
      assert.deepEqual(await tagsOf(1), ['vip']);
      assert.deepEqual(await tagsOf(2), ['vip', 'refund']);
      const history = (await ticketHistory(db(), (await findTicket(db(), 'desk', String(numbers[1])))!.id)).at(-1)!;
      assert.equal(history.event, 'tags');
      assert.deepEqual([history.fromValue, history.toValue, history.actorKind], [['late'], ['vip'], 'api_key']);
      const deleted = await api(write, 'DELETE', '/tags/vip');
      assert.deepEqual(json(deleted), { changed: 3 });
      assert.deepEqual(await tagsOf(2), ['refund']);
      assert.deepEqual(json(await api(read, 'GET', '/tags')), [{ tag: 'refund', tickets: 1 }]);
      assert.deepEqual(json(await api(write, 'DELETE', '/tags/nothing')), { changed: 0 });
      const blank = await api(write, 'PATCH', '/tags/refund', { name: 'x'.repeat(51) });
      assert.equal(blank.statusCode, 400);
    });

    it('keeps a library of canned replies, filled in for a ticket', async () => {
      assert.equal((await api(read, 'POST', '/canned-replies', { name: 'Hi', body: 'Hello' })).statusCode, 403);
      const typo = await api(write, 'POST', '/canned-replies', { name: 'Typo', body: 'Hello {{requester.nmae}}' });
      assert.equal(typo.statusCode, 422);
      assert.equal(json(typo).code, 'invalid_canned_reply');
      assert.match(json<{ detail: string }>(typo).detail, /Unknown placeholder \{\{requester\.nmae\}\}/);
      const made = await api(write, 'POST', '/canned-replies', {
        name: 'Delay',
        body: 'Hello {{requester.name}}, about #{{ticket.number}} ({{ticket.subject}}): {{ agent.name }} is on it.',
      });
      assert.equal(made.statusCode, 201);
      const id = json<{ id: string }>(made).id;
      assert.equal((await api(write, 'POST', '/canned-replies', { name: 'delay', body: 'x' })).statusCode, 409);
      assert.equal(json<unknown[]>(await api(read, 'GET', '/canned-replies')).length, 1);
      const asAnn = await helpdeskApi(
        t.app,
        'desk',
        { token: ann.token },
        {
          method: 'GET',
          path: `/tickets/${numbers[0]}/canned-replies/${id}`,
        },
      );
      assert.equal(asAnn.statusCode, 200);
      assert.equal(
        json<{ body: string }>(asAnn).body,
        `Hello Cleo Customer, about #${numbers[0]} (Where is it?): ann is on it.`,
      );
      // No name given: the requester's address stands in; a key is the support team.
      const byKey = await api(read, 'GET', `/tickets/${numbers[1]}/canned-replies/${id}`);
      assert.equal(
        json<{ body: string }>(byKey).body,
        `Hello c1@customer.example, about #${numbers[1]} (Where is it?): The support team is on it.`,
      );
      const changed = await api(write, 'PATCH', `/canned-replies/${id}`, { body: 'Bye {{agent.name}}' });
      assert.equal(json<{ body: string }>(changed).body, 'Bye {{agent.name}}');
      assert.equal((await api(write, 'DELETE', `/canned-replies/${id}`)).statusCode, 204);
      assert.equal((await api(read, 'GET', `/canned-replies/${id}`)).statusCode, 404);
      assert.equal((await api(read, 'GET', `/tickets/${numbers[0]}/canned-replies/${id}`)).statusCode, 404);
    });

    it('archives a category: no new ticket goes into it, its tickets keep it, and it comes back', async () => {
      const category = json<{ id: string }>(await api(write, 'POST', '/categories', { name: 'Old things' })).id;
      assert.equal((await api(write, 'PATCH', `/tickets/${numbers[0]}`, { category_id: category })).statusCode, 200);
      const archived = await api(write, 'PATCH', `/categories/${category}`, { archived: true });
      assert.equal(archived.statusCode, 200);
      assert.match(String(json<{ archived_at: string | null }>(archived).archived_at), /^\d{4}-\d\d-\d\dT/);
      const moved = await api(write, 'PATCH', `/tickets/${numbers[1]}`, { category_id: category });
      assert.equal(moved.statusCode, 422);
      assert.match(json<{ detail: string }>(moved).detail, /"Old things" is archived/);
      const opened = await api(write, 'POST', '/tickets', {
        subject: 'New',
        body: 'Hi',
        requester: { email: 'new@customer.example' },
        category_id: category,
      });
      assert.equal(opened.statusCode, 422);
      assert.equal((await findTicket(db(), 'desk', String(numbers[0])))!.categoryId, category);
      const back = await api(write, 'PATCH', `/categories/${category}`, { archived: false });
      assert.equal(json<{ archived_at: string | null }>(back).archived_at, null);
      assert.equal((await api(write, 'PATCH', `/tickets/${numbers[1]}`, { category_id: category })).statusCode, 200);
    });
  });
}
