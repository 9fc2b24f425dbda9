// The whole mail loop on both databases against a real SMTP sink: an agent's public reply goes out
// through the outbox with its Message-ID, In-Reply-To, References and signed Reply-To; the
// requester's answer to that mail (as their client would write it) threads back onto the ticket,
// and a second delivery of the answer changes nothing.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Fastify from 'fastify';
import { createLocalBlobStore } from '../../adapters/blobs/local.js';
import type { BlobStore } from '../../adapters/blobs/index.js';
import { createMailer, type Mailer } from '../../adapters/mail/index.js';
import { sealSetting } from '../../core/settings/service.js';
import { createSite } from '../../core/sites/service.js';
import type { Database } from '../../db/client.js';
import { MailOutbox } from '../../jobs/mail-outbox.js';
import { startSmtpSink, type SmtpSink } from '../../../test/helpers/smtp-sink.js';
import { createTestDatabase, testDatabases, type TestDatabase } from '../../../test/helpers/databases.js';
import { threadMessageIds } from '../tickets.js';
import { receiveInbound } from './inbound.js';
import { replyByMail } from './outgoing.js';

const SECRET_KEY = 'k'.repeat(48);
const SITE = 'desk';

for (const database of testDatabases) {
  describe(`help desk mail loop [${database}]`, () => {
    let testDb: TestDatabase;
    let db: Database;
    let blobs: BlobStore;
    let dir = '';
    let sink: SmtpSink;
    let mailer: Mailer;
    let outbox: MailOutbox;
    const settings = {
      HELPDESK_SUPPORT_ADDRESS: 'support@help.example.com',
      HELPDESK_INBOUND_SECRET: sealSetting('inbound-secret', SECRET_KEY),
    };
    const mime = (body: string) =>
      receiveInbound({ db, blobs, secretKey: SECRET_KEY }, SITE, settings, {
        contentType: 'message/rfc822',
        headers: { authorization: 'Bearer inbound-secret' },
        body: Buffer.from(body),
      });

    before(async () => {
      testDb = await createTestDatabase(database);
      db = testDb.handle.db;
      dir = await mkdtemp(path.join(tmpdir(), 'hdmail-loop-'));
      blobs = createLocalBlobStore(dir);
      await createSite(db, null, { id: SITE, kind: 'community', plan: 'pro' });
      sink = await startSmtpSink({ tls: 'none' });
      mailer = await createMailer({
        server: '127.0.0.1',
        port: sink.port,
        useTls: false,
        username: undefined,
        password: undefined,
        defaultSender: 'Blume <noreply@blume.test>',
      });
      outbox = new MailOutbox(db, mailer, Fastify({ logger: false }).log, { embeddedDatabase: database === 'pglite' });
      await outbox.start();
    });
    after(async () => {
      await outbox.stop();
      await mailer.close();
      await sink.close();
      await testDb.drop();
      await rm(dir, { recursive: true, force: true });
    });

    it('mails an agent reply that the requester answers back onto the same ticket', async () => {
      const opened = await mime(
        'From: Lee <lee@customer.example>\nTo: support@help.example.com\nSubject: Login loop\nMessage-ID: <first@customer.example>\n\nI keep getting logged out.\n',
      );
      const ticket = opened.ticket!;
      const seen = sink.received.length;
      const reply = await replyByMail(
        db,
        ticket,
        { body: 'Please clear your cookies and try again.', memberId: null },
        { kind: 'member', id: null },
        { supportAddress: 'support@help.example.com', senderName: 'Acme', secretKey: SECRET_KEY, acknowledges: false },
      );
      outbox.drainSoon();
      const sent = await sink.next(seen);

      assert.deepEqual(sent.to, ['lee@customer.example']);
      assert.equal(sent.headers.get('message-id'), reply.entry.messageId);
      assert.equal(sent.headers.get('in-reply-to'), '<first@customer.example>');
      assert.equal(sent.headers.get('references'), '<first@customer.example>');
      assert.equal(sent.headers.get('subject'), `Re: [#${ticket.number}] Login loop`);
      assert.equal(sent.headers.get('from'), 'Acme <support@help.example.com>');
      const replyTo = sent.headers.get('reply-to')!;
      assert.match(replyTo, new RegExp(`^support\\+t${ticket.id}-[0-9a-f]{20}@help\\.example\\.com$`));

      // The requester's client answers to Reply-To, quoting the agent's mail.
      const answer = [
        'From: Lee <lee@customer.example>',
        `To: ${replyTo}`,
        `Subject: ${sent.headers.get('subject')}`,
        'Message-ID: <answer@customer.example>',
        `In-Reply-To: ${sent.headers.get('message-id')}`,
        `References: <first@customer.example> ${sent.headers.get('message-id')}`,
        '',
        'That fixed it, thanks!',
        '',
        `On Mon, 23 Nov 2026, Acme <support@help.example.com> wrote:`,
        '> Please clear your cookies and try again.',
        '',
      ].join('\r\n');
      const threaded = await mime(answer);
      assert.deepEqual([threaded.ticket!.id, threaded.created], [ticket.id, true]);
      const again = await mime(answer);
      assert.deepEqual([again.ticket!.id, again.created], [ticket.id, false]);
      assert.deepEqual(await threadMessageIds(db, ticket.id), [
        '<first@customer.example>',
        reply.entry.messageId,
        '<answer@customer.example>',
      ]);
      const entries = await db.query.helpdeskEntries.findMany({
        where: (e, { eq }) => eq(e.ticketId, ticket.id),
        orderBy: (e, { asc }) => [asc(e.createdAt), asc(e.id)],
      });
      assert.equal(entries.at(-1)!.bodySource, 'That fixed it, thanks!');
      assert.equal(entries.at(-1)!.authorKind, 'requester');

      // An out-of-office answer to the same mail is filed on the ticket as automatic; no mail goes back.
      const ooo = await mime(
        answer.replace(
          'Message-ID: <answer@customer.example>',
          'Message-ID: <ooo@customer.example>\r\nAuto-Submitted: auto-replied',
        ),
      );
      assert.equal(ooo.ticket?.id, ticket.id);
      assert.equal(ooo.ignored, 'Auto-Submitted: auto-replied');
      await outbox.idle();
      assert.equal(sink.received.length, seen + 1);
    });
  });
}
