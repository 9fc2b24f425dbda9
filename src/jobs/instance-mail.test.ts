// Per-instance mail (decision 0117): a site whose applied settings name an SMTP server sends all of
// its mail (password links, forum notifications, help desk replies) through that server and from its
// sender; a site without one uses the server-wide BLUME_MAIL_* settings; the settings page says which
// is in force. Without BLUME_MAIL_ALLOW_PRIVATE a site's server on a private address gets nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { mintApiKey } from '../../test/factories/cms.js';
import {
  addMember,
  communityHost,
  forumApi,
  makeCommunity,
  mintForumToken,
  type ForumActor,
} from '../../test/factories/forum.js';
import { helpdeskApi } from '../../test/factories/helpdesk.js';
import { buildTestApp, portal, signIn, type Actor, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { eventually } from '../../test/helpers/eventually.js';
import { pageText, UiClient } from '../../test/helpers/forum-ui.js';
import { startSmtpSink, type ReceivedMail, type SmtpSink } from '../../test/helpers/smtp-sink.js';
import { MAIL_JOB } from './mail-outbox.js';
import { jobs } from './tables.js';

const RATES = { BLUME_RATE_LOGIN_PER_MINUTE: '1000' };

async function configure(t: TestApp, owner: Actor, site: string, settings: Record<string, string>): Promise<void> {
  const put = await portal(t.app, owner, { method: 'PUT', url: `/api/instances/${site}/env`, payload: settings });
  assert.equal(put.statusCode, 200, put.body);
  const restart = await portal(t.app, owner, { method: 'POST', url: `/api/instances/${site}/restart` });
  assert.equal(restart.statusCode, 200, restart.body);
}

async function askPasswordLink(t: TestApp, site: string, login: string): Promise<void> {
  const visitor = new UiClient(t.app, communityHost(site));
  await visitor.get('/password/forgot');
  assert.equal((await visitor.post('/password/forgot', { login })).statusCode, 200);
}

for (const database of testDatabases) {
  describe(`Per-instance mail [${database}]`, () => {
    let t: TestApp;
    let owner: Actor;
    let server: SmtpSink;
    let north: SmtpSink;
    let south: SmtpSink;
    let nora: ForumActor;

    const mailTo = (sink: SmtpSink, address: string): Promise<ReceivedMail> =>
      eventually(
        `a mail to ${address}`,
        async () => {
          await t.app.mailOutbox.idle();
          return sink.received.find((mail) => mail.to.includes(address));
        },
        5_000,
      );

    before(async () => {
      [server, north, south] = await Promise.all([
        startSmtpSink(),
        startSmtpSink({ auth: { username: 'north-mailer', password: 'north-secret' } }),
        startSmtpSink(),
      ]);
      t = await buildTestApp({
        database,
        env: {
          ...RATES,
          BLUME_MAIL_SERVER: '127.0.0.1',
          BLUME_MAIL_PORT: String(server.port),
          BLUME_MAIL_DEFAULT_SENDER: 'Platform <noreply@platform.test>',
          // The sinks listen on loopback.
          BLUME_MAIL_ALLOW_PRIVATE: 'True',
        },
      });
      owner = await signIn(t.app, 'owner');
      for (const site of ['north', 'south', 'plain']) await makeCommunity(t.app, owner, site, 'business');
      await configure(t, owner, 'north', {
        MAIL_SERVER: '127.0.0.1',
        MAIL_PORT: String(north.port),
        MAIL_USERNAME: 'north-mailer',
        MAIL_PASSWORD: 'north-secret',
        MAIL_DEFAULT_SENDER: 'North <hello@north.test>',
        HELPDESK_SUPPORT_ADDRESS: 'desk@north.test',
      });
      await configure(t, owner, 'south', {
        MAIL_SERVER: 'localhost',
        MAIL_PORT: String(south.port),
        MAIL_DEFAULT_SENDER: 'South <hello@south.test>',
      });
      nora = await addMember(t.app, 'north', 'nora');
      await addMember(t.app, 'south', 'sid');
      await addMember(t.app, 'plain', 'pia');
    });
    after(async () => {
      await t.close();
      await Promise.all([server.close(), north.close(), south.close()]);
    });

    it("sends each site's password links through its own server, from its sender, and the rest through the server's", async () => {
      await askPasswordLink(t, 'north', 'nora');
      await askPasswordLink(t, 'south', 'sid');
      await askPasswordLink(t, 'plain', 'pia');
      const [toNora, toSid, toPia] = await Promise.all([
        mailTo(north, 'nora@members.test'),
        mailTo(south, 'sid@members.test'),
        mailTo(server, 'pia@members.test'),
      ]);
      assert.equal(toNora.user, 'north-mailer');
      assert.equal(toNora.headers.get('from'), 'North <hello@north.test>');
      assert.match(toNora.headers.get('subject') ?? '', /Reset your password/);
      assert.equal(toSid.headers.get('from'), 'South <hello@south.test>');
      assert.equal(toPia.headers.get('from'), 'Platform <noreply@platform.test>');
      const everywhere = (sink: SmtpSink) => sink.received.flatMap((mail) => mail.to);
      assert.deepEqual(everywhere(north), ['nora@members.test']);
      assert.deepEqual(everywhere(south), ['sid@members.test']);
      assert.deepEqual(everywhere(server), ['pia@members.test']);
    });

    it("mails forum reply notifications through the site's own server", async () => {
      const api = (token: string, path: string, payload: object) =>
        forumApi(t.app, 'north', token, { method: 'POST', path, payload });
      const admin = await mintForumToken(t.app, 'north', owner.user.username, owner.password);
      assert.equal((await api(admin, '/forums', { name: 'General', slug: 'general' })).statusCode, 201);
      const topic = await api(nora.token, '/topics', { forum_id: 'general', title: 'Maps', body: 'Who has maps?' });
      assert.equal(topic.statusCode, 201, topic.body);
      const nils = await addMember(t.app, 'north', 'nils');
      const seen = north.received.length;
      const reply = await api(nils.token, `/topics/${(topic.json() as { id: string }).id}/posts`, { body: 'I do.' });
      assert.equal(reply.statusCode, 201, reply.body);
      const mail = await eventually(
        'the reply notification',
        async () => {
          await t.app.mailOutbox.idle();
          return north.received.slice(seen).find((m) => m.to.includes('nora@members.test'));
        },
        5_000,
      );
      assert.equal(mail.headers.get('subject'), 'Re: Maps');
      assert.equal(mail.headers.get('from'), 'North <hello@north.test>');
      assert.ok(!server.received.some((m) => m.to.includes('nora@members.test')));
    });

    it("mails a help desk reply through the site's own server", async () => {
      const key = { key: await mintApiKey(t.app, owner, 'north', ['helpdesk-write']) };
      const opened = await helpdeskApi(t.app, 'north', key, {
        method: 'POST',
        path: '/tickets',
        payload: { subject: 'Lost parcel', body: 'Where is it?', requester: { email: 'rae@customer.test' } },
      });
      assert.equal(opened.statusCode, 201, opened.body);
      const id = (opened.json() as { id: string }).id;
      const reply = await helpdeskApi(t.app, 'north', key, {
        method: 'POST',
        path: `/tickets/${id}/replies`,
        payload: { body: 'It left today.' },
      });
      assert.equal(reply.statusCode, 201, reply.body);
      const mail = await mailTo(north, 'rae@customer.test');
      assert.match(mail.headers.get('from') ?? '', /<desk@north\.test>/);
      assert.ok(!server.received.some((m) => m.to.includes('rae@customer.test')));
    });

    it('says on the settings page which mail settings are in force', async () => {
      const page = async (site: string) => {
        const admin = new UiClient(t.app, communityHost(site));
        assert.equal((await admin.login(owner.user.username, owner.password)).statusCode, 303);
        return pageText((await admin.get('/admin/settings')).body);
      };
      assert.match(
        await page('north'),
        new RegExp(`In force: this community's own SMTP server, 127\\.0\\.0\\.1:${north.port}\\s*, sending from North`),
      );
      assert.match(await page('plain'), /In force: the server's mail settings \(\s*BLUME_MAIL_\*\s*\)/);
    });
  });

  describe(`Per-instance mail on a private address without BLUME_MAIL_ALLOW_PRIVATE [${database}]`, () => {
    let t: TestApp;
    let sink: SmtpSink;

    before(async () => {
      sink = await startSmtpSink();
      // No server-wide mail: the site's own server is the only way out.
      t = await buildTestApp({ database, env: RATES });
      const owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'lan', 'business');
      await configure(t, owner, 'lan', { MAIL_SERVER: '127.0.0.1', MAIL_PORT: String(sink.port) });
      await addMember(t.app, 'lan', 'lee');
    });
    after(async () => {
      await t.close();
      await sink.close();
    });

    it('refuses to connect, keeps the mail with the reason, and sends nothing', async () => {
      await askPasswordLink(t, 'lan', 'lee');
      const failed = await eventually(
        'a failed attempt',
        async () => {
          await t.app.mailOutbox.idle();
          const [job] = await t.app.deps.database.db.select().from(jobs).where(eq(jobs.kind, MAIL_JOB));
          return job?.lastError ? job : undefined;
        },
        5_000,
      );
      assert.match(failed.lastError ?? '', /127\.0\.0\.1 is a private, loopback or link-local address/);
      assert.equal(sink.received.length, 0);
    });
  });
}
