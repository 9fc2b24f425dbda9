// POST /api/helpdesk/v1/inbound-email over HTTP, as a mail server or a provider's webhook calls it:
// raw MIME and Postmark JSON become tickets, a redelivery answers the same ticket,
// machine-sent mail is answered and dropped, and unsigned, malformed or oversized mail is refused
// with its code; a site whose plan has no help desk takes none. Then mail both ways against an SMTP
// sink: an agent's public reply is mailed, and the requester's answer threads back.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { mintApiKey } from '../../test/factories/cms.js';
import { communityHost, makeCommunity } from '../../test/factories/forum.js';
import { helpdeskApi } from '../../test/factories/helpdesk.js';
import { buildTestApp, json, portal, signIn, type Actor, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { queryRows } from '../db/client.js';
import { mailgunSignature } from './mail/providers.js';
import { eventually } from '../../test/helpers/eventually.js';
import { decodedBody, startSmtpSink, type SmtpSink, sinkMailEnv } from '../../test/helpers/smtp-sink.js';

const raw = (name: string): Buffer => readFileSync(new URL(`../../test/fixtures/mail/${name}`, import.meta.url));

interface Filed {
  ticket_id: string | null;
  number: number | null;
  created: boolean;
  ignored: string | null;
}

for (const database of testDatabases) {
  describe(`help desk inbound e-mail over HTTP [${database}]`, () => {
    let t: TestApp;
    let owner: Actor;
    const deliver = (site: string, body: Buffer | string, contentType: string, authorization?: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/helpdesk/v1/inbound-email',
        headers: {
          host: communityHost(site),
          'content-type': contentType,
          ...(authorization ? { authorization } : {}),
        },
        payload: body,
      });
    const mime = (body: Buffer | string, secret = 'inbound-secret') =>
      deliver('desk', body, 'message/rfc822', `Bearer ${secret}`);

    before(async () => {
      t = await buildTestApp({ database });
      owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'desk', 'pro');
      await makeCommunity(t.app, owner, 'hobby', 'free');
      for (const site of ['desk', 'hobby']) {
        const put = await portal(t.app, owner, {
          method: 'PUT',
          url: `/api/instances/${site}/env`,
          payload: {
            HELPDESK_SUPPORT_ADDRESS: 'support@help.example.com',
            HELPDESK_INBOUND_SECRET: 'inbound-secret',
            HELPDESK_MAILGUN_SIGNING_KEY: 'mg-key',
            HELPDESK_ATTACHMENT_MAX_BYTES: '1000000',
          },
        });
        assert.equal(put.statusCode, 200, put.body);
        await portal(t.app, owner, { method: 'POST', url: `/api/instances/${site}/restart` });
      }
    });
    after(() => t.close());

    it('opens a ticket from raw MIME; a redelivery answers the same ticket', async () => {
      const first = await mime(raw('apple-mail-attachments.eml'));
      assert.equal(first.statusCode, 202, first.body);
      const filed = json<Filed>(first);
      assert.equal(filed.created, true);
      assert.ok(filed.ticket_id && filed.number);
      const again = await mime(raw('apple-mail-attachments.eml'));
      assert.deepEqual(json<Filed>(again), { ...filed, created: false });
    });

    it('takes a Postmark payload with the secret as basic auth', async () => {
      const payload = JSON.stringify({
        FromFull: { Email: 'pm@customer.example', Name: 'PM' },
        ToFull: [{ Email: 'support@help.example.com' }],
        Subject: 'Via Postmark',
        TextBody: 'Hello',
        Headers: [{ Name: 'Message-ID', Value: '<pm-http@customer.example>' }],
      });
      const basic = (password: string) => `Basic ${Buffer.from(`postmark:${password}`).toString('base64')}`;
      const filed = await deliver('desk', payload, 'application/json', basic('inbound-secret'));
      assert.equal(filed.statusCode, 202, filed.body);
      assert.equal(json<Filed>(filed).created, true);
      const refused = await deliver('desk', payload, 'application/json', basic('wrong'));
      assert.equal(refused.statusCode, 401);
      assert.equal(json(refused).code, 'inbound_unauthorized');
    });

    it('takes a Mailgun signature for one body: a retry is answered, a replay with other content is refused', async () => {
      const timestamp = String(Math.floor(Date.now() / 1000));
      const token = 'r'.repeat(50);
      const signed = (subject: string, messageId: string) => {
        const form = new FormData();
        for (const [name, value] of Object.entries({
          timestamp,
          token,
          signature: mailgunSignature('mg-key', timestamp, token),
          from: 'mg@customer.example',
          recipient: 'support@help.example.com',
          subject,
          'body-plain': 'Hello',
          'Message-Id': messageId,
        }))
          form.append(name, value);
        return new Request('http://localhost/', { method: 'POST', body: form });
      };
      const bytes = async (request: Request) => ({
        body: Buffer.from(await request.arrayBuffer()),
        type: request.headers.get('content-type')!,
      });
      const post = ({ body, type }: { body: Buffer; type: string }) => deliver('desk', body, type);
      const original = await bytes(signed('Via Mailgun', '<mg-once@customer.example>'));
      const first = await post(original);
      assert.equal(first.statusCode, 202, first.body);
      assert.equal(json<Filed>(first).created, true);
      const retried = await post(original);
      assert.equal(retried.statusCode, 202, 'Mailgun retrying the same body');
      assert.deepEqual(json<Filed>(retried), { ...json<Filed>(first), created: false });
      const replayed = await post(await bytes(signed('Forged', '<mg-forged@customer.example>')));
      assert.equal(replayed.statusCode, 401, replayed.body);
      assert.equal(json(replayed).code, 'inbound_unauthorized');
      const forged = await queryRows<{ n: number }>(
        t.app.deps.database.db,
        sql`select count(*)::int as n from helpdesk_tickets where site_id = 'desk' and subject = 'Forged'`,
      );
      assert.equal(forged[0]!.n, 0);
    });

    it("threads by Message-ID only mail from the ticket's people; a stranger's opens a ticket of their own", async () => {
      const message = (from: string, id: string, extra: string[], text: string) =>
        [
          `From: ${from}`,
          'To: support@help.example.com',
          'Subject: Re: Order 7',
          `Message-ID: <${id}>`,
          ...extra,
          '',
          text,
          '',
        ].join('\r\n');
      const opened = json<Filed>(
        await mime(message('Ola <ola@customer.example>', 'ola-1@customer.example', [], 'Where is order 7?')),
      );
      assert.equal(opened.created, true);
      const stranger = await mime(
        message(
          'Eve <eve@elsewhere.example>',
          'eve-1@elsewhere.example',
          ['In-Reply-To: <ola-1@customer.example>', 'References: <ola-1@customer.example>'],
          'Please send the refund to my account instead.',
        ),
      );
      assert.equal(stranger.statusCode, 202, stranger.body);
      const filed = json<Filed>(stranger);
      assert.equal(filed.created, true);
      assert.notEqual(filed.ticket_id, opened.ticket_id, 'a ticket of its own');
      const own = await mime(
        message(
          'Ola <ola@customer.example>',
          'ola-2@customer.example',
          ['In-Reply-To: <eve-1@elsewhere.example>', 'References: <ola-1@customer.example> <eve-1@elsewhere.example>'],
          'Any news?',
        ),
      );
      // The latest message referenced is the stranger's: Ola's mail goes onto the thread she is on.
      assert.equal(json<Filed>(own).ticket_id, opened.ticket_id);
      const key = { key: await mintApiKey(t.app, owner, 'desk', ['helpdesk-read']) };
      const replies = (id: string) =>
        helpdeskApi(t.app, 'desk', key, { method: 'GET', path: `/tickets/${id}/replies` }).then((response) =>
          json<Array<{ body: string }>>(response).map((entry) => entry.body),
        );
      assert.deepEqual(await replies(opened.ticket_id!), ['Where is order 7?', 'Any news?']);
      const eve = json<{ requester: { email: string } }>(
        await helpdeskApi(t.app, 'desk', key, { method: 'GET', path: `/tickets/${filed.ticket_id}` }),
      );
      assert.equal(eve.requester.email, 'eve@elsewhere.example', 'shown as the sender she is');
    });

    it('answers machine-sent mail 202 and files nothing', async () => {
      for (const name of ['auto-reply.eml', 'bounce-dsn.eml']) {
        const response = await mime(raw(name));
        assert.equal(response.statusCode, 202, name);
        const body = json<Filed>(response);
        assert.equal(body.ticket_id, null, name);
        assert.ok(body.ignored, name);
      }
    });

    it('keeps a flooded ticket answerable and searchable: mail bodies capped, each entry indexed on its own', async () => {
      const key = { key: await mintApiKey(t.app, owner, 'desk', ['helpdesk-write']) };
      let next = 0;
      // Distinct words, none a stem of another: what grows a text index fastest.
      const words = (count: number) =>
        Array.from({ length: count }, () => `x${(next++).toString(36).padStart(11, '0')}`).join(' ');
      const mail = (n: number, text: string) =>
        [
          'From: Flo <flo@customer.example>',
          'To: support@help.example.com',
          `Subject: ${n === 0 ? 'Flood' : 'Re: Flood'}`,
          `Message-ID: <flood-${n}@customer.example>`,
          ...(n === 0 ? [] : ['In-Reply-To: <flood-0@customer.example>']),
          '',
          text,
          '',
        ].join('\r\n');
      const opened = await mime(mail(0, 'Help with the flood.'));
      assert.equal(opened.statusCode, 202, opened.body);
      const ticketId = json<Filed>(opened).ticket_id!;
      const firstWord = `x${next.toString(36).padStart(11, '0')}`;
      for (let n = 1; n <= 4; n++) {
        const filed = await mime(mail(n, words(36_000)));
        assert.equal(filed.statusCode, 202, filed.body);
        assert.equal(json<Filed>(filed).ticket_id, ticketId);
      }
      for (let n = 0; n < 8; n++) {
        const reply = await helpdeskApi(t.app, 'desk', key, {
          method: 'POST',
          path: `/tickets/${ticketId}/replies`,
          payload: { body: words(7_600), internal: true },
        });
        assert.equal(reply.statusCode, 201, reply.body);
      }
      const lastWord = `x${(next - 1).toString(36).padStart(11, '0')}`;
      const answer = await helpdeskApi(t.app, 'desk', key, {
        method: 'POST',
        path: `/tickets/${ticketId}/replies`,
        payload: { body: 'Still here: every word above is on file.' },
      });
      assert.equal(answer.statusCode, 201, answer.body);
      for (const word of [firstWord, lastWord, 'flood']) {
        const found = await helpdeskApi(t.app, 'desk', key, { method: 'GET', path: `/tickets?q=${word}` });
        assert.equal(found.statusCode, 200, found.body);
        assert.deepEqual(
          json<Array<{ id: string }>>(found).map((ticket) => ticket.id),
          [ticketId],
          word,
        );
      }
      const thread = json<Array<{ body: string; attachments: Array<{ filename: string; size: number }> }>>(
        await helpdeskApi(t.app, 'desk', key, { method: 'GET', path: `/tickets/${ticketId}/replies?page_size=2` }),
      );
      const flooded = thread[1]!;
      assert.ok(flooded.body.length <= 100_000, `an inbound body is capped as the API's (${flooded.body.length})`);
      assert.deepEqual(
        flooded.attachments.map((attachment) => attachment.filename),
        ['message.txt'],
        'the whole text is kept as an attachment',
      );
      assert.ok(flooded.attachments[0]!.size > 400_000);
    });

    it('checks the secret before reading the body, and reads no more than the bound', async () => {
      // A body that never ends: whatever waits for it before answering never answers.
      const endless = () => {
        let sent = 0;
        const stream = new Readable({
          read() {
            if (sent === 0) this.push(Buffer.alloc(64 * 1024, 'a'));
            sent += 1;
          },
        });
        return stream;
      };
      const answered = (options: { authorization?: string; length: number }) =>
        Promise.race([
          t.app.inject({
            method: 'POST',
            url: '/api/helpdesk/v1/inbound-email',
            headers: {
              host: communityHost('desk'),
              'content-type': 'message/rfc822',
              'content-length': String(options.length),
              ...(options.authorization ? { authorization: options.authorization } : {}),
            },
            payload: endless(),
          }),
          new Promise<never>((_resolve, reject) =>
            setTimeout(() => reject(new Error('the server waited for the body')), 20_000).unref(),
          ),
        ]);
      const unsigned = await answered({ length: 62_000_000 });
      assert.equal(unsigned.statusCode, 401);
      assert.equal(json(unsigned).code, 'inbound_unauthorized');
      const wrong = await answered({ length: 62_000_000, authorization: 'Bearer wrong' });
      assert.equal(wrong.statusCode, 401);
      // 1 MB attachments (the site's setting), base64-encoded, and 2 MiB more: 3,430,485 bytes.
      const declared = await answered({ length: 5_000_000, authorization: 'Bearer inbound-secret' });
      assert.equal(declared.statusCode, 413, declared.body);
      assert.equal(json(declared).code, 'payload_too_large');
      const long = await mime(Buffer.concat([raw('gmail-reply.eml'), Buffer.alloc(3_500_000, 'a')]));
      assert.equal(long.statusCode, 413, long.body);
      assert.equal(json(long).code, 'payload_too_large');
    });

    it('refuses a form of too many parts before parsing it', async () => {
      const fields = Buffer.from('a=1&'.repeat(320_000));
      const response = await deliver('desk', fields, 'application/x-www-form-urlencoded');
      assert.equal(response.statusCode, 422, response.body);
      assert.equal(json(response).code, 'invalid_inbound_email');
      assert.match(json<{ detail: string }>(response).detail, /more than 1000 parts/);
    });

    it('limits requests per client address and per site', async () => {
      await makeCommunity(t.app, owner, 'burst', 'pro');
      const put = await portal(t.app, owner, {
        method: 'PUT',
        url: '/api/instances/burst/env',
        payload: { HELPDESK_INBOUND_SECRET: 'burst-secret' },
      });
      assert.equal(put.statusCode, 200, put.body);
      await portal(t.app, owner, { method: 'POST', url: '/api/instances/burst/restart' });
      const post = (site: string, remoteAddress: string, authorization?: string) =>
        t.app.inject({
          method: 'POST',
          url: '/api/helpdesk/v1/inbound-email',
          remoteAddress,
          headers: {
            host: communityHost(site),
            'content-type': 'application/json',
            ...(authorization ? { authorization } : {}),
          },
          payload: '{}',
        });
      for (let n = 0; n < 60; n++) assert.equal((await post('burst', '198.51.100.1')).statusCode, 401);
      const limited = await post('burst', '198.51.100.1');
      assert.equal(limited.statusCode, 429, limited.body);
      assert.equal(json(limited).code, 'rate_limited');
      assert.ok(Number(limited.headers['retry-after']) > 0);
      assert.equal((await post('burst', '198.51.100.2')).statusCode, 401, 'another address is not limited');
      assert.equal((await post('desk', '198.51.100.1')).statusCode, 401, 'nor is another site');
      // Past the headers, a site takes 300 a minute, from any number of addresses.
      const basic = `Basic ${Buffer.from('postmark:burst-secret').toString('base64')}`;
      for (let n = 0; n < 300; n++) {
        const response = await post('burst', `203.0.113.${Math.floor(n / 50) + 1}`, basic);
        assert.equal(response.statusCode, 422, response.body);
      }
      const site = await post('burst', '203.0.113.100', basic);
      assert.equal(site.statusCode, 429, site.body);
      assert.equal(json(site).code, 'rate_limited');
    });

    it('refuses unsigned, wrongly signed, malformed and oversized mail, and a site without the help desk', async () => {
      const unsigned = await deliver('desk', raw('gmail-reply.eml'), 'message/rfc822');
      assert.equal(unsigned.statusCode, 401);
      assert.equal(json(unsigned).code, 'inbound_unauthorized');
      assert.equal((await mime(raw('gmail-reply.eml'), 'wrong-secret')).statusCode, 401);
      const malformed = await mime(raw('malformed.eml'));
      assert.equal(malformed.statusCode, 422, malformed.body);
      assert.equal(json(malformed).code, 'invalid_inbound_email');
      const big = Buffer.from(
        [
          'From: Big <big@customer.example>',
          'To: support@help.example.com',
          'Subject: Large file',
          'Message-ID: <big-1@customer.example>',
          'MIME-Version: 1.0',
          'Content-Type: multipart/mixed; boundary="b"',
          '',
          '--b',
          'Content-Type: text/plain',
          '',
          'See attached.',
          '--b',
          'Content-Type: application/octet-stream; name="dump.bin"',
          'Content-Disposition: attachment; filename="dump.bin"',
          'Content-Transfer-Encoding: base64',
          '',
          Buffer.alloc(1_200_000, 7).toString('base64').replace(/.{76}/g, '$&\r\n'),
          '--b--',
          '',
        ].join('\r\n'),
      );
      const oversized = await mime(big);
      assert.equal(oversized.statusCode, 413, oversized.body);
      assert.equal(json(oversized).code, 'attachment_too_large');
      const hobby = await deliver('hobby', raw('gmail-reply.eml'), 'message/rfc822', 'Bearer inbound-secret');
      assert.equal(hobby.statusCode, 403);
      assert.equal(json(hobby).code, 'plan_required');
    });
  });
}

for (const database of testDatabases) {
  describe(`help desk mail both ways [${database}]`, () => {
    let sink: SmtpSink;
    let t: TestApp;
    let write: string;
    const inbound = (body: Buffer | string) =>
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
    const api = (method: 'GET' | 'POST' | 'PATCH', path: string, payload?: object) =>
      helpdeskApi(t.app, 'desk', { key: write }, { method, path, ...(payload ? { payload } : {}) });

    before(async () => {
      sink = await startSmtpSink();
      t = await buildTestApp({ database, env: { ...sinkMailEnv(sink) } });
      const owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'desk', 'pro');
      const put = await portal(t.app, owner, {
        method: 'PUT',
        url: '/api/instances/desk/env',
        payload: {
          HELPDESK_SUPPORT_ADDRESS: 'support@help.example.com',
          HELPDESK_INBOUND_SECRET: 'inbound-secret',
          FORUM_TITLE: 'Acme Support',
        },
      });
      assert.equal(put.statusCode, 200, put.body);
      await portal(t.app, owner, { method: 'POST', url: '/api/instances/desk/restart' });
      write = await mintApiKey(t.app, owner, 'desk', ['helpdesk-write']);
    });
    after(async () => {
      await t.close();
      await sink.close();
    });

    it("mails an agent's public reply so that the requester's answer threads back onto the ticket; notes stay inside", async () => {
      const opened = json<Filed>(
        await inbound(
          [
            'From: Ria <ria@customer.example>',
            'To: support@help.example.com',
            'Subject: Invoice is wrong',
            'Message-ID: <ria-1@customer.example>',
            '',
            'The total is off by ten.',
            '',
          ].join('\r\n'),
        ),
      );
      assert.equal(opened.created, true);
      const note = await api('POST', `/tickets/${opened.ticket_id}/replies`, {
        body: 'Checking with billing.',
        internal: true,
      });
      assert.equal(note.statusCode, 201);
      const answer = await api('POST', `/tickets/${opened.ticket_id}/replies`, {
        body: 'Sorry, a corrected invoice is on its way.',
      });
      assert.equal(answer.statusCode, 201, answer.body);
      await t.app.mailOutbox.idle();
      const mails = await eventually(
        'the reply mail',
        async () => (sink.received.length > 0 ? sink.received : undefined),
        5_000,
      );
      assert.equal(mails.length, 1, 'the internal note is not mailed');
      const mail = mails[0]!;
      assert.deepEqual(mail.to, ['ria@customer.example']);
      assert.equal(mail.headers.get('subject'), `Re: [#${opened.number}] Invoice is wrong`);
      assert.equal(mail.headers.get('in-reply-to'), '<ria-1@customer.example>');
      const replyTo = /<?([^<>\s]+@help\.example\.com)>?/.exec(mail.headers.get('reply-to') ?? '')?.[1];
      assert.match(replyTo ?? '', /^support\+t[^@]+@help\.example\.com$/);
      assert.match(decodedBody(mail), /corrected invoice/);
      assert.doesNotMatch(decodedBody(mail), /billing/);

      // The requester answers from a client that keeps only the Reply-To and the quote.
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
      assert.equal(back.statusCode, 202, back.body);
      assert.deepEqual(json<Filed>(back), {
        ticket_id: opened.ticket_id,
        number: opened.number,
        created: true,
        ignored: null,
      });
      const thread = json<Array<{ body: string; internal: boolean; author: { kind: string } }>>(
        await api('GET', `/tickets/${opened.ticket_id}/replies`),
      );
      assert.deepEqual(
        thread.map((entry) => [entry.author.kind, entry.internal, entry.body]),
        [
          ['requester', false, 'The total is off by ten.'],
          ['agent', true, 'Checking with billing.'],
          ['agent', false, 'Sorry, a corrected invoice is on its way.'],
          ['requester', false, 'Thanks, got it.'],
        ],
      );
    });
  });
}
