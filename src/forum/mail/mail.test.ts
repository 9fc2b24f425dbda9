// Community mail against a real SMTP server on loopback: confirmation on signup, the password-reset
// flow, reply notifications with threading headers, opting out, and a server without mail.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import {
  addMember,
  communityHost,
  forumApi,
  makeCommunity,
  mintForumToken,
  type ForumActor,
} from '../../../test/factories/forum.js';
import { buildTestApp, signIn, type TestApp } from '../../../test/helpers/app.js';
import { testDatabases } from '../../../test/helpers/databases.js';
import { eventually } from '../../../test/helpers/eventually.js';
import { pageText, UiClient } from '../../../test/helpers/forum-ui.js';
import {
  decodedBody,
  startSmtpSink,
  type ReceivedMail,
  type SmtpSink,
  sinkMailEnv,
} from '../../../test/helpers/smtp-sink.js';
import { jobs } from '../../jobs/tables.js';
import { forumMembers, forumSessions } from '../tables.js';
import { MAIL_JOB, type MailJob } from '../../jobs/mail-outbox.js';

type Row = Record<string, unknown>;
const host = communityHost('club');
const RATES = { BLUME_RATE_LOGIN_PER_MINUTE: '1000', BLUME_RATE_POSTS_PER_MINUTE: '1000' };

/** The mail's text with quoted-printable soft breaks and escapes undone, so links read whole. */
function linkIn(mail: ReceivedMail, pattern: RegExp): string {
  const match = pattern.exec(decodedBody(mail));
  assert.ok(match, `no link matching ${pattern} in:\n${decodedBody(mail)}`);
  return match[0];
}

for (const database of testDatabases) {
  describe(`forum mail [${database}]`, () => {
    let sink: SmtpSink;
    let t: TestApp;
    let admin: string;
    let alice: ForumActor;
    let bob: ForumActor;
    let topicId: string;
    const client = () => new UiClient(t.app, host);
    const api = (token: string, method: string, path: string, payload?: Row, headers?: Record<string, string>) =>
      forumApi(t.app, 'club', token, {
        method: method as 'GET',
        path,
        ...(payload ? { payload } : {}),
        ...(headers ? { headers } : {}),
      });
    /** Mails that reached the sink for `address` so far, after the outbox has finished sending. */
    const mailsTo = async (address: string) => {
      await t.app.mailOutbox.idle();
      return sink.received.filter((mail) => mail.to.includes(address));
    };
    /** The next mail for `address` beyond the ones counted in `seen`. */
    const nextMailTo = (address: string, seen: number) =>
      eventually(`mail number ${seen + 1} for ${address}`, async () => (await mailsTo(address))[seen], 5_000);

    before(async () => {
      sink = await startSmtpSink();
      t = await buildTestApp({
        database,
        env: {
          ...RATES,
          ...sinkMailEnv(sink),
          BLUME_MAIL_DEFAULT_SENDER: 'Club <club@blume.test>',
        },
      });
      const owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'club');
      admin = await mintForumToken(t.app, 'club', 'owner', owner.password);
      alice = await addMember(t.app, 'club', 'alice');
      bob = await addMember(t.app, 'club', 'bob');
      assert.equal((await api(admin, 'POST', '/forums', { name: 'General', slug: 'general' })).statusCode, 201);
      const topic = await api(alice.token, 'POST', '/topics', {
        forum_id: 'general',
        title: 'Tea <b>time</b>',
        body: 'Who brings the tea?',
      });
      assert.equal(topic.statusCode, 201, topic.body);
      topicId = String((topic.json() as Row).id);
    });
    after(async () => {
      await t.close();
      await sink.close();
    });

    it('mails a confirmation link on signup; the member posts only once the link confirmed the address', async () => {
      const carol = client();
      await carol.get('/signup');
      const signup = await carol.post('/signup', {
        username: 'carol',
        email: 'carol@example.test',
        password: 'carol-password-123',
      });
      assert.equal(signup.statusCode, 303);
      const mail = await nextMailTo('carol@example.test', 0);
      assert.equal(mail.headers.get('from'), 'Club <club@blume.test>');
      assert.match(mail.headers.get('subject') ?? '', /Confirm your e-mail address for club/);
      assert.equal(mail.headers.get('auto-submitted'), 'auto-generated');
      const link = linkIn(mail, /http:\/\/club\.blume\.test\/confirm\/[0-9a-z]{16}\.[A-Za-z0-9_-]{43}/);
      // Until then: a banner, and replies are refused.
      const page = await carol.get(`/t/${topicId}`);
      assert.match(pageText(page.body), /Confirm your e-mail address to post/);
      assert.doesNotMatch(page.body, /action="\/t\/[^"]+\/reply"/);
      assert.equal((await carol.post(`/t/${topicId}/reply`, { body: 'Me!' })).statusCode, 403);
      const confirm = await carol.get(link.slice('http://club.blume.test'.length));
      assert.equal(confirm.statusCode, 200);
      assert.match(pageText(confirm.body), /E-mail address confirmed/);
      assert.doesNotMatch(
        pageText(confirm.body),
        /Confirm your e-mail address to post/,
        'the confirmed page asks no more',
      );
      const [row] = await t.app.deps.database.db.select().from(forumMembers).where(eq(forumMembers.username, 'carol'));
      assert.equal(row!.emailConfirmed, true);
      await carol.get(`/t/${topicId}`);
      assert.equal((await carol.post(`/t/${topicId}/reply`, { body: 'Me!' })).statusCode, 303);
      // The link is single-use.
      assert.equal((await carol.get(link.slice('http://club.blume.test'.length))).statusCode, 410);
    });

    it('resets a forgotten password through a single-use link, ending every other session', async () => {
      const elsewhere = client();
      assert.equal((await elsewhere.login('bob', bob.password)).statusCode, 303);
      const seen = (await mailsTo('bob@members.test')).length;
      const visitor = client();
      const login = await visitor.get('/login');
      assert.match(login.body, /href="\/password\/forgot"/);
      await visitor.get('/password/forgot');
      const asked = await visitor.post('/password/forgot', { login: 'BOB@members.test' });
      assert.equal(asked.statusCode, 200);
      const mail = await nextMailTo('bob@members.test', seen);
      assert.match(mail.headers.get('subject') ?? '', /Reset your password/);
      const path = linkIn(mail, /http:\/\/club\.blume\.test\/password\/reset\/[0-9a-z]{16}\.[A-Za-z0-9_-]{43}/).slice(
        'http://club.blume.test'.length,
      );
      const form = await visitor.get(path);
      assert.equal(form.statusCode, 200);
      assert.match(form.body, /name="new_password"/);
      // The form is CSRF protected like every other.
      assert.equal(
        (await visitor.post(path, { new_password: 'bob-new-password-1' }, { csrf: 'forged' })).statusCode,
        403,
      );
      const reset = await visitor.post(path, { new_password: 'bob-new-password-1' });
      assert.equal(reset.statusCode, 303);
      assert.equal(reset.headers.location, '/account');
      assert.match(pageText((await visitor.get('/account')).body), /Your profile/);
      // The other session ended; the old password fails, the new one works.
      assert.match((await elsewhere.get('/')).body, /href="\/login"/);
      const sessions = await t.app.deps.database.db
        .select()
        .from(forumSessions)
        .where(eq(forumSessions.memberId, bob.member.id));
      assert.equal(sessions.length, 1);
      assert.equal((await client().login('bob', bob.password)).statusCode, 401);
      assert.equal((await client().login('bob', 'bob-new-password-1')).statusCode, 303);
      // The link cannot be used again.
      assert.equal((await visitor.get(path)).statusCode, 410);
      await visitor.get('/password/forgot');
      assert.equal((await visitor.post(path, { new_password: 'bob-other-password-2' })).statusCode, 410);
      assert.equal((await client().login('bob', 'bob-other-password-2')).statusCode, 401);
      bob = { ...bob, password: 'bob-new-password-1' };
    });

    it('answers an unknown login exactly like a known one, and sends nothing', async () => {
      const before = sink.received.length;
      const visitor = client();
      await visitor.get('/password/forgot');
      const unknown = await visitor.post('/password/forgot', { login: 'nobody@example.test' });
      await visitor.get('/password/forgot');
      const known = await visitor.post('/password/forgot', { login: 'alice' });
      assert.equal(unknown.statusCode, known.statusCode);
      assert.equal(pageText(unknown.body), pageText(known.body));
      await nextMailTo('alice@members.test', (await mailsTo('alice@members.test')).length - 1);
      assert.equal(sink.received.length, before + 1);
      assert.ok(sink.received.slice(before).every((mail) => mail.to.includes('alice@members.test')));
    });

    it('mails the author about replies, threaded per topic, never about their own', async () => {
      const seen = (await mailsTo('alice@members.test')).length;
      // The API reply came through a TLS-terminating proxy: links say https.
      const reply = await api(
        bob.token,
        'POST',
        `/topics/${topicId}/posts`,
        { body: 'I bring <script>alert(1)</script> green tea.' },
        { 'x-forwarded-proto': 'https' },
      );
      assert.equal(reply.statusCode, 201, reply.body);
      const postId = String((reply.json() as Row).id);
      const mail = await nextMailTo('alice@members.test', seen);
      assert.equal(mail.headers.get('subject'), 'Re: Tea <b>time</b>');
      assert.equal(mail.headers.get('message-id'), `<post.${postId}.${alice.member.id}@club.blume.test>`);
      assert.equal(mail.headers.get('in-reply-to'), `<topic.${topicId}@club.blume.test>`);
      assert.equal(mail.headers.get('references'), `<topic.${topicId}@club.blume.test>`);
      assert.match(
        mail.headers.get('list-unsubscribe') ?? '',
        /^<https:\/\/club\.blume\.test\/unsubscribe\/[0-9a-z]{16}\.reply\.[A-Za-z0-9_-]{43}>$/,
      );
      assert.equal(mail.headers.get('list-unsubscribe-post'), 'List-Unsubscribe=One-Click');
      const body = decodedBody(mail);
      assert.ok(body.includes(`https://club.blume.test/t/${topicId}?view=threaded#p-${postId}`));
      assert.match(body, /bob replied to your topic/);
      // User text stays text: as is in the plain part, escaped in the HTML part.
      const [plain, markup] = body.split('Content-Type: text/html');
      assert.match(plain!, /I bring <script>alert\(1\)<\/script> green tea\./);
      assert.doesNotMatch(markup!, /<script>/);
      assert.match(markup!, /I bring &lt;script&gt;alert\(1\)&lt;\/script&gt; green tea\./);
      // The title is text as typed, too.
      assert.match(plain!, /your topic "Tea <b>time<\/b>"/);
      assert.match(markup!, /your topic \S+Tea &lt;b&gt;time&lt;\/b&gt;\S+ in club/);

      // A reply to bob's post (from the web UI) reaches bob, threaded under his post, and alice.
      const bobSeen = (await mailsTo('bob@members.test')).length;
      const aliceSeen = (await mailsTo('alice@members.test')).length;
      const ui = client();
      await ui.login('alice', alice.password);
      await ui.get(`/t/${topicId}`);
      assert.equal((await ui.post(`/t/${topicId}/reply`, { body: 'Lovely.', parent_id: postId })).statusCode, 303);
      const toBob = await nextMailTo('bob@members.test', bobSeen);
      assert.equal(toBob.headers.get('in-reply-to'), `<post.${postId}@club.blume.test>`);
      assert.equal(
        toBob.headers.get('references'),
        `<topic.${topicId}@club.blume.test> <post.${postId}@club.blume.test>`,
      );
      assert.match(decodedBody(toBob), /alice replied to your post/);
      // Alice wrote that reply herself: no mail to her.
      assert.equal((await mailsTo('alice@members.test')).length, aliceSeen);
      assert.equal(
        (await api(alice.token, 'POST', `/topics/${topicId}/posts`, { body: 'Talking to myself.' })).statusCode,
        201,
      );
      assert.equal((await mailsTo('alice@members.test')).length, aliceSeen);
      const outbox = await t.app.deps.database.db.select().from(jobs).where(eq(jobs.kind, MAIL_JOB));
      assert.equal(outbox.length, 0, 'sent mail leaves the outbox');
    });

    it('mails members a post mentions, in new topics and replies, once each, and never the author', async () => {
      const bobSeen = (await mailsTo('bob@members.test')).length;
      const aliceSeen = (await mailsTo('alice@members.test')).length;
      const topic = await api(alice.token, 'POST', '/topics', {
        forum_id: 'general',
        title: 'Picnic',
        body: 'Ask @Bob and @alice and @nobody about it.',
      });
      assert.equal(topic.statusCode, 201, topic.body);
      const mention = await nextMailTo('bob@members.test', bobSeen);
      assert.equal(mention.headers.get('subject'), 'Re: Picnic');
      assert.match(mention.headers.get('list-unsubscribe') ?? '', /\/unsubscribe\//);
      const body = decodedBody(mention);
      assert.match(body, /alice mentioned you in "Picnic"/);
      assert.match(body, /You get this because someone mentioned you\./);
      // A reply that answers bob's topic and mentions him is one mail, saying he was mentioned.
      const picnic = String((topic.json() as Row).id);
      const reply = await api(admin, 'POST', `/topics/${picnic}/posts`, { body: '@alice, bring plates.' });
      assert.equal(reply.statusCode, 201, reply.body);
      const toAlice = await nextMailTo('alice@members.test', aliceSeen);
      assert.match(decodedBody(toAlice), /owner mentioned you in "Picnic"/);
      assert.equal(
        (await mailsTo('alice@members.test')).length,
        aliceSeen + 1,
        'alice did not mail herself, and got one mail for the reply',
      );
      assert.equal((await mailsTo('bob@members.test')).length, bobSeen + 1);
    });

    it('stops reply mails after one-click unsubscribe, and the mail settings turn them back on', async () => {
      const seen = (await mailsTo('alice@members.test')).length;
      assert.equal((await api(bob.token, 'POST', `/topics/${topicId}/posts`, { body: 'Milk?' })).statusCode, 201);
      const mail = await nextMailTo('alice@members.test', seen);
      const url = new URL(/^<(.+)>$/.exec(mail.headers.get('list-unsubscribe')!)![1]!);
      // What a mail provider sends (RFC 8058): a bare POST, no cookies, no form token.
      const oneClick = await t.app.inject({
        method: 'POST',
        url: url.pathname,
        headers: { host, 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'List-Unsubscribe=One-Click',
      });
      assert.equal(oneClick.statusCode, 200);
      assert.equal(
        (
          await t.app.inject({
            method: 'POST',
            url: `${url.pathname}x`,
            headers: { host, 'content-type': 'application/x-www-form-urlencoded' },
            payload: '',
          })
        ).statusCode,
        404,
      );
      assert.equal((await api(bob.token, 'POST', `/topics/${topicId}/posts`, { body: 'Sugar?' })).statusCode, 201);
      assert.equal((await mailsTo('alice@members.test')).length, seen + 1);

      const ui = client();
      await ui.login('alice', alice.password);
      const settings = await ui.get('/account/notifications');
      assert.match(
        settings.body,
        /<option value="never" selected>Never<\/option><\/select><\/div>\s*<div><label for="mail-mention">/,
      );
      const chosen = { reply: 'immediately', mention: 'immediately', like: 'digest', digest: 'weekly' };
      assert.equal((await ui.post('/account/notifications', chosen)).statusCode, 200);
      assert.equal((await api(bob.token, 'POST', `/topics/${topicId}/posts`, { body: 'Lemon?' })).statusCode, 201);
      await nextMailTo('alice@members.test', seen + 1);
      await ui.get('/account/notifications');
      assert.equal((await ui.post('/account/notifications', { ...chosen, reply: 'never' })).statusCode, 200);
      assert.equal((await api(bob.token, 'POST', `/topics/${topicId}/posts`, { body: 'Honey?' })).statusCode, 201);
      assert.equal((await mailsTo('alice@members.test')).length, seen + 2);
    });
  });

  describe(`forum with an SMTP server that is down [${database}]`, () => {
    let t: TestApp;
    before(async () => {
      // A port nobody listens on: every send fails at once.
      const closed = await startSmtpSink();
      const port = closed.port;
      await closed.close();
      t = await buildTestApp({
        database,
        env: { ...RATES, BLUME_MAIL_SERVER: '127.0.0.1', BLUME_MAIL_PORT: String(port) },
      });
      const owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'club');
      const admin = await mintForumToken(t.app, 'club', 'owner', owner.password);
      assert.equal(
        (
          await forumApi(t.app, 'club', admin, {
            method: 'POST',
            path: '/forums',
            payload: { name: 'General', slug: 'general' },
          })
        ).statusCode,
        201,
      );
    });
    after(() => t.close());

    it('still takes the reply and keeps the mail in the outbox for a later attempt', async () => {
      const alice = await addMember(t.app, 'club', 'alice');
      const bob = await addMember(t.app, 'club', 'bob');
      const topic = await forumApi(t.app, 'club', alice.token, {
        method: 'POST',
        path: '/topics',
        payload: { forum_id: 'general', title: 'Hello', body: 'Hi all' },
      });
      const reply = await forumApi(t.app, 'club', bob.token, {
        method: 'POST',
        path: `/topics/${String((topic.json() as Row).id)}/posts`,
        payload: { body: 'Hi alice' },
      });
      assert.equal(reply.statusCode, 201);
      await t.app.mailOutbox.idle();
      const [queued] = await t.app.deps.database.db.select().from(jobs).where(eq(jobs.kind, MAIL_JOB));
      assert.equal((queued!.payload as MailJob).kind, 'reply');
      assert.equal(queued!.state, 'queued');
      assert.equal(queued!.attempts, 1);
      assert.ok(queued!.lastError);
      assert.ok(queued!.runAt.getTime() > Date.now(), 'the retry waits');
    });
  });

  describe(`forum without mail [${database}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp({ database, env: RATES });
      const owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'club');
      const admin = await mintForumToken(t.app, 'club', 'owner', owner.password);
      assert.equal(
        (
          await forumApi(t.app, 'club', admin, {
            method: 'POST',
            path: '/forums',
            payload: { name: 'General', slug: 'general' },
          })
        ).statusCode,
        201,
      );
    });
    after(() => t.close());

    it('signs members up ready to post, takes replies, and says that reset mail is unavailable', async () => {
      assert.equal(t.app.deps.mailer.driver, 'disabled');
      const alice = await addMember(t.app, 'club', 'alice');
      const topic = await forumApi(t.app, 'club', alice.token, {
        method: 'POST',
        path: '/topics',
        payload: { forum_id: 'general', title: 'Hello', body: 'Hi all' },
      });
      assert.equal(topic.statusCode, 201);
      const topicId = String((topic.json() as Row).id);
      const dave = new UiClient(t.app, host);
      await dave.get('/signup');
      assert.equal(
        (await dave.post('/signup', { username: 'dave', email: 'dave@example.test', password: 'dave-password-123' }))
          .statusCode,
        303,
      );
      const page = await dave.get(`/t/${topicId}`);
      assert.doesNotMatch(pageText(page.body), /Confirm your e-mail/);
      assert.equal((await dave.post(`/t/${topicId}/reply`, { body: 'Hi alice' })).statusCode, 303);
      const viaApi = await forumApi(t.app, 'club', alice.token, {
        method: 'POST',
        path: `/topics/${topicId}/posts`,
        payload: { body: 'Hi dave' },
      });
      assert.equal(viaApi.statusCode, 201);
      assert.equal((await t.app.deps.database.db.select().from(jobs).where(eq(jobs.kind, MAIL_JOB))).length, 0);
      const forgot = await dave.get('/password/forgot');
      assert.match(pageText(forgot.body), /sends no mail/);
    });
  });
}
