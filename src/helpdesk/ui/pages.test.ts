// The requester's help desk pages on both databases: a guest and a member open tickets through the
// contact form, the member follows theirs on "your tickets" and replies, agents' answers show and
// internal notes never do, another member finds nothing, forms need their CSRF token, and a site
// whose plan has no help desk has no pages.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mintApiKey } from '../../../test/factories/cms.js';
import { addMember, communityHost, makeCommunity, type ForumActor } from '../../../test/factories/forum.js';
import { helpdeskApi, type HelpdeskCredential } from '../../../test/factories/helpdesk.js';
import { buildTestApp, json, signIn, type TestApp } from '../../../test/helpers/app.js';
import { testDatabases } from '../../../test/helpers/databases.js';
import { pageText, UiClient } from '../../../test/helpers/forum-ui.js';
import { addEntry, findTicket } from '../tickets.js';

for (const database of testDatabases) {
  describe(`help desk pages [${database}]`, () => {
    let t: TestApp;
    let key: HelpdeskCredential;
    let ria: ForumActor;
    let sam: ForumActor;
    const client = (site = 'desk') => new UiClient(t.app, communityHost(site));

    before(async () => {
      t = await buildTestApp({ database, env: { BLUME_RATE_LOGIN_PER_MINUTE: '1000' } });
      const owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'desk', 'pro');
      await makeCommunity(t.app, owner, 'hobby', 'free');
      key = { key: await mintApiKey(t.app, owner, 'desk', ['helpdesk-write']) };
      ria = await addMember(t.app, 'desk', 'ria');
      sam = await addMember(t.app, 'desk', 'sam');
    });
    after(() => t.close());

    it("takes a guest's request as a web ticket from the address they typed", async () => {
      const guest = client();
      const sent = await guest.submit('/support', '/support', {
        name: 'Gus',
        email: 'gus@example.test',
        subject: 'Where is my order?',
        message: 'Ordered last week.',
      });
      assert.equal(sent.statusCode, 200, sent.body);
      const number = /ticket #(\d+)/.exec(pageText(sent.body))?.[1];
      assert.ok(number, pageText(sent.body));
      const ticket = json<{ channel: string; requester: { email: string; name: string } }>(
        await helpdeskApi(t.app, 'desk', key, { method: 'GET', path: `/tickets/${number}` }),
      );
      assert.deepEqual(
        [ticket.channel, ticket.requester.email, ticket.requester.name],
        ['web', 'gus@example.test', 'Gus'],
      );
      const empty = await guest.submit('/support', '/support', {
        name: 'Gus',
        email: 'gus@example.test',
        subject: '',
        message: 'x',
      });
      assert.equal(empty.statusCode, 422);
      assert.match(empty.body, /value="gus@example\.test"/, 'what was typed stays');
      assert.equal((await guest.get('/support/tickets')).statusCode, 303, 'guests log in to see tickets');
    });

    it('lets a member follow and answer their own ticket; answers show, notes never; others find nothing', async () => {
      const member = client();
      assert.equal((await member.login('ria', ria.password)).statusCode, 303);
      const sent = await member.submit('/support', '/support', {
        subject: 'Cannot upload',
        message: 'The button does nothing.',
      });
      const number = /ticket #(\d+)/.exec(pageText(sent.body))![1]!;
      await helpdeskApi(t.app, 'desk', key, {
        method: 'POST',
        path: `/tickets/${number}/replies`,
        payload: { body: 'Which browser do you use?' },
      });
      await helpdeskApi(t.app, 'desk', key, {
        method: 'POST',
        path: `/tickets/${number}/replies`,
        payload: { body: 'SECRET: known bug 42', internal: true },
      });
      const list = await member.get('/support/tickets');
      assert.match(list.body, new RegExp(`#${number} Cannot upload`));
      const page = await member.get(`/support/tickets/${number}`);
      assert.equal(page.statusCode, 200);
      assert.match(pageText(page.body), /Support .*Which browser do you use\?/);
      assert.doesNotMatch(page.body, /SECRET/);
      assert.equal((await member.post(`/support/tickets/${number}/reply`, { body: 'Firefox.' })).statusCode, 303);
      const thread = json<Array<{ body: string; author: { kind: string } }>>(
        await helpdeskApi(t.app, 'desk', key, { method: 'GET', path: `/tickets/${number}/replies?internal=false` }),
      );
      assert.deepEqual(
        thread.map((entry) => [entry.author.kind, entry.body]),
        [
          ['requester', 'The button does nothing.'],
          ['agent', 'Which browser do you use?'],
          ['requester', 'Firefox.'],
        ],
      );
      // Someone copied on the mail wrote too: the requester sees them as another sender, not as "You".
      const db = t.app.deps.database.db;
      const ticket = (await findTicket(db, 'desk', number))!;
      await addEntry(
        db,
        ticket,
        { body: 'Copied colleague here.', author: { kind: 'requester', email: 'cc@customer.example' } },
        { kind: 'requester', id: null },
      );
      const seen = pageText((await member.get(`/support/tickets/${number}`)).body);
      assert.match(seen, /You · [^·]*Firefox\./);
      assert.match(seen, /Another sender · [^·]*Copied colleague here\./);

      const other = client();
      await other.login('sam', sam.password);
      assert.doesNotMatch((await other.get('/support/tickets')).body, /Cannot upload/);
      assert.equal((await other.get(`/support/tickets/${number}`)).statusCode, 404);
      assert.equal((await other.post(`/support/tickets/${number}/reply`, { body: 'Me too' })).statusCode, 404);
      assert.equal(
        (await member.post(`/support/tickets/${number}/reply`, { body: 'No token' }, { csrf: false })).statusCode,
        403,
      );
    });

    it('has no pages on a site whose plan has no help desk', async () => {
      assert.equal((await client('hobby').get('/support')).statusCode, 404);
    });
  });
}
