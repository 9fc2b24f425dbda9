// HTML mail on a desk ticket page, on both databases (decision 0128): a first message's HTML is
// shown sanitized with its table, its quote and its inline image (served from the stored part to
// the agent's session), its remote image left out and forbidden by the page's policy until the
// agent asks for that message; a reply whose quote was cut shows its own text with the whole HTML
// one click away. The same message comes through a Mailgun form with its content-id map.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { makeAgent } from '../agents.js';
import { addMember, communityHost, makeCommunity, type ForumActor } from '../../../test/factories/forum.js';
import { buildTestApp, portal, signIn, type Actor, type TestApp } from '../../../test/helpers/app.js';
import { testDatabases } from '../../../test/helpers/databases.js';
import { UiClient } from '../../../test/helpers/forum-ui.js';
import { mailgunSignature } from '../mail/providers.js';
import { findTicket, listEntries } from '../tickets.js';

/** A 1x1 PNG. */
const PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

const HTML_BODY =
  '<html><head><style>p{color:red}</style></head><body><p>Hello, my order:</p>' +
  '<table><tr><th>Item</th><th>Qty</th><th>Unit price</th></tr><tr><td>K6 arm</td><td>5</td><td>1,499 EUR</td></tr></table>' +
  '<blockquote><p>Your page: refunds within 30 days.</p></blockquote>' +
  '<p><img src="cid:shot@mail.example" alt="Screenshot"> <img src="https://tracker.example/open.gif" alt="">' +
  '</p><script>alert(1)</script></body></html>';

function htmlMail(messageId: string, extra = ''): string {
  return [
    'From: Erin Example <erin@customer.example>',
    'To: support@help.example.com',
    'Subject: Order with a table',
    `Message-ID: <${messageId}>`,
    extra,
    'MIME-Version: 1.0',
    'Content-Type: multipart/related; boundary="rel"',
    '',
    '--rel',
    'Content-Type: text/html; charset=utf-8',
    '',
    HTML_BODY,
    '--rel',
    'Content-Type: image/png; name="shot.png"',
    'Content-Transfer-Encoding: base64',
    'Content-ID: <shot@mail.example>',
    'Content-Disposition: inline; filename="shot.png"',
    '',
    PIXEL.toString('base64'),
    '--rel--',
    '',
  ]
    .filter((line, index) => index !== 4 || line !== '')
    .join('\r\n');
}

for (const database of testDatabases) {
  describe(`HTML mail on the desk [${database}]`, () => {
    let t: TestApp;
    let owner: Actor;
    let ann: ForumActor;
    const db = () => t.app.deps.database.db;
    const inbound = (contentType: string, payload: string | Buffer, authorization?: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/helpdesk/v1/inbound-email',
        headers: {
          host: communityHost('desk'),
          'content-type': contentType,
          ...(authorization ? { authorization } : {}),
        },
        payload,
      });
    const agent = async () => {
      const ui = new UiClient(t.app, communityHost('desk'));
      assert.equal((await ui.login(ann.member.username, ann.password)).statusCode, 303);
      return ui;
    };

    before(async () => {
      t = await buildTestApp({ database, env: { BLUME_RATE_LOGIN_PER_MINUTE: '1000' } });
      owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'desk', 'business');
      const values = {
        HELPDESK_SUPPORT_ADDRESS: 'support@help.example.com',
        HELPDESK_INBOUND_SECRET: 'inbound-secret',
        HELPDESK_MAILGUN_SIGNING_KEY: 'mailgun-key',
      };
      const put = await portal(t.app, owner, { method: 'PUT', url: '/api/instances/desk/env', payload: values });
      assert.equal(put.statusCode, 200);
      await portal(t.app, owner, { method: 'POST', url: '/api/instances/desk/restart' });
      ann = await addMember(t.app, 'desk', 'ann');
      await makeAgent(db(), 'desk', ann.member.id);
    });
    after(() => t?.close());

    it("shows a first message's HTML sanitized, its inline image from the message, remote images when asked", async () => {
      const created = await inbound('message/rfc822', htmlMail('html-1@customer.example'), 'Bearer inbound-secret');
      assert.equal(created.statusCode, 202, created.body);
      const ticket = (await findTicket(db(), 'desk', '1'))!;
      const [entry] = (await listEntries(db(), ticket.id, true, { pageSize: 5, offset: 0 })).rows;
      assert.match(entry!.bodySource, /Item \| Qty \| Unit price\nK6 arm \| 5 \| 1,499 EUR/);
      assert.match(entry!.bodySource, /> Your page: refunds within 30 days\./, 'a first message keeps its quote');

      const ui = await agent();
      const page = await ui.get('/desk/tickets/1');
      assert.equal(page.statusCode, 200);
      const csp = String(page.headers['content-security-policy']);
      assert.match(csp, /img-src 'self' data:;/);
      assert.doesNotMatch(csp, /https:/);
      assert.match(page.body, /<div class="body mail-html"><p>Hello, my order:<\/p><table><tr><th>Item<\/th>/);
      assert.match(page.body, /<blockquote><p>Your page: refunds within 30 days\.<\/p><\/blockquote>/);
      assert.doesNotMatch(page.body, /alert\(1\)|color:red|tracker\.example/);
      const image = /<img alt="Screenshot" src="([^"]+)"/.exec(page.body)?.[1];
      assert.equal(image, `/api/helpdesk/v1/tickets/1/replies/${entry!.id}/attachments/1`);
      const bytes = await ui.get(image!);
      assert.equal(bytes.statusCode, 200);
      assert.equal(bytes.headers['content-type'], 'image/png');
      assert.ok(bytes.rawPayload.equals(PIXEL));
      assert.match(page.body, /Show remote images<\/a> <span class="hint">1 image from other servers not loaded/);

      const asked = await ui.get(`/desk/tickets/1?remote_images=${entry!.id}`);
      assert.match(String(asked.headers['content-security-policy']), /img-src 'self' data: https: http:;/);
      assert.match(asked.body, /<img src="https:\/\/tracker\.example\/open\.gif" alt="" \/>/);
      assert.doesNotMatch(asked.body, /Show remote images/);
    });

    it('shows a trimmed reply as its own text, with the whole HTML one click away', async () => {
      const reply = [
        'From: Erin Example <erin@customer.example>',
        'To: support@help.example.com',
        'Subject: Re: Order with a table',
        'Message-ID: <html-2@customer.example>',
        'In-Reply-To: <html-1@customer.example>',
        'MIME-Version: 1.0',
        'Content-Type: text/html; charset=utf-8',
        '',
        '<div>Any news?</div><div class="gmail_quote">On Mon, 1 Jun 2026 at 10:00, Acme wrote:<br>' +
          '<blockquote class="gmail_quote"><p>We are on it.</p></blockquote></div>',
        '',
      ].join('\r\n');
      assert.equal((await inbound('message/rfc822', reply, 'Bearer inbound-secret')).statusCode, 202);
      const ticket = (await findTicket(db(), 'desk', '1'))!;
      const entries = (await listEntries(db(), ticket.id, true, { pageSize: 5, offset: 0 })).rows;
      assert.equal(entries[1]!.bodySource, 'Any news?');
      const page = await (await agent()).get('/desk/tickets/1');
      assert.match(
        page.body,
        /<div class="body"><p>Any news\?<\/p><\/div><details class="mail-whole"><summary>The whole message as sent<\/summary><div class="body mail-html"><div>Any news\?<\/div><div>On Mon, 1 Jun 2026 at 10:00, Acme wrote:<br \/><blockquote><p>We are on it\.<\/p><\/blockquote><\/div>\s*<\/div><\/details>/,
      );
    });

    it('maps the inline images of a Mailgun form by its content-id-map', async () => {
      const timestamp = String(Math.floor(Date.now() / 1000));
      const token = 'a'.repeat(50);
      const form = new FormData();
      for (const [name, value] of Object.entries({
        timestamp,
        token,
        signature: mailgunSignature('mailgun-key', timestamp, token),
        from: 'Max <max@customer.example>',
        recipient: 'support@help.example.com',
        subject: 'Through Mailgun',
        'Message-Id': '<mg-1@customer.example>',
        'body-plain': 'Item Qty',
        'body-html': HTML_BODY,
        'content-id-map': JSON.stringify({ '<shot@mail.example>': 'attachment-1' }),
      }))
        form.append(name, value);
      form.append('attachment-1', new Blob([PIXEL], { type: 'image/png' }), 'shot.png');
      const request = new Request('http://x/', { method: 'POST', body: form });
      const body = Buffer.from(await request.arrayBuffer());
      const created = await inbound(request.headers.get('content-type')!, body);
      assert.equal(created.statusCode, 202, created.body);
      const number = (JSON.parse(created.body) as { number: number }).number;
      const page = await (await agent()).get(`/desk/tickets/${number}`);
      assert.match(
        page.body,
        /<img alt="Screenshot" src="\/api\/helpdesk\/v1\/tickets\/\d+\/replies\/[a-z0-9]+\/attachments\/1"/,
      );
      assert.match(page.body, /<td>K6 arm<\/td>/);
    });
  });
}
