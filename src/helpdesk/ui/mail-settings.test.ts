// The help desk's Mail page and the acknowledgement of new tickets, on both databases against a real
// SMTP sink: a desk admin saves the support address, the sender name and the acknowledgement, which
// apply at once (a bad address is refused beside the form with what was typed, and nothing changes);
// a ticket opened by mail or by a member's contact form is acknowledged once, from the sender name,
// threaded on the mail and marked automatic; a reply on a ticket, a second delivery, a machine-sent
// mail, mail from the support address itself and a guest's form (an address anyone may type) get
// none, nor does anything while the acknowledgement is off.
// The Agents page makes a member an agent by username.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadSettings } from '../../core/settings/service.js';
import { addMember, communityHost, makeCommunity, type ForumActor } from '../../../test/factories/forum.js';
import { portal, signIn, type Actor, type TestApp } from '../../../test/helpers/app.js';
import { testDatabases } from '../../../test/helpers/databases.js';
import { pageText, UiClient } from '../../../test/helpers/forum-ui.js';
import { decodedBody, type ReceivedMail, type SmtpSink } from '../../../test/helpers/smtp-sink.js';
import { buildMailingApp } from '../../../test/helpers/mail-app.js';
import { findAgent } from '../agents.js';

const SUPPORT = 'support@help.example.com';

for (const database of testDatabases) {
  describe(`help desk mail settings and acknowledgements [${database}]`, () => {
    let t: TestApp;
    let owner: Actor;
    let sink: SmtpSink;
    let ada: ForumActor;
    let admin: UiClient;
    const host = communityHost('desk');
    const db = () => t.app.deps.database.db;

    const inbound = (mail: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/helpdesk/v1/inbound-email',
        headers: { host, 'content-type': 'message/rfc822', authorization: 'Bearer inbound-secret' },
        payload: mail,
      });
    const message = (id: string, from: string, subject: string, extra = '') =>
      `From: ${from}\nTo: ${SUPPORT}\nSubject: ${subject}\nMessage-ID: <${id}@customer.example>\n${extra}\nHello, something is wrong.\n`;
    /** The mails the sink holds beyond `seen`, once the outbox has sent everything it queued. */
    const mailsAfter = async (seen: number, expected: number): Promise<ReceivedMail[]> => {
      if (expected > 0) await sink.next(seen + expected - 1);
      await t.app.mailOutbox.idle();
      return sink.received.slice(seen);
    };
    const save = (fields: Record<string, string>) => admin.post('/desk/admin/mail', fields);

    before(async () => {
      ({ t, sink } = await buildMailingApp(database));
      owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'desk', 'pro');
      const put = await portal(t.app, owner, {
        method: 'PUT',
        url: '/api/instances/desk/env',
        payload: { HELPDESK_INBOUND_SECRET: 'inbound-secret', FORUM_TITLE: 'Acme' },
      });
      assert.equal(put.statusCode, 200, put.body);
      await portal(t.app, owner, { method: 'POST', url: '/api/instances/desk/restart' });
      ada = await addMember(t.app, 'desk', 'ada', 'admin');
      admin = new UiClient(t.app, host);
      assert.equal((await admin.login('ada', ada.password)).statusCode, 303);
    });
    after(async () => {
      await t.close();
      await sink.close();
    });

    it('saves and applies the mail settings, and refuses a bad address beside the form', async () => {
      const page = await admin.get('/desk/admin/mail');
      assert.equal(page.statusCode, 200);
      assert.match(pageText(page.body), /Replies come from nobody/);
      // A change waiting in the community settings is named: saving here applies it too.
      const waiting = await portal(t.app, owner, {
        method: 'PUT',
        url: '/api/instances/desk/env',
        payload: { HELPDESK_INBOUND_SECRET: '********', FORUM_TITLE: 'Acme', REGISTRATION_OPEN: 'false' },
      });
      assert.equal(waiting.statusCode, 200, waiting.body);
      assert.match(
        pageText((await admin.get('/desk/admin/mail')).body),
        /waiting in the community settings: REGISTRATION_OPEN/,
      );

      const refused = await save({ HELPDESK_SUPPORT_ADDRESS: 'not an address', HELPDESK_SENDER_NAME: 'Acme Help' });
      assert.equal(refused.statusCode, 422);
      assert.match(pageText(refused.body), /HELPDESK_SUPPORT_ADDRESS must be an e-mail address/);
      assert.match(refused.body, /name="HELPDESK_SENDER_NAME" value="Acme Help"/);
      assert.equal((await loadSettings(db(), 'desk')).desired.HELPDESK_SENDER_NAME, undefined, 'nothing saved');

      await admin.get('/desk/admin/mail');
      const saved = await save({
        HELPDESK_SUPPORT_ADDRESS: SUPPORT,
        HELPDESK_SENDER_NAME: 'Acme Help',
        HELPDESK_AUTO_REPLY: 'on',
      });
      assert.equal(saved.statusCode, 303, saved.body);
      const row = await loadSettings(db(), 'desk');
      assert.equal(row.applied.HELPDESK_SUPPORT_ADDRESS, SUPPORT);
      assert.equal(row.applied.HELPDESK_SENDER_NAME, 'Acme Help');
      assert.equal(row.applied.HELPDESK_AUTO_REPLY, 'true');
      assert.equal(row.applied.REGISTRATION_OPEN, 'false');
      assert.equal(row.applied.HELPDESK_INBOUND_SECRET, row.desired.HELPDESK_INBOUND_SECRET, 'the secret is kept');
      const shown = await admin.get(saved.headers.location as string);
      assert.match(pageText(shown.body), /Saved\./);
      assert.match(pageText(shown.body), /Replies come from Acme Help &lt;support@help\.example\.com&gt;/);
      assert.match(shown.body, /id="HELPDESK_AUTO_REPLY"[^>]* checked/);

      const noToken = await admin.post('/desk/admin/mail', { HELPDESK_SUPPORT_ADDRESS: '' }, { csrf: false });
      assert.equal(noToken.statusCode, 403);
      const member = await addMember(t.app, 'desk', 'mel');
      const mel = new UiClient(t.app, host);
      await mel.login('mel', member.password);
      assert.equal((await mel.get('/desk/admin/mail')).statusCode, 403);
      assert.equal((await loadSettings(db(), 'desk')).applied.HELPDESK_SUPPORT_ADDRESS, SUPPORT);
    });

    it('acknowledges a ticket opened by mail once, from the sender name, threaded and marked automatic', async () => {
      const seen = sink.received.length;
      const opened = await inbound(message('m1', 'Lee <lee@customer.example>', 'Login loop'));
      assert.equal(opened.statusCode, 202, opened.body);
      const number = (JSON.parse(opened.body) as { number: number }).number;
      const [ack, ...more] = await mailsAfter(seen, 1);
      assert.equal(more.length, 0);
      assert.deepEqual(ack!.to, ['lee@customer.example']);
      assert.match(ack!.headers.get('from') ?? '', /^"?Acme Help"? <support@help\.example\.com>$/);
      assert.equal(ack!.headers.get('subject'), `Re: [#${number}] Login loop`);
      assert.equal(ack!.headers.get('auto-submitted'), 'auto-replied');
      assert.equal(ack!.headers.get('in-reply-to'), '<m1@customer.example>');
      assert.match(ack!.headers.get('reply-to') ?? '', /^support\+t[0-9a-z]+-[0-9a-z]+@help\.example\.com$/);
      assert.match(decodedBody(ack!), new RegExp(`as ticket #${number}`));

      // The same mail again, and the requester's answer on the ticket: no second acknowledgement.
      const again = sink.received.length;
      assert.equal((await inbound(message('m1', 'Lee <lee@customer.example>', 'Login loop'))).statusCode, 202);
      const answer = await inbound(
        message(
          'm2',
          'Lee <lee@customer.example>',
          `Re: [#${number}] Login loop`,
          'In-Reply-To: <m1@customer.example>\n',
        ),
      );
      assert.equal(answer.statusCode, 202, answer.body);
      assert.equal((JSON.parse(answer.body) as { number: number }).number, number);
      assert.deepEqual(await mailsAfter(again, 0), []);
    });

    it('acknowledges no machine-sent mail and no mail from the support address', async () => {
      const seen = sink.received.length;
      const auto = await inbound(
        message('m3', 'Out of office <kim@customer.example>', 'Away until Monday', 'Auto-Submitted: auto-replied\n'),
      );
      assert.equal(auto.statusCode, 202);
      const own = await inbound(message('m4', SUPPORT, 'Forwarded from our own address'));
      assert.equal(own.statusCode, 202);
      assert.equal((JSON.parse(own.body) as { created: boolean }).created, true);
      assert.deepEqual(await mailsAfter(seen, 0), []);
    });

    it("acknowledges a member's contact form, no guest's, and nothing once the acknowledgement is off", async () => {
      // A guest's typed address is unproven: the form mails no stranger.
      const guest = new UiClient(t.app, host);
      await guest.get('/support');
      const before = sink.received.length;
      const typed = await guest.post('/support', {
        name: 'Mallory',
        email: 'victim@elsewhere.example',
        subject: 'Cheap watches',
        message: 'Buy now.',
      });
      assert.equal(typed.statusCode, 200, typed.body);
      assert.deepEqual(await mailsAfter(before, 0), []);

      const rita = await addMember(t.app, 'desk', 'rita');
      const member = new UiClient(t.app, host);
      assert.equal((await member.login('rita', rita.password)).statusCode, 303);
      await member.get('/support');
      const seen = sink.received.length;
      const sent = await member.post('/support', { subject: 'Invoice', message: 'The address is wrong.' });
      assert.equal(sent.statusCode, 200, sent.body);
      const [ack] = await mailsAfter(seen, 1);
      assert.deepEqual(ack!.to, [rita.member.email]);
      assert.match(ack!.headers.get('subject') ?? '', /^Re: \[#\d+\] Invoice$/);
      assert.equal(ack!.headers.get('in-reply-to'), undefined);

      await admin.get('/desk/admin/mail');
      assert.equal((await save({ HELPDESK_SUPPORT_ADDRESS: SUPPORT, HELPDESK_SENDER_NAME: '' })).statusCode, 303);
      const shown = await admin.get('/desk/admin/mail');
      assert.match(pageText(shown.body), /Replies come from Acme &lt;support@help\.example\.com&gt;/);
      const quiet = sink.received.length;
      assert.equal((await inbound(message('m5', 'Lee <lee@customer.example>', 'Another question'))).statusCode, 202);
      assert.deepEqual(await mailsAfter(quiet, 0), []);
    });

    it('makes a member an agent by username on the Agents page', async () => {
      const sam = await addMember(t.app, 'desk', 'sam');
      await admin.get('/desk/admin/agents');
      const unknown = await admin.post('/desk/admin/agents', { username: 'nobody' });
      assert.equal(unknown.statusCode, 422);
      assert.match(pageText(unknown.body), /No member &quot;nobody&quot; in this community\./);
      assert.match(unknown.body, /name="username" value="nobody"/);
      const made = await admin.post('/desk/admin/agents', { username: '@sam' });
      assert.equal(made.statusCode, 303, made.body);
      assert.ok(await findAgent(db(), 'desk', sam.member.id));
      const page = await admin.get(made.headers.location as string);
      assert.match(pageText(page.body), /Added\./);
      assert.match(page.body, /<h2 id="agent-[^"]+">sam<\/h2>/);
      await admin.get('/desk/admin/agents');
      const twice = await admin.post('/desk/admin/agents', { username: 'sam' });
      assert.equal(twice.statusCode, 422);
      assert.match(pageText(twice.body), /sam is an agent already\./);
    });
  });
}
