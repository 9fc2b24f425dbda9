// The moderators' pages beyond hide and dismiss: warn or suspend from the flag queue and from a
// profile, the warning banner until the member acknowledges it, a suspension ending the member's
// session and refusing its login, and the moderation log at /mod/log (moderators only).
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
import { buildTestApp, json, signIn, type TestApp } from '../../../test/helpers/app.js';
import { testDatabases } from '../../../test/helpers/databases.js';
import { pageText, UiClient } from '../../../test/helpers/forum-ui.js';

type Row = Record<string, unknown>;

for (const database of testDatabases) {
  describe(`forum moderation pages [${database}]`, () => {
    let t: TestApp;
    let admin: string;
    let ann: ForumActor;
    let bob: ForumActor;
    let moderator: ForumActor;
    let topic: string;
    const host = communityHost('modui');
    const api = (token: string, method: string, path: string, payload?: Row) =>
      forumApi(t.app, 'modui', token, { method: method as 'GET', path, ...(payload ? { payload } : {}) });
    const as = async (actor: ForumActor) => {
      const ui = new UiClient(t.app, host);
      assert.equal((await ui.login(actor.member.username, actor.password)).statusCode, 303);
      return ui;
    };
    const reply = async (actor: ForumActor, body: string) =>
      json<{ id: string }>(await api(actor.token, 'POST', `/topics/${topic}/posts`, { body })).id;

    before(async () => {
      t = await buildTestApp({
        database,
        env: { BLUME_RATE_LOGIN_PER_MINUTE: '1000', BLUME_RATE_POSTS_PER_MINUTE: '1000' },
      });
      const owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'modui');
      admin = await mintForumToken(t.app, 'modui', 'owner', owner.password);
      [ann, bob, moderator] = await Promise.all([
        addMember(t.app, 'modui', 'ann'),
        addMember(t.app, 'modui', 'bob'),
        addMember(t.app, 'modui', 'mod', 'moderator'),
      ]);
      assert.equal((await api(admin, 'POST', '/forums', { name: 'General', slug: 'general' })).statusCode, 201);
      topic = json<{ id: string }>(
        await api(admin, 'POST', '/topics', { forum_id: 'general', title: 'Hello', body: 'Say hi' }),
      ).id;
    });
    after(() => t.close());

    it('warns a flagged post’s author from the queue; the member sees the warning on every page until it says it understands', async () => {
      const rude = await reply(ann, 'Rude words');
      const flag = json<{ id: string }>(
        await api(bob.token, 'POST', `/posts/${rude}/flags`, { reason: 'inappropriate' }),
      );
      const staff = await as(moderator);
      const queue = await staff.get('/mod/flags');
      assert.match(queue.body, /<nav class="admin-tabs" aria-label="Moderation">.*href="\/mod\/log"/s);
      assert.match(
        queue.body,
        new RegExp(
          `<summary>Hide and warn or suspend the author…</summary>\
\\s*<form class="stack" method="post" action="/mod/flags/${flag.id}">`,
        ),
      );
      assert.match(queue.body, new RegExp(`<label for="reason-${flag.id}">Reason \\(the member reads it\\)</label>`));
      const noReason = await staff.post(`/mod/flags/${flag.id}`, { sanction: 'warn', reason: ' ' });
      assert.equal(noReason.statusCode, 422);
      const warned = await staff.post(`/mod/flags/${flag.id}`, { sanction: 'warn', reason: 'Be kind <b>please</b>' });
      assert.equal(warned.statusCode, 303, warned.body);
      assert.equal(warned.headers.location, '/mod/flags?done=warned');
      assert.match((await staff.get('/mod/flags?done=warned')).body, /The post was hidden and its author warned\./);

      const member = await as(ann);
      const home = await member.get('/');
      assert.match(
        home.body,
        /<div class="notice warn" role="alert"><p><strong>A moderator warned you<\/strong> <time[^>]*>[^<]*<\/time>: Be kind &lt;b&gt;please&lt;\/b&gt;<\/p>/,
      );
      const other = await as(bob);
      assert.doesNotMatch((await other.get('/')).body, /A moderator warned you/);
      const id = /action="\/warnings\/([^"]+)\/acknowledge"/.exec(home.body)![1]!;
      assert.equal(
        (await other.post(`/warnings/${id}/acknowledge`, {})).statusCode,
        404,
        'only the warned member acknowledges',
      );
      assert.equal((await member.post(`/warnings/${id}/acknowledge`, {})).statusCode, 303);
      assert.doesNotMatch((await member.get('/')).body, /A moderator warned you/);
    });

    it('suspends from the profile: the session ends, the login says until when and why, and lifting lets the member back', async () => {
      const staff = await as(moderator);
      const member = await as(bob);
      assert.match((await member.get('/')).body, /href="\/account">bob</);
      const profile = await staff.get('/u/bob');
      assert.match(pageText(profile.body), /Standing Trust level 1\./);
      assert.match(profile.body, /<form class="stack" method="post" action="\/u\/bob\/sanction">/);
      assert.doesNotMatch((await member.get('/u/ann')).body, /Standing|Trust level/, 'members do not see standing');

      assert.equal(
        (await staff.post('/u/bob/sanction', { sanction: 'suspend', length: 'forever', reason: 'x' })).statusCode,
        400,
      );
      const suspended = await staff.post('/u/bob/sanction', { sanction: 'suspend', length: '7d', reason: 'Cool off' });
      assert.equal(suspended.statusCode, 303, suspended.body);
      assert.match(
        pageText((await staff.get('/u/bob')).body),
        /Suspended until \d{4}-\d\d-\d\d \d\d:\d\d UTC : Cool off\./,
      );

      const after = await member.get('/');
      assert.doesNotMatch(after.body, /href="\/account">bob</, 'the old session ended');
      assert.match(after.body, /href="\/login">Log in</);
      const again = await new UiClient(t.app, host).login('bob', bob.password);
      assert.equal(again.statusCode, 403);
      assert.match(pageText(again.body), /This member is suspended until \d{4}-\d\d-\d\dT[\d:.]+Z: Cool off\./);
      assert.equal(
        (await member.post('/u/ann/sanction', { sanction: 'warn', reason: 'x' })).statusCode,
        403,
        'a logged-out session acts for nobody',
      );

      assert.equal((await staff.post('/u/bob/unsuspend', {})).statusCode, 303);
      assert.equal((await new UiClient(t.app, host).login('bob', bob.password)).statusCode, 303);
    });

    it('shows the moderation log to moderators, by member too, and to nobody else', async () => {
      const staff = await as(moderator);
      const text = pageText((await staff.get('/mod/log')).body);
      assert.match(
        text,
        /mod lifted the suspension of bob.* mod suspended bob until \d{4}-\d\d-\d\d \d\d:\d\d UTC.*“Cool off”.* mod warned ann.*“Be kind &lt;b&gt;please&lt;\/b&gt;”.* mod hid a post of ann/,
      );
      const bobs = pageText((await staff.get(`/mod/log?member=${bob.member.id}`)).body);
      assert.match(bobs, /Moderation log: bob/);
      assert.doesNotMatch(bobs, /warned ann/);
      assert.equal((await (await as(ann)).get('/mod/log')).statusCode, 403);
      assert.equal((await new UiClient(t.app, host).get('/mod/log')).statusCode, 303, 'guests are sent to log in');
    });
  });
}
