// Inbound e-mail on both databases: raw MIME and each provider's payload become tickets, replies
// thread back by signed address, by References and by subject tag (only from the requester), a
// duplicate delivery (with attachments or without) answers the same ticket, machine-sent mail is dropped, and attachments land in
// the blob store.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { createLocalBlobStore } from '../../adapters/blobs/local.js';
import type { BlobStore } from '../../adapters/blobs/index.js';
import { sealSetting } from '../../core/settings/service.js';
import { createSite } from '../../core/sites/service.js';
import type { Database } from '../../db/client.js';
import { createTestDatabase, testDatabases, type TestDatabase } from '../../../test/helpers/databases.js';
import { AppError } from '../../http/errors.js';
import { threadMessageIds } from '../tickets.js';
import { receiveInbound } from './inbound.js';
import { replyAddress } from './reply-address.js';

const SECRET_KEY = 's'.repeat(48);
const SITE = 'desk';

function raw(name: string): Buffer {
  return readFileSync(new URL(`../../../test/fixtures/mail/${name}`, import.meta.url));
}

for (const database of testDatabases) {
  describe(`help desk inbound e-mail [${database}]`, () => {
    let testDb: TestDatabase;
    let db: Database;
    let blobs: BlobStore;
    let dir = '';
    const settings = {
      HELPDESK_SUPPORT_ADDRESS: 'support@help.example.com',
      HELPDESK_INBOUND_SECRET: sealSetting('inbound-secret', SECRET_KEY),
      HELPDESK_MAILGUN_SIGNING_KEY: sealSetting('mg-key', SECRET_KEY),
    };
    const deps = () => ({ db, blobs, secretKey: SECRET_KEY });
    const receive = (body: Buffer | string) =>
      receiveInbound(deps(), SITE, settings, {
        contentType: 'message/rfc822',
        headers: { authorization: 'Bearer inbound-secret' },
        body: Buffer.from(body),
      });

    const mime = receive;

    before(async () => {
      testDb = await createTestDatabase(database);
      db = testDb.handle.db;
      dir = await mkdtemp(path.join(tmpdir(), 'hdmail-'));
      blobs = createLocalBlobStore(dir);
      await createSite(db, null, { id: SITE, kind: 'community', plan: 'pro' });
    });
    after(async () => {
      await testDb.drop();
      await rm(dir, { recursive: true, force: true });
    });

    it('opens a ticket from raw MIME with its attachments in the blob store; a duplicate answers the same ticket', async () => {
      const first = await mime(raw('apple-mail-attachments.eml'));
      assert.equal(first.created, true);
      assert.equal(first.ticket!.subject, 'Export fails with a screenshot');
      assert.equal(first.ticket!.channel, 'email');
      const again = await mime(raw('apple-mail-attachments.eml'));
      assert.deepEqual([again.created, again.ticket!.id], [false, first.ticket!.id]);
      assert.deepEqual(await threadMessageIds(db, first.ticket!.id), [
        '<5E2C1A9B-7F3D-4C1E-9A7B-1234567890AB@icloud.example>',
      ]);
      const [entry] = await db.query.helpdeskEntries.findMany({
        where: (e, { eq }) => eq(e.ticketId, first.ticket!.id),
      });
      // A first message is kept whole: only replies lose their quote and signature.
      assert.equal(
        entry!.bodySource,
        'The CSV export stops at 50%. Screenshot:\n\nLog attached.\n\nSent from my iPhone',
      );
      assert.deepEqual(
        entry!.attachments.map((a) => [a.filename, a.size]),
        [
          ['screenshot.png', 70],
          ['export-log.pdf', 45],
          // The HTML body, which agents see sanitized (decision 0128).
          ['message.html', 157],
        ],
      );
      assert.ok((await blobs.read(entry!.attachments[1]!.key))!.toString('latin1').startsWith('%PDF'));
    });

    it('threads by signed reply address, then References from its people, then subject tag from the requester only', async () => {
      // More mails than a sender may send in a minute (the throttle has its own test): each arrives a
      // minute after what came before, as the history says (its append-only trigger is off meanwhile).
      const mime = async (body: string) => {
        await db.transaction(async (tx) => {
          await tx.execute(sql`alter table helpdesk_history disable trigger user`);
          await tx.execute(sql`update helpdesk_history set created_at = created_at - interval '1 minute'`);
          await tx.execute(sql`alter table helpdesk_history enable trigger user`);
        });
        return receive(body);
      };
      const opened = await mime(
        'From: Ana <ana@customer.example>\nTo: support@help.example.com\nSubject: Printer\nMessage-ID: <p1@customer.example>\n\nIt jams.\n',
      );
      const ticket = opened.ticket!;
      const address = replyAddress('support@help.example.com', SECRET_KEY, SITE, ticket.id);
      const byToken = await mime(
        `From: ana@customer.example\nTo: ${address}\nSubject: Re: something else\nMessage-ID: <p2@customer.example>\n\nStill jams.\n\nOn Mon, Support wrote:\n> try again\n`,
      );
      assert.deepEqual([byToken.ticket!.id, byToken.created], [ticket.id, true]);
      const forged = await mime(
        `From: ana@customer.example\nTo: ${address.replace(/-[0-9a-f]/, '-x')}\nSubject: Other\nMessage-ID: <p3@customer.example>\n\nNew thing.\n`,
      );
      assert.notEqual(forged.ticket!.id, ticket.id);
      // Knowing a Message-ID of the thread is not enough: only its people thread by reference.
      const strangerReference = await mime(
        'From: bo@customer.example\nTo: support@help.example.com\nSubject: Re: Printer\nMessage-ID: <p4b@customer.example>\nReferences: <unknown@x.example> <p2@customer.example>\n\nMe too.\n',
      );
      assert.notEqual(strangerReference.ticket!.id, ticket.id);
      const byReference = await mime(
        'From: ana@customer.example\nTo: support@help.example.com\nSubject: Re: Printer\nMessage-ID: <p4@customer.example>\nReferences: <unknown@x.example> <p2@customer.example>\n\nMe too.\n',
      );
      assert.equal(byReference.ticket!.id, ticket.id);
      // Someone who wrote on the thread (through its signed address) is one of its people.
      await mime(
        `From: cy@customer.example\nTo: ${address}\nSubject: Re: Printer\nMessage-ID: <p4c@customer.example>\n\nMine too.\n`,
      );
      const participant = await mime(
        'From: cy@customer.example\nTo: support@help.example.com\nSubject: Re: Printer\nMessage-ID: <p4d@customer.example>\nIn-Reply-To: <p4@customer.example>\n\nStill.\n',
      );
      assert.equal(participant.ticket!.id, ticket.id);
      const byTag = await mime(
        `From: ana@customer.example\nTo: support@help.example.com\nSubject: Re: [#${ticket.number}] Printer\nMessage-ID: <p5@customer.example>\n\nAny news?\n`,
      );
      assert.equal(byTag.ticket!.id, ticket.id);
      const strangerTag = await mime(
        `From: eve@elsewhere.example\nTo: support@help.example.com\nSubject: [#${ticket.number}] Printer\nMessage-ID: <p6@elsewhere.example>\n\nHi\n`,
      );
      assert.notEqual(strangerTag.ticket!.id, ticket.id);
      // Deliveries again, without attachments: the first ticket answers, nothing is written twice.
      const openedAgain = await mime(
        'From: Ana <ana@customer.example>\nTo: support@help.example.com\nSubject: Printer\nMessage-ID: <p1@customer.example>\n\nIt jams.\n',
      );
      const tagAgain = await mime(
        `From: ana@customer.example\nTo: support@help.example.com\nSubject: Re: [#${ticket.number}] Printer\nMessage-ID: <p5@customer.example>\n\nAny news?\n`,
      );
      assert.deepEqual(
        [openedAgain.ticket!.id, openedAgain.created, tagAgain.ticket!.id, tagAgain.created],
        [ticket.id, false, ticket.id, false],
      );
      assert.deepEqual(await threadMessageIds(db, ticket.id), [
        '<p1@customer.example>',
        '<p2@customer.example>',
        '<p4@customer.example>',
        '<p4c@customer.example>',
        '<p4d@customer.example>',
        '<p5@customer.example>',
      ]);
      const entries = await db.query.helpdeskEntries.findMany({
        where: (e, { eq }) => eq(e.ticketId, ticket.id),
        orderBy: (e, { asc }) => [asc(e.createdAt), asc(e.id)],
      });
      assert.equal(entries[1]!.bodySource, 'Still jams.');
    });

    it('drops auto-replies, bounces and list mail without a ticket', async () => {
      for (const name of ['auto-reply.eml', 'bounce-dsn.eml', 'mailing-list.eml']) {
        const result = await mime(raw(name));
        assert.equal(result.ticket, null, name);
        assert.ok(result.ignored, name);
      }
    });

    it('takes a Postmark payload and a signed Mailgun form; refuses bad signatures and oversize attachments', async () => {
      const postmark = Buffer.from(
        JSON.stringify({
          FromFull: { Email: 'pm@customer.example', Name: 'PM' },
          ToFull: [{ Email: 'support@help.example.com' }],
          Subject: 'Via Postmark',
          TextBody: 'Hello',
          Headers: [{ Name: 'Message-ID', Value: '<pm1@customer.example>' }],
        }),
      );
      const auth = (password: string) => `Basic ${Buffer.from(`u:${password}`).toString('base64')}`;
      const viaPostmark = await receiveInbound(deps(), SITE, settings, {
        contentType: 'application/json',
        headers: { authorization: auth('inbound-secret') },
        body: postmark,
      });
      assert.equal(viaPostmark.source, 'postmark');
      assert.equal(viaPostmark.ticket!.subject, 'Via Postmark');
      const refused = receiveInbound(deps(), SITE, settings, {
        contentType: 'application/json',
        headers: { authorization: auth('wrong') },
        body: postmark,
      });
      await assert.rejects(refused, (error: unknown) => error instanceof AppError && error.status === 401);

      const timestamp = String(Math.floor(Date.now() / 1000));
      const form = new FormData();
      for (const [name, value] of Object.entries({
        timestamp,
        token: 't'.repeat(50),
        signature: createHmac('sha256', 'mg-key')
          .update(`${timestamp}${'t'.repeat(50)}`)
          .digest('hex'),
        from: 'mg@customer.example',
        recipient: 'support@help.example.com',
        subject: 'Via Mailgun',
        'body-plain': 'Hi',
        'Message-Id': '<mg1@customer.example>',
      }))
        form.append(name, value);
      const request = new Request('http://localhost/', { method: 'POST', body: form });
      const viaMailgun = await receiveInbound(deps(), SITE, settings, {
        contentType: request.headers.get('content-type')!,
        headers: {},
        body: Buffer.from(await request.arrayBuffer()),
      });
      assert.deepEqual([viaMailgun.source, viaMailgun.ticket!.subject], ['mailgun', 'Via Mailgun']);

      const small = { ...settings, HELPDESK_ATTACHMENT_MAX_BYTES: '50' };
      const tooLarge = receiveInbound(deps(), SITE, small, {
        contentType: 'message/rfc822',
        headers: { authorization: 'Bearer inbound-secret' },
        body: raw('apple-mail-attachments.eml'),
      });
      await assert.rejects(
        tooLarge,
        (error: unknown) => error instanceof AppError && error.code === 'attachment_too_large' && error.status === 413,
      );
    });
  });
}
