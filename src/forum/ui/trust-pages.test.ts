// The trust ladder and the first-post hold in the web UI, with mail on: a sign-up starts at trust
// level 0 and, with FORUM_EMAIL_CONFIRMATION off, posts without confirming; its first reply waits at
// /held (its author and moderators only) until a moderator approves it; its links show as text until
// it has read and posted enough, then they show; moderators see the level on the profile.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  addMember,
  communityHost,
  forumApi,
  makeCommunity,
  mintForumToken,
  type ForumActor,
} from '../../../test/factories/forum.js';
import { buildTestApp, json, portal, signIn, type TestApp } from '../../../test/helpers/app.js';
import { testDatabases } from '../../../test/helpers/databases.js';
import { pageText, UiClient } from '../../../test/helpers/forum-ui.js';
import { startSmtpSink, type SmtpSink, sinkMailEnv } from '../../../test/helpers/smtp-sink.js';

for (const database of testDatabases) {
  describe(`forum trust and hold pages [${database}]`, () => {
    let sink: SmtpSink;
    let t: TestApp;
    let bob: ForumActor;
    let moderator: ForumActor;
    let topic: string;
    const host = communityHost('trustui');
    const as = async (actor: ForumActor) => {
      const ui = new UiClient(t.app, host);
      assert.equal((await ui.login(actor.member.username, actor.password)).statusCode, 303);
      return ui;
    };

    before(async () => {
      sink = await startSmtpSink();
      t = await buildTestApp({
        database,
        env: {
          BLUME_RATE_LOGIN_PER_MINUTE: '1000',
          BLUME_RATE_POSTS_PER_MINUTE: '1000',
          ...sinkMailEnv(sink),
          BLUME_MAIL_DEFAULT_SENDER: 'Club <club@blume.test>',
        },
      });
      const owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'trustui');
      const settings = {
        FORUM_EMAIL_CONFIRMATION: 'false',
        FORUM_HOLD_FIRST_POSTS: 'true',
        FORUM_TRUST_MIN_POSTS: '1',
        FORUM_TRUST_MIN_TOPICS_READ: '1',
      };
      assert.equal(
        (await portal(t.app, owner, { method: 'PUT', url: '/api/instances/trustui/env', payload: settings }))
          .statusCode,
        200,
      );
      assert.equal(
        (await portal(t.app, owner, { method: 'POST', url: '/api/instances/trustui/restart' })).statusCode,
        200,
      );
      const admin = await mintForumToken(t.app, 'trustui', 'owner', owner.password);
      [bob, moderator] = await Promise.all([
        addMember(t.app, 'trustui', 'bob'),
        addMember(t.app, 'trustui', 'mod', 'moderator'),
      ]);
      assert.equal(
        (
          await forumApi(t.app, 'trustui', admin, {
            method: 'POST',
            path: '/forums',
            payload: { name: 'General', slug: 'general' },
          })
        ).statusCode,
        201,
      );
      topic = json<{ id: string }>(
        await forumApi(t.app, 'trustui', admin, {
          method: 'POST',
          path: '/topics',
          payload: { forum_id: 'general', title: 'Welcome', body: 'Say hello' },
        }),
      ).id;
    });
    after(async () => {
      await t.close();
      await sink.close();
    });

    it('holds a new member’s first reply for a moderator, shows its links as text, and lets them show once it is trusted', async () => {
      const nova = new UiClient(t.app, host);
      await nova.get('/signup');
      assert.equal(
        (await nova.post('/signup', { username: 'nova', email: 'nova@example.test', password: 'nova-password-123' }))
          .statusCode,
        303,
      );
      const home = await nova.get('/');
      assert.doesNotMatch(
        home.body,
        /Confirm your e-mail address/,
        'FORUM_EMAIL_CONFIRMATION off: no confirmation asked',
      );
      await t.app.mailOutbox.idle();
      assert.equal(sink.received.filter((mail) => mail.to.includes('nova@example.test')).length, 0, 'and none mailed');

      await nova.get(`/t/${topic}`);
      const posted = await nova.post(`/t/${topic}/reply`, {
        body: 'Hi all, see [my garden](https://nova.example) zzfirstword',
      });
      assert.equal(posted.statusCode, 303, posted.body);
      assert.equal(posted.headers.location, '/held?done=posted');
      const mine = await nova.get('/held?done=posted');
      assert.match(pageText(mine.body), /Your first post waits for a moderator/);
      assert.match(mine.body, /<p>Hi all, see my garden zzfirstword<\/p>/, 'links of a new member are text');
      assert.doesNotMatch(mine.body, /action="\/held\//, 'no approve button for the author');

      const other = await as(bob);
      assert.doesNotMatch((await other.get(`/t/${topic}`)).body, /zzfirstword/);
      assert.doesNotMatch((await other.get('/held')).body, /zzfirstword/, 'another member sees none of it');
      assert.doesNotMatch((await other.get('/search?q=zzfirstword')).body, /my garden/);

      const staff = await as(moderator);
      assert.match(
        pageText((await staff.get('/u/nova')).body),
        /Trust level 0 \(new member: links shown as text, no uploads, fewer posts\)/,
      );
      const queue = await staff.get('/held');
      assert.match(queue.body, /<nav class="admin-tabs" aria-label="Moderation">/);
      const id = /<li class="card" id="held-([^"]+)">/.exec(queue.body)![1]!;
      assert.match(queue.body, /zzfirstword/);
      assert.equal((await other.post(`/held/${id}`, { action: 'approve' })).statusCode, 403);
      const approved = await staff.post(`/held/${id}`, { action: 'approve' });
      assert.equal(approved.statusCode, 303);
      assert.equal(approved.headers.location, '/held?done=approved');
      const page = await other.get(`/t/${topic}`);
      assert.match(page.body, /Hi all, see my garden zzfirstword/);
      assert.doesNotMatch(page.body, /href="https:\/\/nova\.example"/);

      // Nova has a post now and has read the topic: its next page promotes it, and its links show.
      await nova.get(`/t/${topic}`);
      await nova.get('/');
      assert.match(
        (await other.get(`/t/${topic}`)).body,
        /<a href="https:\/\/nova\.example" rel="nofollow ugc noopener noreferrer">my garden<\/a>/,
      );
      assert.match(pageText((await staff.get('/u/nova')).body), /Trust level 1\./);
      const second = await nova.post(`/t/${topic}/reply`, { body: 'Second one' });
      assert.match(String(second.headers.location), new RegExp(`^/t/${topic}`), 'only the first post waits');
      assert.match(pageText((await staff.get('/mod/log')).body), /mod approved a held post of nova/);
    });
  });
}
