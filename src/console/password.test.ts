// The console's forgotten-password flow against a real SMTP server on loopback: the same answer
// whether or not an account matches, a link to BLUME_PUBLIC_URL whatever Host the request named,
// the link sets the password once and ends the account's other sessions; per-account and per-client
// limits; a server without mail says so.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { buildTestApp, portal, PORTAL_HOST, signIn, type Actor, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { eventually } from '../../test/helpers/eventually.js';
import { pageText, UiClient } from '../../test/helpers/forum-ui.js';
import { decodedBody, type ReceivedMail, type SmtpSink } from '../../test/helpers/smtp-sink.js';
import { buildMailingApp } from '../../test/helpers/mail-app.js';
import { accountTokens } from '../core/accounts/tables.js';
import { ASKED_MAILS_PER_HOUR } from '../jobs/mail-outbox.js';

const LINK = /http:\/\/blume\.test\/password\/set\/([0-9a-z]{16})\.[A-Za-z0-9_-]{43}/;

function linkIn(mail: ReceivedMail): { path: string; id: string } {
  const match = LINK.exec(decodedBody(mail));
  assert.ok(match, `no password link in:\n${decodedBody(mail)}`);
  return { path: match[0].slice('http://blume.test'.length), id: match[1]! };
}

for (const database of testDatabases) {
  describe(`forgotten console passwords [${database}]`, () => {
    let sink: SmtpSink;
    let t: TestApp;
    let pia: Actor;

    const mailsTo = async (address: string) => {
      await t.app.mailOutbox.idle();
      return sink.received.filter((mail) => mail.to.includes(address));
    };
    const nextMailTo = (address: string, seen: number) =>
      eventually(`mail number ${seen + 1} for ${address}`, async () => (await mailsTo(address))[seen], 5_000);
    const login = (name: string, password: string) =>
      portal(t.app, undefined, { method: 'POST', url: '/api/auth/login', payload: { login: name, password } });
    const ask = (client: UiClient, name: string) =>
      client.submit('/password/forgot', '/password/forgot', { login: name });

    before(async () => {
      ({ t, sink } = await buildMailingApp(database));
      pia = await signIn(t.app, 'pia');
    });
    after(async () => {
      await t.close();
      await sink.close();
    });

    it('mails a link that sets a new password once, ending every other session', async () => {
      const visitor = new UiClient(t.app, PORTAL_HOST);
      const loginPage = await visitor.get('/login');
      assert.match(loginPage.body, /<a href="\/password\/forgot">Forgot your password\?<\/a>/);
      const sent = await ask(visitor, 'PIA@example.test');
      assert.equal(sent.statusCode, 200, sent.body);
      assert.match(pageText(sent.body), /Check your mail/);
      const unknown = await ask(new UiClient(t.app, PORTAL_HOST), 'nobody@example.test');
      assert.equal(unknown.statusCode, 200);
      assert.equal(pageText(unknown.body), pageText(sent.body), 'the same answer when no account matches');

      const mail = await nextMailTo('pia@example.test', 0);
      assert.match(mail.headers.get('subject') ?? '', /A new password for your Blume account/);
      const link = linkIn(mail);
      const [row] = await t.deps.database.db.select().from(accountTokens).where(eq(accountTokens.id, link.id));
      assert.equal(row?.purpose, 'reset');
      const lifetime = row!.expiresAt.getTime() - Date.now();
      assert.ok(lifetime > 59 * 60 * 1000 && lifetime <= 3600 * 1000, 'valid for one hour');

      const page = await visitor.get(link.path);
      assert.equal(page.statusCode, 200);
      assert.match(pageText(page.body), /Choose a new password.*For the account pia/);
      const set = await visitor.post(link.path, { password: 'pia-remembers-now-42' });
      assert.equal(set.statusCode, 303, set.body);
      assert.equal(set.headers.location, '/');
      assert.match(pageText((await visitor.get('/account')).body), /Your account.*pia@example\.test/);
      assert.equal(
        (await portal(t.app, pia, { method: 'GET', url: '/api/me' })).statusCode,
        401,
        'the session from before the reset ended',
      );
      assert.equal((await login('pia', pia.password)).statusCode, 401);
      assert.equal((await login('pia', 'pia-remembers-now-42')).statusCode, 200);

      const reused = await new UiClient(t.app, PORTAL_HOST).get(link.path);
      assert.equal(reused.statusCode, 410);
      assert.match(pageText(reused.body), /This link no longer works/);
      assert.equal((await mailsTo('nobody@example.test')).length, 0);
    });

    it('keeps only the newest link alive and answers 410 to an expired one', async () => {
      const seen = (await mailsTo('pia@example.test')).length;
      const client = new UiClient(t.app, PORTAL_HOST);
      await ask(client, 'pia');
      const older = linkIn(await nextMailTo('pia@example.test', seen));
      await ask(client, 'pia');
      const newer = linkIn(await nextMailTo('pia@example.test', seen + 1));
      assert.equal((await client.get(older.path)).statusCode, 410, 'a newer mail replaced the older link');
      assert.equal((await client.get(newer.path)).statusCode, 200);
      await t.deps.database.db
        .update(accountTokens)
        .set({ expiresAt: new Date(Date.now() - 1000) })
        .where(eq(accountTokens.id, newer.id));
      assert.equal((await client.get(newer.path)).statusCode, 410);
      await client.get('/login');
      assert.equal((await client.post(newer.path, { password: 'pia-too-late-12345' })).statusCode, 410);
      assert.equal((await login('pia', 'pia-too-late-12345')).statusCode, 401);
    });

    it('links to BLUME_PUBLIC_URL whatever Host the request named', async () => {
      const seen = (await mailsTo('pia@example.test')).length;
      const forged = new UiClient(t.app, 'attacker.example');
      assert.equal((await ask(forged, 'pia')).statusCode, 200);
      const mail = await nextMailTo('pia@example.test', seen);
      assert.doesNotMatch(decodedBody(mail), /attacker\.example/);
      linkIn(mail);
    });

    it('refuses a form without its CSRF token and sends nothing', async () => {
      const quinn = await signIn(t.app, 'quinn');
      const client = new UiClient(t.app, PORTAL_HOST);
      await client.get('/password/forgot');
      const refused = await client.post('/password/forgot', { login: 'quinn' }, { csrf: false });
      assert.equal(refused.statusCode, 403);
      assert.match(pageText(refused.body), /reload the page/);
      assert.deepEqual(await mailsTo(quinn.user.email), []);
      const empty = await client.post('/password/forgot', { login: ' ' });
      assert.equal(empty.statusCode, 422);
      assert.match(pageText(empty.body), /Enter your username or e-mail address/);
    });

    it('mails one account at most a few links an hour, answering the same beyond', async () => {
      const rosa = await signIn(t.app, 'rosa');
      const client = new UiClient(t.app, PORTAL_HOST);
      for (let i = 0; i < ASKED_MAILS_PER_HOUR + 2; i++) {
        const answer = await ask(client, 'rosa');
        assert.equal(answer.statusCode, 200);
        assert.match(pageText(answer.body), /Check your mail/);
      }
      await nextMailTo(rosa.user.email, ASKED_MAILS_PER_HOUR - 1);
      assert.equal((await mailsTo(rosa.user.email)).length, ASKED_MAILS_PER_HOUR);
    });
  });

  describe(`forgotten console passwords without mail [${database}]`, () => {
    let t: TestApp;

    before(async () => {
      t = await buildTestApp({ database, env: { BLUME_RATE_LOGIN_PER_MINUTE: '3' } });
      await signIn(t.app, 'sam');
    });
    after(() => t.close());

    it('says mail is unavailable, and limits the form like login', async () => {
      const client = new UiClient(t.app, PORTAL_HOST);
      const page = await client.get('/password/forgot');
      assert.equal(page.statusCode, 200);
      assert.match(pageText(page.body), /this server sends no mail/);
      assert.doesNotMatch(page.body, /<form class="stack" method="post" action="\/password\/forgot">/);
      await client.get('/login');
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await client.post('/password/forgot', { login: 'sam' })).statusCode);
      assert.deepEqual(statuses, [503, 503, 503, 429]);
    });
  });
}
