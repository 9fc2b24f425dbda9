// Notification mail against a real SMTP server on loopback (decision 0098): per-member settings in
// the Forum API and the account pages, like mails, one-click unsubscribe of one kind (RFC 8058, no
// session), and the digest job on the job runner, which mails only what the member may read, once.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import {
  addMember,
  communityHost,
  forumApi,
  makeCommunity,
  mintForumToken,
  type ForumActor,
} from '../../../test/factories/forum.js';
import { buildTestApp, json, signIn, type TestApp } from '../../../test/helpers/app.js';
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
import { scheduleJobOnce } from '../../jobs/queue.js';
import { jobs } from '../../jobs/tables.js';
import { forumMembers } from '../tables.js';
import { DIGEST_JOB } from './digest-job.js';

type Row = Record<string, unknown>;
const SITE = 'guild';
const host = communityHost(SITE);
const RATES = { BLUME_RATE_LOGIN_PER_MINUTE: '1000', BLUME_RATE_POSTS_PER_MINUTE: '1000' };

/** The address a mail's List-Unsubscribe header names, as a path on the site. */
function unsubscribePath(mail: ReceivedMail): string {
  const header = mail.headers.get('list-unsubscribe') ?? '';
  assert.equal(mail.headers.get('list-unsubscribe-post'), 'List-Unsubscribe=One-Click');
  const match = /^<(https?:\/\/[^>]+)>$/.exec(header);
  assert.ok(match, `List-Unsubscribe: ${header}`);
  return new URL(match[1]!).pathname;
}

for (const database of testDatabases) {
  describe(`notification mail [${database}]`, () => {
    let sink: SmtpSink;
    let t: TestApp;
    let admin: string;
    let ann: ForumActor;
    let ben: ForumActor;
    let cid: ForumActor;
    let sweeps = 0;
    const api = (token: string | undefined, method: string, path: string, payload?: Row) =>
      forumApi(t.app, SITE, token, { method: method as 'GET', path, ...(payload ? { payload } : {}) });
    const mailsTo = async (who: ForumActor) => {
      await t.app.mailOutbox.idle();
      return sink.received.filter((mail) => mail.to.includes(who.member.email));
    };
    const nextMailTo = (who: ForumActor, seen: number) =>
      eventually(`mail number ${seen + 1} for ${who.member.username}`, async () => (await mailsTo(who))[seen], 10_000);
    /** RFC 8058: what a mail provider sends, a bare POST without cookies or form token. */
    const oneClick = (path: string) =>
      t.app.inject({
        method: 'POST',
        url: path,
        headers: { host, 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'List-Unsubscribe=One-Click',
      });
    const settingsOf = async (who: ForumActor) => json<Row>(await api(who.token, 'GET', '/notifications/settings'));
    const topic = async (who: string, forum: string, title: string, body = `${title} body`) => {
      const answer = await api(who, 'POST', '/topics', { forum_id: forum, title, body });
      assert.equal(answer.statusCode, 201, answer.body);
      return json<{ id: string; first_post: { id: string } }>(answer);
    };
    const reply = async (who: string, topicId: string, body: string) => {
      const answer = await api(who, 'POST', `/topics/${topicId}/posts`, { body });
      assert.equal(answer.statusCode, 201, answer.body);
      return json<{ id: string }>(answer);
    };
    /** Runs one digest sweep through the job runner (the app's own worker may take it first). */
    const sweep = async () => {
      await scheduleJobOnce(
        t.app.deps.database.db,
        `${DIGEST_JOB}.test-${++sweeps}`,
        DIGEST_JOB,
        {},
        new Date(Date.now() - 1000),
      );
      await t.app.forum.digests.runNext();
      const id = `${DIGEST_JOB}.test-${sweeps}`;
      await eventually('the sweep ran', async () =>
        (await t.app.deps.database.db.select().from(jobs).where(eq(jobs.id, id))).length === 0 ? true : undefined,
      );
    };

    before(async () => {
      sink = await startSmtpSink();
      t = await buildTestApp({
        database,
        env: {
          ...RATES,
          ...sinkMailEnv(sink),
          BLUME_MAIL_DEFAULT_SENDER: 'Guild <guild@blume.test>',
        },
      });
      const owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, SITE);
      admin = await mintForumToken(t.app, SITE, 'owner', owner.password);
      [ann, ben, cid] = await Promise.all([
        addMember(t.app, SITE, 'ann'),
        addMember(t.app, SITE, 'ben'),
        addMember(t.app, SITE, 'cid'),
      ]);
      for (const [slug, visibility] of [
        ['open', 'public'],
        ['staff', 'staff'],
      ] as const) {
        assert.equal((await api(admin, 'POST', '/forums', { name: slug, slug, visibility })).statusCode, 201);
      }
    });
    after(async () => {
      await t.close();
      await sink.close();
    });

    it('reads and changes the mail settings in the API; a kind cannot wait for a digest that is off', async () => {
      assert.deepEqual(await settingsOf(ann), {
        reply: 'immediately',
        mention: 'immediately',
        like: 'digest',
        digest: 'weekly',
      });
      const off = await api(ann.token, 'PATCH', '/notifications/settings', { digest: 'never' });
      assert.equal(off.statusCode, 422);
      assert.equal(json<Row>(off).code, 'digest_off');
      assert.match(String(json<Row>(off).detail), /like would wait for a digest that is off/);
      const changed = await api(ann.token, 'PATCH', '/notifications/settings', {
        like: 'immediately',
        digest: 'daily',
      });
      assert.equal(changed.statusCode, 200, changed.body);
      assert.deepEqual(json<Row>(changed), {
        reply: 'immediately',
        mention: 'immediately',
        like: 'immediately',
        digest: 'daily',
      });
      assert.equal((await api(ann.token, 'PATCH', '/notifications/settings', { reply: 'soon' })).statusCode, 400);
      assert.equal((await api(ann.token, 'PATCH', '/notifications/settings', { sms: 'never' })).statusCode, 400);
      assert.equal((await api(undefined, 'GET', '/notifications/settings')).statusCode, 401);
      assert.deepEqual(
        await settingsOf(ben),
        { reply: 'immediately', mention: 'immediately', like: 'digest', digest: 'weekly' },
        "another member's settings are its own",
      );
    });

    it('mails a like at once to an author who wants that, once per liker; its one-click link stops likes only', async () => {
      const mine = await topic(ann.token, 'open', 'Knots');
      const seen = (await mailsTo(ann)).length;
      assert.equal((await api(ben.token, 'POST', `/posts/${mine.first_post.id}/like`)).statusCode, 200);
      const mail = await nextMailTo(ann, seen);
      assert.equal(mail.headers.get('subject'), 'ben liked your post in Knots');
      assert.match(decodedBody(mail), /ben liked your post in "Knots" in guild/);
      const path = unsubscribePath(mail);
      assert.match(path, new RegExp(`^/unsubscribe/${ann.member.id}\\.like\\.[A-Za-z0-9_-]{43}$`));
      // Taken back and given again: the notification exists already, so no second mail.
      assert.equal((await api(ben.token, 'DELETE', `/posts/${mine.first_post.id}/like`)).statusCode, 200);
      assert.equal((await api(ben.token, 'POST', `/posts/${mine.first_post.id}/like`)).statusCode, 200);
      assert.equal((await mailsTo(ann)).length, seen + 1);

      const stopped = await oneClick(path);
      assert.equal(stopped.statusCode, 200);
      assert.match(pageText(stopped.body), /no more mails about likes/);
      assert.deepEqual(await settingsOf(ann), {
        reply: 'immediately',
        mention: 'immediately',
        like: 'never',
        digest: 'daily',
      });
      assert.equal((await api(cid.token, 'POST', `/posts/${mine.first_post.id}/like`)).statusCode, 200);
      await reply(cid.token, mine.id, 'Reef knot.');
      const replyMail = await nextMailTo(ann, seen + 1);
      assert.match(unsubscribePath(replyMail), /\.reply\./);
      assert.equal((await mailsTo(ann)).length, seen + 2, 'the reply mailed, the like did not');
      // A forged or altered link does nothing.
      assert.equal((await oneClick(path.replace('.like.', '.reply.'))).statusCode, 404);
      assert.equal((await settingsOf(ann)).reply, 'immediately');
    });

    it('keeps links mailed before per-kind settings working: they stop replies and mentions', async () => {
      const legacy = createHmac('sha256', t.app.deps.config.secretKey)
        .update(`forum-unsubscribe:${SITE}:${cid.member.id}`)
        .digest('base64url');
      assert.equal((await oneClick(`/unsubscribe/${cid.member.id}.${legacy}`)).statusCode, 200);
      assert.deepEqual(await settingsOf(cid), { reply: 'never', mention: 'never', like: 'digest', digest: 'weekly' });
    });

    it('saves the mail settings page only with its CSRF token, and says when a kind would wait for no digest', async () => {
      const ui = new UiClient(t.app, host);
      await ui.login('ben', ben.password);
      const page = await ui.get('/account/notifications');
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /name="_csrf"/);
      assert.match(page.body, /<select id="mail-like" name="like">/);
      const wanted = { reply: 'digest', mention: 'never', like: 'digest', digest: 'daily' };
      assert.equal((await ui.post('/account/notifications', wanted, { csrf: false })).statusCode, 403);
      assert.equal((await settingsOf(ben)).digest, 'weekly');
      const saved = await ui.post('/account/notifications', wanted);
      assert.equal(saved.statusCode, 200);
      assert.match(pageText(saved.body), /Saved\./);
      assert.deepEqual(await settingsOf(ben), wanted);
      const refused = await ui.post('/account/notifications', { ...wanted, digest: 'never' });
      assert.equal(refused.statusCode, 422);
      assert.match(pageText(refused.body), /reply, like would wait for a digest that is off/);
      assert.equal((await ui.post('/account/notifications', { ...wanted, like: 'sometimes' })).statusCode, 400);
      assert.deepEqual(await settingsOf(ben), wanted);
      assert.match((await ui.get('/account')).body, /href="\/account\/notifications"/);
    });

    it('mails a daily digest of unread notifications and popular new topics the member may read, once, then stops in one click', async () => {
      const db = t.app.deps.database.db;
      await db
        .update(forumMembers)
        .set({ lastDigestAt: sql`now() - interval '2 days'` })
        .where(eq(forumMembers.id, ben.member.id));
      const seen = (await mailsTo(ben)).length;
      const bens = await topic(ben.token, 'open', 'Ben asks about ropes');
      await reply(ann.token, bens.id, 'Use hemp.');
      await reply(ann.token, bens.id, 'Hey @ben, or sisal.');
      assert.equal((await api(ann.token, 'POST', `/posts/${bens.first_post.id}/like`)).statusCode, 200);
      const lanterns = await topic(ann.token, 'open', 'Lanterns for the festival');
      await reply(cid.token, lanterns.id, 'Paper ones.');
      await topic(ann.token, 'open', 'Quiet topic');
      await topic(admin, 'staff', 'Staff secrets');
      // A notification of a topic hidden since: ben may no longer read it, so the digest says nothing of it.
      const doomed = await topic(ben.token, 'open', 'Doomed thread');
      await reply(ann.token, doomed.id, 'Spam spam.');
      assert.equal((await api(admin, 'PATCH', `/topics/${doomed.id}`, { hidden: true })).statusCode, 200);
      assert.equal((await mailsTo(ben)).length, seen, 'replies wait for the digest; mentions are off');

      await sweep();
      const digest = await nextMailTo(ben, seen);
      assert.equal(digest.headers.get('subject'), 'Your daily digest from guild');
      const body = decodedBody(digest);
      const plain = body.split('Content-Type: text/html')[0]!;
      assert.match(plain, /ann replied to you in "Ben asks about ropes"/);
      assert.match(plain, /ann liked your post in "Ben asks about ropes"/);
      assert.doesNotMatch(plain, /mentioned you/, 'mentions are set to never');
      assert.match(
        plain,
        /Popular new topics:\r?\n- "Lanterns for the festival" by ann, 1 reply: http:\/\/guild\.blume\.test\/t\/[0-9a-z]+\r?\n- "Knots" by ann, 1 reply/,
      );
      assert.match(plain, /- "Quiet topic" by ann, 0 replies/);
      assert.doesNotMatch(body, /Staff secrets|Doomed|Spam spam|Ben asks about ropes" by/);
      const path = unsubscribePath(digest);
      assert.match(path, new RegExp(`^/unsubscribe/${ben.member.id}\\.digest\\.`));
      const [row] = await db.select().from(forumMembers).where(eq(forumMembers.id, ben.member.id));
      assert.ok(
        row!.lastDigestAt &&
          Date.now() - row!.lastDigestAt.getTime() < 3600_000 &&
          row!.lastDigestAt.getUTCMinutes() === 0,
        'moved to the hour',
      );

      // The next sweep finds ben's digest done for the day: nothing more.
      await sweep();
      assert.equal((await mailsTo(ben)).length, seen + 1);
      // Ann's digest is daily too, but she joined today: her first comes a day after.
      assert.equal(
        (await mailsTo(ann)).filter((mail) => /digest/.test(mail.headers.get('subject') ?? '')).length,
        0,
        'a member who joined today waits a day for the first',
      );

      assert.equal((await oneClick(path)).statusCode, 200);
      assert.deepEqual(
        await settingsOf(ben),
        { reply: 'never', mention: 'never', like: 'never', digest: 'never' },
        'the kinds that waited for the digest stop with it',
      );
    });
  });
}
