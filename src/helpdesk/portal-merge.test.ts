// The customer portal and ticket merges on both databases. A member sees every ticket whose
// requester is its confirmed address, however it came (the API here), but only where the community
// confirms addresses; another member, or one whose address nobody confirmed, finds nothing. Files
// go along with a reply and come back only as inert downloads; a file of a refused kind is refused.
// Merging moves the thread in time order, closes the merged tickets with a note and history, mails
// nobody, and refuses a merge into itself, into a merged or closed ticket and across sites.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mintApiKey } from '../../test/factories/cms.js';
import { addMember, communityHost, makeCommunity, type ForumActor } from '../../test/factories/forum.js';
import { helpdeskApi, type HelpdeskCredential } from '../../test/factories/helpdesk.js';
import { json, signIn, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { pageText, UiClient } from '../../test/helpers/forum-ui.js';
import { type SmtpSink } from '../../test/helpers/smtp-sink.js';
import { buildMailingApp } from '../../test/helpers/mail-app.js';
import { eq } from 'drizzle-orm';
import { createMember } from '../forum/members.js';
import { forumMembers } from '../forum/tables.js';
import { MAIL_JOB } from '../jobs/mail-outbox.js';
import { jobs } from '../jobs/tables.js';

const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n', 'latin1');

interface Ticket {
  id: string;
  number: number;
  status: string;
}

for (const database of testDatabases) {
  describe(`help desk portal and merges [${database}]`, () => {
    let t: TestApp;
    let sink: SmtpSink;
    let key: HelpdeskCredential;
    let otherKey: HelpdeskCredential;
    let bob: ForumActor;
    const bobPassword = 'pw-bob-0123456789';
    const api = (method: string, path: string, payload?: Record<string, unknown>, credential = key) =>
      helpdeskApi(t.app, 'desk', credential, { method, path, payload });
    const open = async (subject: string, email = 'bob@example.org'): Promise<Ticket> => {
      const response = await api('POST', '/tickets', { subject, body: `About ${subject}.`, requester: { email } });
      assert.equal(response.statusCode, 201, response.body);
      return json<Ticket>(response);
    };
    const mailJobs = async (): Promise<number> => {
      const rows = await t.app.deps.database.db.select({ id: jobs.id }).from(jobs).where(eq(jobs.kind, MAIL_JOB));
      return rows.length;
    };
    const setConfirmed = (confirmed: boolean) =>
      t.app.deps.database.db
        .update(forumMembers)
        .set({ emailConfirmed: confirmed })
        .where(eq(forumMembers.id, bob.member.id));
    const loggedIn = async (login: string, password: string, site = 'desk'): Promise<UiClient> => {
      const ui = new UiClient(t.app, communityHost(site));
      assert.equal((await ui.login(login, password)).statusCode, 303);
      return ui;
    };

    before(async () => {
      ({ t, sink } = await buildMailingApp(database, { BLUME_MAIL_DEFAULT_SENDER: 'Desk <desk@blume.test>' }));
      const owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'desk', 'pro');
      await makeCommunity(t.app, owner, 'other', 'pro');
      key = { key: await mintApiKey(t.app, owner, 'desk', ['helpdesk-write']) };
      otherKey = { key: await mintApiKey(t.app, owner, 'other', ['helpdesk-write']) };
      // Added by an admin: its address counts as confirmed (decision 0016).
      const member = await createMember(t.app.deps.database.db, 'desk', {
        username: 'bob',
        email: 'Bob@Example.org',
        password: bobPassword,
      });
      bob = { member, password: bobPassword, token: '' };
      await addMember(t.app, 'desk', 'eve');
    });
    after(async () => {
      await t.close();
      await sink.close();
    });

    it("lists a ticket opened through the API for the member's confirmed address, and no one else's", async () => {
      const ticket = await open('Opened by the API');
      const ui = await loggedIn('bob', bob.password);
      const list = await ui.get('/support/tickets');
      assert.equal(list.statusCode, 200);
      assert.match(pageText(list.body), new RegExp(`#${ticket.number} Opened by the API`));
      const page = await ui.get(`/support/tickets/${ticket.number}`);
      assert.equal(page.statusCode, 200, page.body);
      assert.match(pageText(page.body), /About Opened by the API\./);

      const eve = await loggedIn('eve', 'pw-eve-0123456789');
      assert.doesNotMatch(pageText((await eve.get('/support/tickets')).body), /Opened by the API/);
      const refused = await eve.get(`/support/tickets/${ticket.number}`);
      assert.equal(refused.statusCode, 404);
      assert.match(pageText(refused.body), new RegExp(`No ticket #${ticket.number} of yours`));
    });

    it('shows tickets by address only once the member confirmed it', async () => {
      await setConfirmed(false);
      const ticket = await open('While unconfirmed');
      const ui = await loggedIn('bob', bob.password);
      assert.doesNotMatch(pageText((await ui.get('/support/tickets')).body), /While unconfirmed/);
      assert.equal((await ui.get(`/support/tickets/${ticket.number}`)).statusCode, 404);
      await setConfirmed(true);
      assert.match(pageText((await ui.get('/support/tickets')).body), /While unconfirmed/);
    });

    it('takes a file with a reply and serves it back only as a download', async () => {
      const ticket = await open('With a file');
      const ui = await loggedIn('bob', bob.password);
      await ui.get(`/support/tickets/${ticket.number}`);
      const sent = await ui.postMultipart(`/support/tickets/${ticket.number}/reply`, [
        { name: 'body', value: 'The invoice is attached.' },
        { name: 'file', filename: 'invoice 2026.pdf', content: PDF, contentType: 'application/pdf' },
      ]);
      assert.equal(sent.statusCode, 303, sent.body);
      const page = await ui.get(`/support/tickets/${ticket.number}`);
      const href = /href="(\/support\/tickets\/\d+\/attachments\/[^"]+)"/.exec(page.body)?.[1];
      assert.ok(href, 'the reply lists its file');
      assert.match(pageText(page.body), /invoice-2026\.pdf/);
      const file = await ui.get(href);
      assert.equal(file.statusCode, 200);
      assert.equal(file.headers['content-type'], 'application/pdf');
      assert.match(String(file.headers['content-disposition']), /^attachment; filename="invoice-2026\.pdf"/);
      assert.equal(file.headers['x-content-type-options'], 'nosniff');
      assert.deepEqual(file.rawPayload, PDF);
      const eve = await loggedIn('eve', 'pw-eve-0123456789');
      assert.equal((await eve.get(href)).statusCode, 404, "another member cannot fetch bob's file");

      // An HTML file is no kind the portal takes: the form comes back with the refusal.
      await ui.get(`/support/tickets/${ticket.number}`);
      const refused = await ui.postMultipart(`/support/tickets/${ticket.number}/reply`, [
        { name: 'body', value: 'And a page.' },
        { name: 'file', filename: 'page.html', content: '<script>alert(1)</script>', contentType: 'text/html' },
      ]);
      assert.equal(refused.statusCode, 422, refused.body);
      const api1 = json<Array<{ attachments: unknown[] }>>(await api('GET', `/tickets/${ticket.number}/replies`));
      assert.equal(api1.length, 2, 'the refused reply was not added');
    });

    it('links Support in the header of a community with the help desk only', async () => {
      const guest = new UiClient(t.app, communityHost('desk'));
      assert.match((await guest.get('/latest')).body, /<a href="\/support">Support<\/a>/);
      const owner = await signIn(t.app, 'owner2');
      await makeCommunity(t.app, owner, 'free', 'free');
      const free = new UiClient(t.app, communityHost('free'));
      assert.doesNotMatch((await free.get('/latest')).body, /href="\/support"/);
    });

    it('merges tickets: the thread moves in time order, the others close with a note, nobody is mailed', async () => {
      const first = await open('First of three');
      const second = await open('Second of three', 'carol@example.org');
      const third = await open('Third of three');
      assert.equal(
        (await api('POST', `/tickets/${first.id}/replies`, { body: 'Agent answer on one.' })).statusCode,
        201,
      );
      assert.equal(
        (await api('POST', `/tickets/${third.number}/replies`, { body: 'Agent answer on three.' })).statusCode,
        201,
      );
      const mailBefore = await mailJobs();
      const response = await api('POST', `/tickets/${first.number}/merge`, {
        ticket_ids: [String(third.number), second.id],
      });
      assert.equal(response.statusCode, 200, response.body);
      const result = json<{ ticket: Ticket; merged: Array<{ number: number }>; moved_entries: number }>(response);
      assert.equal(result.ticket.number, first.number);
      assert.deepEqual(result.merged.map((m) => m.number).sort(), [second.number, third.number].sort());
      assert.equal(result.moved_entries, 3);
      const thread = json<Array<{ body: string; created_at: string }>>(
        await api('GET', `/tickets/${first.id}/replies`),
      );
      assert.deepEqual(
        thread.map((entry) => entry.body),
        [
          'About First of three.',
          'About Second of three.',
          'About Third of three.',
          'Agent answer on one.',
          'Agent answer on three.',
        ],
      );
      const times = thread.map((entry) => entry.created_at);
      assert.deepEqual([...times].sort(), times, 'the thread is in time order');
      for (const merged of [second, third]) {
        const ticket = json<Ticket>(await api('GET', `/tickets/${merged.id}`));
        assert.equal(ticket.status, 'closed');
        const history = json<Array<{ event: string; to: unknown }>>(await api('GET', `/tickets/${merged.id}/history`));
        const event = history.find((row) => row.event === 'merged');
        assert.deepEqual((event?.to as { number: number }).number, first.number);
        const left = json<Array<{ body: string; internal: boolean }>>(
          await api('GET', `/tickets/${merged.id}/replies`),
        );
        assert.deepEqual(
          left.map((entry) => [entry.body, entry.internal]),
          [[`This request was merged into ticket #${first.number}; the conversation continues there.`, false]],
        );
      }
      const targetHistory = json<Array<{ event: string }>>(await api('GET', `/tickets/${first.id}/history`));
      assert.ok(targetHistory.some((row) => row.event === 'merged_in'));
      assert.equal(await mailJobs(), mailBefore, 'a merge mails nobody');

      // The merged ticket's customer is pointed to the target and cannot reply on it.
      const ui = await loggedIn('bob', bob.password);
      const page = await ui.get(`/support/tickets/${third.number}`);
      assert.match(pageText(page.body), new RegExp(`merged into ticket #${first.number}`));
      assert.doesNotMatch(page.body, /Send reply/);

      const again = await api('POST', `/tickets/${first.number}/merge`, { ticket_ids: [String(second.number)] });
      assert.equal(again.statusCode, 409);
      assert.equal(json<{ code: string }>(again).code, 'ticket_merged');
      assert.match(String(again.headers['content-type']), /application\/problem\+json/);
      const intoMerged = await api('POST', `/tickets/${second.number}/merge`, { ticket_ids: [String(first.number)] });
      assert.equal(json<{ code: string }>(intoMerged).code, 'ticket_merged');
    });

    it('refuses a merge into itself, into a closed ticket and across sites', async () => {
      const a = await open('Alpha');
      const b = await open('Beta');
      const itself = await api('POST', `/tickets/${a.number}/merge`, { ticket_ids: [a.id] });
      assert.equal(itself.statusCode, 422);
      assert.equal(json<{ code: string }>(itself).code, 'merge_into_itself');

      const closed = await open('Closed one');
      assert.equal((await api('PATCH', `/tickets/${closed.id}`, { status: 'closed' })).statusCode, 200);
      const intoClosed = await api('POST', `/tickets/${closed.number}/merge`, { ticket_ids: [a.id] });
      assert.equal(intoClosed.statusCode, 409);
      assert.equal(json<{ code: string }>(intoClosed).code, 'merge_target_closed');

      const foreign = await helpdeskApi(t.app, 'other', otherKey, {
        method: 'POST',
        path: '/tickets',
        payload: { subject: 'Elsewhere', body: 'On the other site.', requester: { email: 'x@example.org' } },
      });
      const elsewhere = json<Ticket>(foreign);
      const across = await api('POST', `/tickets/${a.number}/merge`, { ticket_ids: [elsewhere.id] });
      assert.equal(across.statusCode, 404);
      assert.equal(json<{ code: string }>(across).code, 'ticket_not_found');
      const empty = await api('POST', `/tickets/${a.number}/merge`, { ticket_ids: [] });
      assert.equal(empty.statusCode, 400);
      // Nothing changed on any refusal.
      for (const ticket of [a, b, elsewhere]) {
        const credential = ticket === elsewhere ? otherKey : key;
        const site = ticket === elsewhere ? 'other' : 'desk';
        const read = json<Ticket>(
          await helpdeskApi(t.app, site, credential, { method: 'GET', path: `/tickets/${ticket.id}` }),
        );
        assert.equal(read.status, 'new');
      }
    });
  });
}
