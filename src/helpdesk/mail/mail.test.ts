import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { AppError } from '../../http/errors.js';
import { parseMime } from './mime.js';
import {
  mailgunSignature,
  readInbound,
  SENDGRID_SIGNATURE_HEADER,
  SENDGRID_TIMESTAMP_HEADER,
  type InboundVerification,
} from './providers.js';
import { replyAddress, subjectTicketNumber, ticketFromRecipients } from './reply-address.js';
import { stripQuotedReply } from './reply-text.js';

const LIMIT = 1024 * 1024;

function fixture(name: string): Buffer {
  return readFileSync(new URL(`../../../test/fixtures/mail/${name}`, import.meta.url));
}

function refusal(code: string): (error: unknown) => boolean {
  return (error) => error instanceof AppError && error.code === code;
}

async function form(fields: Record<string, string | Blob>): Promise<{ contentType: string; body: Buffer }> {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.append(name, value);
  const request = new Request('http://localhost/', { method: 'POST', body: data });
  return { contentType: request.headers.get('content-type')!, body: Buffer.from(await request.arrayBuffer()) };
}

describe('inbound mail: raw MIME from common clients', () => {
  it('reads a Gmail reply: encoded-word subject, quoted-printable UTF-8, threading headers, new text only', async () => {
    const message = await parseMime(fixture('gmail-reply.eml'), LIMIT);
    assert.deepEqual(message.from, { email: 'josephine.martin@gmail.example', name: 'Joséphine Martin' });
    assert.equal(message.subject, 'Re: Facture à zéro €');
    assert.equal(message.messageId, '<CAJx8k2b9Q@mail.gmail.com>');
    assert.equal(message.inReplyTo, '<reply-1@help.example.com>');
    assert.deepEqual(message.references, ['<reply-1@help.example.com>']);
    assert.equal(message.automated, null);
    assert.equal(
      stripQuotedReply(message.text),
      'Thanks, the reset link worked — but the invoice still shows 0 €.\nCould you check?\n\nJoséphine',
    );
  });

  it('reads an Outlook reply: base64 windows-1252 HTML to text, the From/Sent block cut', async () => {
    const message = await parseMime(fixture('outlook-reply.eml'), LIMIT);
    assert.deepEqual(message.from, { email: 'juergen.weiss@outlook.example', name: 'Jürgen Weiß' });
    assert.equal(message.subject, 'AW: [#7] Dashboard lädt nicht');
    assert.equal(subjectTicketNumber(message.subject), 7);
    assert.equal(stripQuotedReply(message.text), 'Hallo, die Übersicht lädt nicht – bitte prüfen.\n\nGrüße\nJürgen');
  });

  it('reads Apple Mail with an inline image and an attachment, the "Sent from my" line cut', async () => {
    const message = await parseMime(fixture('apple-mail-attachments.eml'), LIMIT);
    assert.deepEqual(message.recipients, ['support@help.example.com', 'ops@customer.example']);
    assert.deepEqual(
      message.attachments.map(({ filename, contentType, size, inline }) => ({ filename, contentType, size, inline })),
      [
        { filename: 'screenshot.png', contentType: 'image/png', size: 70, inline: true },
        { filename: 'export-log.pdf', contentType: 'application/pdf', size: 45, inline: false },
      ],
    );
    assert.ok(message.attachments[1]!.content.toString('latin1').startsWith('%PDF-1.4'));
    assert.equal(stripQuotedReply(message.text), 'The CSV export stops at 50%. Screenshot:\n\nLog attached.');
  });

  it('keeps a forwarded message whole', async () => {
    const message = await parseMime(fixture('forwarded.eml'), LIMIT);
    const text = stripQuotedReply(message.text);
    assert.match(text, /^Please handle this one/);
    assert.match(text, /Why were we charged twice in October\?$/);
  });

  it('marks auto-replies, bounces and list mail as machine-sent', async () => {
    const reason = async (raw: string | Buffer) => (await parseMime(raw, LIMIT)).automated;
    assert.deepEqual(await reason(fixture('auto-reply.eml')), {
      kind: 'auto_reply',
      reason: 'Auto-Submitted: auto-replied',
    });
    assert.deepEqual(await reason(fixture('bounce-dsn.eml')), { kind: 'bounce', reason: 'delivery status report' });
    assert.deepEqual(await reason(fixture('mailing-list.eml')), { kind: 'bulk', reason: 'Precedence: list' });
    assert.deepEqual(await reason('From: a@b.example\nX-Autoreply: yes\nSubject: x\n\nhi\n'), {
      kind: 'auto_reply',
      reason: 'x-autoreply',
    });
    assert.deepEqual(await reason('From: a@b.example\nPrecedence: bulk\nSubject: x\n\nhi\n'), {
      kind: 'bulk',
      reason: 'Precedence: bulk',
    });
    assert.equal((await parseMime('From: a@b.example\nAuto-Submitted: no\nSubject: x\n\nhi\n', LIMIT)).automated, null);
  });

  it('refuses malformed MIME and a message without a From address', async () => {
    await assert.rejects(parseMime(fixture('malformed.eml'), LIMIT), refusal('invalid_inbound_email'));
    await assert.rejects(parseMime(fixture('no-from.eml'), LIMIT), refusal('invalid_inbound_email'));
    await assert.rejects(parseMime(Buffer.alloc(0), LIMIT), refusal('invalid_inbound_email'));
  });

  it('refuses an attachment over the limit, naming it', async () => {
    await assert.rejects(
      parseMime(fixture('apple-mail-attachments.eml'), 50),
      (error: unknown) =>
        refusal('attachment_too_large')(error) &&
        /screenshot\.png.*70 bytes.*up to 50 bytes/.test((error as Error).message),
    );
  });
});

describe('inbound mail: quoted history and signatures', () => {
  it('cuts at attributions, Outlook rules, signatures and drops > lines', () => {
    assert.equal(
      stripQuotedReply('Yes.\n\nOn Tue, Nov 24, 2026 at 9:00 AM Support <s@x.example>\nwrote:\n> old'),
      'Yes.',
    );
    assert.equal(
      stripQuotedReply('Oui.\n\nLe lun. 23 nov. 2026 à 10:00, Support <s@x.example> a écrit :\n> old'),
      'Oui.',
    );
    assert.equal(stripQuotedReply('Ja.\n\nAm 23.11.2026 um 10:00 schrieb Support <s@x.example>:\n> alt'), 'Ja.');
    assert.equal(stripQuotedReply('Done.\n\n-----Original Message-----\nFrom: s@x.example\nold'), 'Done.');
    assert.equal(stripQuotedReply('Done.\n________________________________\nFrom: s@x.example\nold'), 'Done.');
    assert.equal(stripQuotedReply('See below.\n> a quote\nMy answer.\n-- \nAna\nACME'), 'See below.\nMy answer.');
    assert.equal(stripQuotedReply('> only a quote'), '> only a quote');
  });
});

describe('inbound mail: signed reply addresses', () => {
  const key = 'k'.repeat(40);

  it('round-trips a ticket id, refuses another site, a changed MAC or a changed id', () => {
    const address = replyAddress('support@help.example.com', key, 'site1', 'mh2k3l4m5n6p7q8r');
    assert.match(address, /^support\+tmh2k3l4m5n6p7q8r-[0-9a-f]{20}@help\.example\.com$/);
    assert.equal(ticketFromRecipients(['other@x.example', address], key, 'site1'), 'mh2k3l4m5n6p7q8r');
    assert.equal(ticketFromRecipients([address.toUpperCase()], key, 'site1'), 'mh2k3l4m5n6p7q8r');
    assert.equal(ticketFromRecipients([address], key, 'site2'), undefined);
    assert.equal(ticketFromRecipients([address], 'x'.repeat(40), 'site1'), undefined);
    assert.equal(ticketFromRecipients([address.replace('tmh2', 'tmh3')], key, 'site1'), undefined);
    assert.equal(
      ticketFromRecipients(
        [address.replace(/-([0-9a-f])/, (_m, c: string) => `-${c === '0' ? '1' : '0'}`)],
        key,
        'site1',
      ),
      undefined,
    );
  });

  it('finds a [#number] subject tag', () => {
    assert.equal(subjectTicketNumber('Re: [#42] Broken export'), 42);
    assert.equal(subjectTicketNumber('Re: #42 Broken export'), undefined);
  });
});

describe('inbound mail: provider payloads', () => {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const verification: InboundVerification = {
    inboundSecret: 'inbound-secret-123',
    mailgunSigningKey: 'mailgun-key-456',
    sendgridPublicKey: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
    maxAttachmentBytes: LIMIT,
    // Replays are the database's to refuse (inbound-routes.test.ts); every token is new here.
    takeMailgunToken: async () => true,
  };

  it('raw MIME needs the Bearer secret', async () => {
    const body = fixture('gmail-reply.eml');
    const ok = await readInbound(
      { contentType: 'message/rfc822', headers: { authorization: 'Bearer inbound-secret-123' }, body },
      verification,
    );
    assert.equal(ok.source, 'mime');
    assert.equal(ok.message.messageId, '<CAJx8k2b9Q@mail.gmail.com>');
    await assert.rejects(
      readInbound({ contentType: 'message/rfc822', headers: { authorization: 'Bearer wrong' }, body }, verification),
      refusal('inbound_unauthorized'),
    );
    await assert.rejects(
      readInbound({ contentType: 'message/rfc822', headers: {}, body }, verification),
      refusal('inbound_unauthorized'),
    );
    await assert.rejects(
      readInbound(
        { contentType: 'message/rfc822', headers: { authorization: 'Bearer inbound-secret-123' }, body },
        { ...verification, inboundSecret: undefined },
      ),
      refusal('inbound_unauthorized'),
    );
  });

  it('Postmark JSON with basic auth', async () => {
    const payload = {
      FromFull: { Email: 'Lee@Customer.example', Name: 'Lee' },
      ToFull: [{ Email: 'support@help.example.com' }],
      Subject: 'Cannot log in',
      MessageID: 'pm-1',
      TextBody: 'It says wrong password.\n\nOn Mon, Support wrote:\n> hi',
      Headers: [
        { Name: 'Message-ID', Value: '<abc@customer.example>' },
        { Name: 'In-Reply-To', Value: '<r1@help.example.com>' },
      ],
      Attachments: [
        {
          Name: 'a.txt',
          Content: Buffer.from('hello').toString('base64'),
          ContentType: 'text/plain',
          ContentLength: 5,
        },
      ],
    };
    const body = Buffer.from(JSON.stringify(payload));
    const auth = `Basic ${Buffer.from('postmark:inbound-secret-123').toString('base64')}`;
    const { source, message } = await readInbound(
      { contentType: 'application/json', headers: { authorization: auth }, body },
      verification,
    );
    assert.equal(source, 'postmark');
    assert.deepEqual(message.from, { email: 'lee@customer.example', name: 'Lee' });
    assert.equal(message.messageId, '<abc@customer.example>');
    assert.equal(message.inReplyTo, '<r1@help.example.com>');
    assert.equal(stripQuotedReply(message.text), 'It says wrong password.');
    assert.deepEqual(
      message.attachments.map((a) => [a.filename, a.size]),
      [['a.txt', 5]],
    );
    const wrong = `Basic ${Buffer.from('postmark:nope').toString('base64')}`;
    await assert.rejects(
      readInbound({ contentType: 'application/json', headers: { authorization: wrong }, body }, verification),
      refusal('inbound_unauthorized'),
    );
    await assert.rejects(
      readInbound(
        { contentType: 'application/json', headers: { authorization: auth }, body: Buffer.from('{nope') },
        verification,
      ),
      refusal('invalid_inbound_email'),
    );
  });

  it('Mailgun route form with its HMAC signature, parsed and MIME forms', async () => {
    const now = Date.now();
    const timestamp = String(Math.floor(now / 1000));
    const token = 'a'.repeat(50);
    const signature = mailgunSignature('mailgun-key-456', timestamp, token);
    const parsed = await form({
      timestamp,
      token,
      signature,
      from: 'Kim <kim@customer.example>',
      recipient: 'support@help.example.com',
      subject: '[#3] Still broken',
      'body-plain': 'Still broken.\n-- \nKim',
      'message-headers': JSON.stringify([
        ['Message-Id', '<mg-1@customer.example>'],
        ['References', '<r1@help.example.com> <r2@help.example.com>'],
      ]),
      'attachment-1': new File([Buffer.from('log line')], 'log.txt', { type: 'text/plain' }),
    });
    const { source, message } = await readInbound({ ...parsed, headers: {} }, verification, now);
    assert.equal(source, 'mailgun');
    assert.equal(message.messageId, '<mg-1@customer.example>');
    assert.deepEqual(message.references, ['<r1@help.example.com>', '<r2@help.example.com>']);
    assert.equal(stripQuotedReply(message.text), 'Still broken.');
    assert.deepEqual(
      message.attachments.map((a) => [a.filename, a.contentType, a.size]),
      [['log.txt', 'text/plain', 8]],
    );

    const mime = await form({ timestamp, token, signature, 'body-mime': fixture('gmail-reply.eml').toString('utf8') });
    assert.equal(
      (await readInbound({ ...mime, headers: {} }, verification, now)).message.subject,
      'Re: Facture à zéro €',
    );

    const forged = await form({
      timestamp,
      token,
      signature: mailgunSignature('other-key', timestamp, token),
      from: 'kim@customer.example',
    });
    await assert.rejects(readInbound({ ...forged, headers: {} }, verification, now), refusal('inbound_unauthorized'));
    // A captured request replayed an hour later.
    await assert.rejects(
      readInbound({ ...parsed, headers: {} }, verification, now + 3600_000),
      refusal('inbound_unauthorized'),
    );
  });

  it('SendGrid Inbound Parse with its ECDSA signature, raw and parsed modes', async () => {
    const now = Date.now();
    const timestamp = String(Math.floor(now / 1000));
    const signed = (body: Buffer) => ({
      [SENDGRID_SIGNATURE_HEADER]: sign('sha256', Buffer.concat([Buffer.from(timestamp), body]), privateKey).toString(
        'base64',
      ),
      [SENDGRID_TIMESTAMP_HEADER]: timestamp,
    });

    const raw = await form({ email: fixture('outlook-reply.eml').toString('latin1'), to: 'support@help.example.com' });
    const fromRaw = await readInbound({ ...raw, headers: signed(raw.body) }, verification, now);
    assert.equal(fromRaw.source, 'sendgrid');
    assert.equal(fromRaw.message.from.email, 'juergen.weiss@outlook.example');

    const parsed = await form({
      headers: 'Message-ID: <sg-1@customer.example>\r\nIn-Reply-To: <r1@help.example.com>\r\nSubject: Hello',
      from: '"Pat, Jr." <pat@customer.example>',
      to: 'support@help.example.com',
      subject: 'Hello',
      html: '<p>Hello <b>there</b></p>',
      envelope: JSON.stringify({ to: ['support+t123@help.example.com'], from: 'pat@customer.example' }),
      attachments: '1',
      attachment1: new File([Buffer.from('%PDF')], 'x.pdf', { type: 'application/pdf' }),
    });
    const { message } = await readInbound({ ...parsed, headers: signed(parsed.body) }, verification, now);
    assert.deepEqual(message.from, { email: 'pat@customer.example', name: 'Pat, Jr.' });
    assert.equal(message.messageId, '<sg-1@customer.example>');
    assert.equal(message.text, 'Hello there');
    assert.deepEqual(message.recipients, ['support@help.example.com', 'support+t123@help.example.com']);
    assert.deepEqual(
      message.attachments.map((a) => a.filename),
      ['x.pdf'],
    );

    const tampered = Buffer.from(parsed.body.toString('latin1').replace('Hello <b>there', 'Hello <b>thera'), 'latin1');
    await assert.rejects(
      readInbound({ contentType: parsed.contentType, body: tampered, headers: signed(parsed.body) }, verification, now),
      refusal('inbound_unauthorized'),
    );
    await assert.rejects(readInbound({ ...parsed, headers: {} }, verification, now), refusal('inbound_unauthorized'));
    await assert.rejects(
      readInbound({ ...parsed, headers: signed(parsed.body) }, { ...verification, sendgridPublicKey: undefined }, now),
      refusal('inbound_unauthorized'),
    );
  });

  it('refuses an unknown content type', async () => {
    await assert.rejects(
      readInbound({ contentType: 'text/plain', headers: {}, body: Buffer.from('x') }, verification),
      refusal('invalid_inbound_email'),
    );
  });
});
