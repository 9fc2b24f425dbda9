// The mail adapter against a real SMTP server on loopback: password login, STARTTLS when offered,
// implicit TLS, threading headers, a clear failure on a wrong password, and the disabled mailer.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { startSmtpSink, type SmtpSink } from '../../../test/helpers/smtp-sink.js';
import type { MailConfig } from '../../config/index.js';
import { loadConfig } from '../../config/index.js';
import { createMailer, MailDisabledError, type Mailer } from './index.js';

function mailConfig(port: number, overrides: Partial<MailConfig> = {}): MailConfig {
  return {
    server: '127.0.0.1',
    port,
    useTls: false,
    username: undefined,
    password: undefined,
    defaultSender: 'Blume <noreply@blume.test>',
    ...overrides,
  };
}

describe('SMTP mailer', () => {
  const opened: Array<{ sink: SmtpSink; mailer: Mailer }> = [];
  after(async () => {
    for (const { sink, mailer } of opened) {
      await mailer.close();
      await sink.close();
    }
  });

  async function open(sinkOptions: Parameters<typeof startSmtpSink>[0], overrides: Partial<MailConfig> = {}) {
    const sink = await startSmtpSink(sinkOptions);
    // The sink's certificate is self-signed: trust exactly it, as an operator would with a private CA.
    const mailer = await createMailer(mailConfig(sink.port, overrides), {
      tls: { ca: sink.cert, servername: 'localhost' },
    });
    opened.push({ sink, mailer });
    return { sink, mailer };
  }

  it('logs in and sends a threaded reply with its own headers', async () => {
    const { sink, mailer } = await open(
      { auth: { username: 'mailer', password: 's3cret' } },
      { username: 'mailer', password: 's3cret' },
    );
    assert.equal(mailer.driver, 'smtp');
    const sent = await mailer.send({
      to: ['Ada <ada@example.test>', 'bob@example.test'],
      subject: 'Re: Printer on fire',
      text: 'We are on it.\n',
      html: '<p>We are on it.</p>',
      headers: { 'Auto-Submitted': 'auto-replied', 'X-Blume-Ticket': 'T-42' },
      inReplyTo: 'original@mail.example.test',
      references: ['<first@mail.example.test>', 'original@mail.example.test'],
      messageId: 'reply-1@blume.test',
    });
    assert.equal(sent.messageId, '<reply-1@blume.test>');
    const mail = await sink.next(0);
    assert.equal(mail.user, 'mailer');
    assert.equal(mail.from, 'noreply@blume.test');
    assert.deepEqual(mail.to, ['ada@example.test', 'bob@example.test']);
    assert.equal(mail.headers.get('from'), 'Blume <noreply@blume.test>');
    assert.equal(mail.headers.get('subject'), 'Re: Printer on fire');
    assert.equal(mail.headers.get('message-id'), '<reply-1@blume.test>');
    assert.equal(mail.headers.get('in-reply-to'), '<original@mail.example.test>');
    assert.equal(mail.headers.get('references'), '<first@mail.example.test> <original@mail.example.test>');
    assert.equal(mail.headers.get('auto-submitted'), 'auto-replied');
    assert.equal(mail.headers.get('x-blume-ticket'), 'T-42');
    assert.match(mail.headers.get('content-type') ?? '', /multipart\/alternative/);
    assert.match(mail.body, /We are on it\./);
    assert.match(mail.body, /<p>We are on it\.<\/p>/);
  });

  it('generates a Message-ID when none is given, and honours a per-message sender', async () => {
    const { sink, mailer } = await open({});
    const sent = await mailer.send({
      to: 'ada@example.test',
      subject: 'Hello',
      text: 'Hi',
      from: 'Help desk <help@blume.test>',
    });
    assert.match(sent.messageId, /^<[^<>@]+@[^<>]+>$/);
    const mail = await sink.next(0);
    assert.equal(mail.headers.get('message-id'), sent.messageId);
    assert.equal(mail.from, 'help@blume.test');
    assert.equal(mail.user, undefined);
  });

  it('upgrades with STARTTLS when the server offers it', async () => {
    const { sink, mailer } = await open(
      { tls: 'starttls', auth: { username: 'mailer', password: 's3cret' } },
      { username: 'mailer', password: 's3cret' },
    );
    await mailer.send({ to: 'ada@example.test', subject: 'Over STARTTLS', text: 'secret' });
    const mail = await sink.next(0);
    assert.equal(mail.secure, true);
    assert.equal(mail.user, 'mailer');
  });

  it('speaks TLS from the first byte when BLUME_MAIL_USE_TLS is True', async () => {
    const { sink, mailer } = await open({ tls: 'implicit' }, { useTls: true });
    await mailer.send({ to: 'ada@example.test', subject: 'Implicit TLS', text: 'secret' });
    assert.equal((await sink.next(0)).secure, true);
  });

  it('rejects an untrusted certificate instead of sending in the clear', async () => {
    const sink = await startSmtpSink({ tls: 'implicit' });
    const mailer = await createMailer(mailConfig(sink.port, { useTls: true }));
    opened.push({ sink, mailer });
    await assert.rejects(mailer.send({ to: 'ada@example.test', subject: 'x', text: 'x' }), /certificate/i);
    assert.equal(sink.received.length, 0);
  });

  it('fails clearly on a wrong password', async () => {
    const { sink, mailer } = await open(
      { auth: { username: 'mailer', password: 's3cret' } },
      { username: 'mailer', password: 'wrong' },
    );
    await assert.rejects(
      mailer.send({ to: 'ada@example.test', subject: 'x', text: 'x' }),
      /Invalid username or password/,
    );
    assert.equal(sink.received.length, 0);
  });
});

describe('disabled mailer', () => {
  it('is chosen when BLUME_MAIL_SERVER is unset, logs the lost mail and refuses', async () => {
    const config = loadConfig({ BLUME_DATA_DIR: '/nonexistent', SECRET_KEY: 'k'.repeat(40) }, { writeSecret: false });
    const warnings: string[] = [];
    const mailer = await createMailer(config.mail, { warn: (text) => warnings.push(text) });
    assert.equal(mailer.driver, 'disabled');
    await assert.rejects(
      mailer.send({ to: 'ada@example.test', subject: 'Reset your password', text: 'x' }),
      (error: Error) => {
        assert.ok(error instanceof MailDisabledError);
        assert.match(error.message, /BLUME_MAIL_SERVER/);
        return true;
      },
    );
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /ada@example\.test.*Reset your password.*not sent/);
    await mailer.close();
  });

  it('becomes SMTP from the BLUME_MAIL_* settings', async () => {
    const config = loadConfig(
      {
        BLUME_DATA_DIR: '/nonexistent',
        SECRET_KEY: 'k'.repeat(40),
        BLUME_MAIL_SERVER: 'smtp.example.test',
        BLUME_MAIL_PORT: '465',
        BLUME_MAIL_USE_TLS: 'True',
      },
      { writeSecret: false },
    );
    assert.deepEqual(
      { ...config.mail },
      {
        server: 'smtp.example.test',
        port: 465,
        useTls: true,
        username: undefined,
        password: undefined,
        defaultSender: 'Blume <noreply@localhost>',
      },
    );
    const mailer = await createMailer(config.mail);
    assert.equal(mailer.driver, 'smtp');
    await mailer.close();
  });
});
