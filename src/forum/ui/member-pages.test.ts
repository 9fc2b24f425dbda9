// The member pages of the forum UI over the Forum API's services: Latest with unread markers and the
// jump to the first unread post, the notifications page and the header's unread count, likes, flags
// and the moderators' queue, relative times; and that none of them shows what the policy withholds.
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { after, before, describe, it } from 'node:test';
import { addMember, buildClub, communityHost, type ForumActor, forumApi } from '../../../test/factories/forum.js';
import { json, type TestApp } from '../../../test/helpers/app.js';
import { testDatabases } from '../../../test/helpers/databases.js';
import { headerCount, UiClient } from '../../../test/helpers/forum-ui.js';

type Row = Record<string, unknown>;
interface Created {
  id: string;
  first_post: { id: string };
}

/** Topic titles of a list page, in order. */
function listedTitles(body: string): string[] {
  return [...body.matchAll(/<a class="title" href="\/t\/[^"]+">([^<]+)<\/a>/g)].map((m) => m[1]!);
}

for (const database of testDatabases) {
  describe(`forum member pages [${database}]`, () => {
    let t: TestApp;
    let admin: string;
    let alice: ForumActor;
    let bob: ForumActor;
    let moderator: ForumActor;
    const host = communityHost('club');
    const client = () => new UiClient(t.app, host);
    const api = (token: string, method: string, path: string, payload?: Row) =>
      forumApi(t.app, 'club', token, { method: method as 'GET', path, ...(payload ? { payload } : {}) });
    const topic = async (token: string, forum: string, title: string, body = `${title} body`) => {
      const created = await api(token, 'POST', '/topics', { forum_id: forum, title, body });
      assert.equal(created.statusCode, 201, created.body);
      return json<Created>(created);
    };
    const reply = async (token: string, topicId: string, body: string) => {
      const created = await api(token, 'POST', `/topics/${topicId}/posts`, { body });
      assert.equal(created.statusCode, 201, created.body);
      return json<{ id: string }>(created).id;
    };
    const as = async (actor: ForumActor) => {
      const ui = client();
      assert.equal((await ui.login(actor.member.username, actor.password)).statusCode, 303);
      return ui;
    };

    before(async () => {
      ({ t, admin } = await buildClub(database));
      [alice, bob, moderator] = await Promise.all([
        addMember(t.app, 'club', 'alice'),
        addMember(t.app, 'club', 'bob'),
        addMember(t.app, 'club', 'mod', 'moderator'),
      ]);
      for (const forum of [
        { name: 'General', slug: 'general' },
        { name: 'Inner circle', slug: 'inner', visibility: 'members' },
        { name: 'Staff room', slug: 'staffroom', visibility: 'staff' },
      ]) {
        assert.equal((await api(admin, 'POST', '/forums', forum)).statusCode, 201);
      }
      // Older topics enough for a second page of Latest.
      for (let i = 1; i <= 20; i++) await topic(alice.token, 'general', `Filler ${i}`);
    });
    after(() => t.close());

    it('lists every topic the viewer may see in Latest, by activity, paged, linked from the header', async () => {
      const quiet = await topic(alice.token, 'general', 'Quiet topic');
      await topic(alice.token, 'inner', 'Members lounge xyzzy');
      await topic(moderator.token, 'staffroom', 'Staff plans plugh');
      await reply(bob.token, quiet.id, 'Waking it up');

      const guest = client();
      const page = await guest.get('/latest');
      assert.equal(page.statusCode, 200);
      assert.match(
        page.body,
        /<nav class="forum-links" aria-label="Forum"><ul><li><a href="\/latest">Latest<\/a><\/li><li><a href="\/support">Support<\/a><\/li><\/ul><\/nav>/,
        'guests get Latest and Support, not notifications or flags',
      );
      assert.match(page.body, /<a href="\/latest" aria-current="page">Latest<\/a>/);
      assert.deepEqual(
        listedTitles(page.body).slice(0, 2),
        ['Quiet topic', 'Filler 20'],
        'the reply moved the quiet topic up',
      );
      assert.doesNotMatch(page.body, /xyzzy|plugh/);
      assert.doesNotMatch(page.body, /class="badge new"/, 'guests have no unread state');
      assert.match(page.body, /<a rel="next" href="\/latest\?page=2">/);
      assert.deepEqual(listedTitles((await guest.get('/latest?page=2')).body), ['Filler 1']);
      assert.match(
        (await guest.get('/')).body,
        /<a href="\/latest">Latest<\/a><\/nav>/,
        'the category view links Latest beside it',
      );

      const member = await as(bob);
      const seen = (await member.get('/latest')).body;
      assert.deepEqual(listedTitles(seen).slice(0, 2), ['Quiet topic', 'Members lounge xyzzy']);
      assert.doesNotMatch(seen, /plugh/);
      const staff = await as(moderator);
      assert.deepEqual(listedTitles((await staff.get('/latest')).body).slice(0, 3), [
        'Quiet topic',
        'Staff plans plugh',
        'Members lounge xyzzy',
      ]);
    });

    it('marks topics with unread posts, jumps to the first unread post and reads them as the pages are seen', async () => {
      const long = await topic(alice.token, 'general', 'Long read');
      const replies: string[] = [];
      for (let i = 1; i <= 20; i++) replies.push(await reply(alice.token, long.id, `Reply number ${i}`));
      const member = await as(bob);
      let latest = (await member.get('/latest')).body;
      assert.match(
        latest,
        new RegExp(
          `<a class="badge new" href="/t/${long.id}/unread">New\
<span class="sr-only">: jump to the first unread post of Long read</span></a>`,
        ),
      );
      // Never opened: the jump is to the opening post.
      assert.equal(
        (await member.get(`/t/${long.id}/unread`)).headers.location,
        `/t/${long.id}?page=1#p-${long.first_post.id}`,
      );

      // Page 1 (posts 1 to 20) is read; the 21st post is the first unread, on page 2.
      const first = await member.get(`/t/${long.id}`);
      assert.doesNotMatch(first.body, /class="badge new"/, 'nothing is "new" on a first visit');
      latest = (await member.get('/latest')).body;
      assert.match(latest, new RegExp(`href="/t/${long.id}/unread"`));
      assert.equal(
        (await member.get(`/t/${long.id}/unread`)).headers.location,
        `/t/${long.id}?page=2#p-${replies[19]}`,
      );
      const second = await member.get(`/t/${long.id}?page=2`);
      assert.match(second.body, new RegExp(`<article class="post new" id="p-${replies[19]}"`));
      assert.match(second.body, /<span class="badge new">New<\/span>/);
      assert.doesNotMatch((await member.get('/latest')).body, new RegExp(`/t/${long.id}/unread`), 'read to the end');
      // The API sees the same marks.
      const unread = json<Array<{ id: string }>>(await api(bob.token, 'GET', '/topics?filter=unread&page_size=100'));
      assert.ok(!unread.some((row) => row.id === long.id));
      assert.equal((await member.get(`/t/${long.id}/unread`)).headers.location, `/t/${long.id}?page=last`);

      // A new reply makes it new again; once its last post is deleted, seeing the page still reads it.
      const gone = await reply(alice.token, long.id, 'Soon deleted');
      assert.match(
        (await member.get('/f/general')).body,
        new RegExp(`/t/${long.id}/unread`),
        'forum pages mark it too',
      );
      assert.equal((await api(moderator.token, 'DELETE', `/posts/${gone}`)).statusCode, 204);
      await member.get(`/t/${long.id}?page=last`);
      assert.doesNotMatch((await member.get('/latest')).body, new RegExp(`/t/${long.id}/unread`));

      // Guests have no marks: the jump asks them to log in.
      const guest = await client().get(`/t/${long.id}/unread`);
      assert.equal(guest.statusCode, 303);
      assert.match(String(guest.headers.location), /^\/login\?next=/);
    });

    it("marks all read from Latest, with the form's CSRF token, until the next post", async () => {
      const member = await as(bob);
      let latest = (await member.get('/latest')).body;
      assert.match(latest, /class="badge new"/, 'the fillers are unread');
      assert.match(latest, /<form method="post" action="\/latest\/read"/);
      assert.equal((await member.post('/latest/read', {}, { csrf: false })).statusCode, 403);
      const marked = await member.post('/latest/read', {});
      assert.equal(marked.statusCode, 303);
      assert.equal(marked.headers.location, '/latest');
      latest = (await member.get('/latest')).body;
      assert.doesNotMatch(latest, /class="badge new"/);
      assert.doesNotMatch(latest, /action="\/latest\/read"/, 'nothing left to mark');
      const fresh = await topic(alice.token, 'general', 'After marking all read');
      assert.match((await member.get('/latest')).body, new RegExp(`href="/t/${fresh.id}/unread"`));
    });

    it('lists notifications newest first with an unread count in the header, and marks them read', async () => {
      assert.equal((await api(alice.token, 'POST', '/notifications/read', {})).statusCode, 200);
      const ideas = await topic(alice.token, 'general', 'Ideas & plans');
      const first = await reply(bob.token, ideas.id, 'A reply for alice');
      const mention = await reply(bob.token, ideas.id, 'What does @mod think?');
      assert.equal((await api(moderator.token, 'POST', `/posts/${ideas.first_post.id}/like`)).statusCode, 200);

      const member = await as(alice);
      const home = await member.get('/');
      assert.equal(headerCount(home.body), 3, 'two replies to her topic (the mention is of mod) and a like');
      const page = await member.get('/notifications');
      assert.equal(page.statusCode, 200);
      assert.equal(page.headers['cache-control'], 'no-store');
      const items = [
        ...page.body.matchAll(
          /<li class="(unread|read)">.*?<a href="\/p\/([^"]+)"><strong>([^<]+)<\/strong> ([^<]+)<\/a>/gs,
        ),
      ].map((m) => `${m[1]} ${m[3]} ${m[4]} ${m[2]}`);
      assert.deepEqual(items.slice(0, 3), [
        `unread mod liked your post in “Ideas &amp; plans” ${ideas.first_post.id}`,
        `unread bob replied in “Ideas &amp; plans” ${mention}`,
        `unread bob replied in “Ideas &amp; plans” ${first}`,
      ]);
      assert.match(
        page.body,
        /<time datetime="[^"]+" title="\d{4}-\d\d-\d\d \d\d:\d\d UTC">now<\/time>/,
        'relative times with the exact time',
      );
      assert.equal((await member.get(`/p/${mention}`)).headers.location, `/t/${ideas.id}?page=1#p-${mention}`);

      const mentioned = await as(moderator);
      assert.equal(headerCount((await mentioned.get('/')).body), 1);
      assert.match(
        (await mentioned.get('/notifications')).body,
        /<strong>bob<\/strong> mentioned you in “Ideas &amp; plans”/,
      );

      // One read, then all; the forms carry the CSRF token.
      const likeId = json<Array<{ id: string; kind: string }>>(await api(alice.token, 'GET', '/notifications')).find(
        (row) => row.kind === 'like',
      )!.id;
      assert.equal((await member.post('/notifications/read', { id: likeId }, { csrf: false })).statusCode, 403);
      assert.equal((await member.post('/notifications/read', { id: likeId })).statusCode, 303);
      const after = await member.get('/notifications');
      assert.equal(headerCount(after.body), 2);
      assert.match(after.body, /<li class="read"><a href="\/p\/[^"]+"><strong>mod<\/strong> liked/);
      assert.equal((await member.post('/notifications/read', {})).statusCode, 303);
      const done = await member.get('/notifications');
      assert.equal(headerCount(done.body), 0);
      assert.match(done.body, /You have read them all\./);
      assert.doesNotMatch(done.body, /Mark all read/);

      assert.equal((await client().get('/notifications')).headers.location, '/login?next=%2Fnotifications');
    });

    it('says "99+" in the header past 99 unread notifications, and the exact count up to them', async () => {
      const member = await as(alice);
      assert.equal((await api(alice.token, 'POST', '/notifications/read', {})).statusCode, 200);
      const ideas = await topic(bob.token, 'general', 'Many replies');
      const db = t.app.deps.database.db;
      const insert = (from: number, to: number) =>
        db.execute(sql`insert into forum_notifications (id, site_id, member_id, kind, topic_id, post_id, actor_id)
          select 'bulk' || n, ${alice.member.siteId}, ${alice.member.id}, 'reply', ${ideas.id}, ${ideas.first_post.id},\
 ${bob.member.id} from generate_series(${from}::int, ${to}::int) n`);
      await insert(1, 99);
      assert.equal(headerCount((await member.get('/')).body), 99);
      await insert(100, 150);
      const page = (await member.get('/notifications')).body;
      assert.match(page, /<span class="count">99\+<span class="sr-only"> unread<\/span><\/span>/);
      assert.match(page, /99\+ unread\./);
      assert.equal(
        json<{ unread_count: number }>(await api(alice.token, 'POST', '/notifications/read', {})).unread_count,
        0,
      );
    });

    it('never shows a member a notification, or counts one, of a topic it may no longer see', async () => {
      const secret = await topic(alice.token, 'inner', 'Lounge secret quux');
      await reply(bob.token, secret.id, 'Hello @alice in the lounge');
      const member = await as(alice);
      await member.get('/');
      assert.equal((await member.post('/notifications/read', {})).statusCode, 303);
      await reply(bob.token, secret.id, 'Another lounge reply');
      assert.equal(headerCount((await member.get('/')).body), 1);
      assert.match((await member.get('/notifications')).body, /quux/);
      // The forum becomes staff only: the notification leaves the page, the count and the API.
      assert.equal((await api(admin, 'PATCH', '/forums/inner', { visibility: 'staff' })).statusCode, 200);
      try {
        const page = await member.get('/notifications');
        assert.doesNotMatch(page.body, /quux/);
        assert.equal(headerCount(page.body), 0);
        assert.doesNotMatch((await member.get('/latest')).body, /quux/);
        assert.ok(!JSON.stringify(json(await api(alice.token, 'GET', '/notifications'))).includes(secret.id));
      } finally {
        assert.equal((await api(admin, 'PATCH', '/forums/inner', { visibility: 'members' })).statusCode, 200);
      }
      // A hidden topic is withheld the same way, from its own author too.
      const staff = await as(moderator);
      assert.equal(
        (await staff.submit(`/t/${secret.id}`, `/t/${secret.id}/moderate`, { action: 'hide' })).statusCode,
        303,
      );
      const hidden = await member.get('/notifications');
      assert.doesNotMatch(hidden.body, /quux/);
      assert.equal(headerCount(hidden.body), 0);
      assert.doesNotMatch((await member.get('/latest')).body, /quux/);
      assert.match((await staff.get('/latest')).body, /Lounge secret quux<\/a><span class="badge">Hidden<\/span>/);
    });

    it("likes and unlikes a post with a form, shows the count, and refuses one's own post", async () => {
      const liked = await topic(alice.token, 'general', 'Likeable');
      const post = liked.first_post.id;
      const member = await as(bob);
      const here = `/t/${liked.id}?view=classic&page=1`;
      let page = (await member.get(`/t/${liked.id}`)).body;
      assert.match(
        page,
        new RegExp(
          `<form method="post" action="/p/${post}/like" class="like"><input type="hidden" name="_csrf" value="[^"]+">\
<input type="hidden" name="liked" value="true"><input type="hidden" name="back" value="${here
            .replace('?', '\\?')
            .replace(
              '&',
              '&amp;',
            )}"><button type="submit" class="secondary small" aria-pressed="false">Like</button></form>`,
        ),
      );
      assert.equal(
        (await member.post(`/p/${post}/like`, { liked: 'true', back: here }, { csrf: false })).statusCode,
        403,
      );
      const done = await member.post(`/p/${post}/like`, { liked: 'true', back: here });
      assert.equal(done.statusCode, 303);
      assert.equal(done.headers.location, `${here}#p-${post}`);
      page = (await member.get(`/t/${liked.id}`)).body;
      assert.match(
        page,
        new RegExp(
          `aria-pressed="true" aria-describedby="likes-${post}">Like</button></form>\
<span class="likes" id="likes-${post}">1 like</span>`,
        ),
      );
      assert.equal(
        ((await api(bob.token, 'GET', `/topics/${liked.id}/posts`)).json() as Row[])[0]!.like_count,
        1,
        'the API counts the same like',
      );

      // Everyone sees the count; the author has no button, and the service refuses as the API does.
      assert.match((await client().get(`/t/${liked.id}`)).body, /<span class="likes" id="likes-[^"]+">1 like<\/span>/);
      const author = await as(alice);
      const own = (await author.get(`/t/${liked.id}`)).body;
      assert.doesNotMatch(own, new RegExp(`action="/p/${post}/like"|action="/p/${post}/flag"`));
      const refused = await author.post(`/p/${post}/like`, { liked: 'true', back: here });
      assert.equal(refused.statusCode, 403);
      assert.match(refused.body, /You cannot like your own post\./);

      // Unlike; a foreign `back` goes nowhere but this site.
      const away = await member.post(`/p/${post}/like`, { liked: 'false', back: '//evil.example/t/x' });
      assert.equal(away.headers.location, `/#p-${post}`);
      page = (await member.get(`/t/${liked.id}`)).body;
      assert.match(page, /aria-pressed="false">Like<\/button>/);
      assert.doesNotMatch(page, /class="likes"/);
      const guest = client();
      await guest.get('/login');
      assert.equal((await guest.post(`/p/${post}/like`, { liked: 'true' })).statusCode, 401);
    });

    it("takes flags with a reason into the moderators' queue, where a moderator hides or dismisses them, with the record kept", async () => {
      const rude = await topic(alice.token, 'general', 'Rude words');
      const spam = await reply(alice.token, rude.id, 'Buy cheap watches zork');
      const fine = await reply(alice.token, rude.id, 'A fine reply');
      const member = await as(bob);
      const topicPage = (await member.get(`/t/${rude.id}`)).body;
      assert.match(
        topicPage,
        new RegExp(
          `<details class="flag"><summary>Flag</summary><form class="stack" method="post" action="/p/${spam}/flag">`,
        ),
      );
      for (const reason of ['spam', 'inappropriate', 'off_topic', 'other'])
        assert.match(topicPage, new RegExp(`<input type="radio" name="reason" value="${reason}" required>`));
      assert.match(topicPage, new RegExp(`<label for="flag-note-${spam}">Note for the moderators`));

      const here = `/t/${rude.id}?view=classic&page=1`;
      assert.equal((await member.post(`/p/${spam}/flag`, { reason: 'nonsense', back: here })).statusCode, 400);
      const flagged = await member.post(`/p/${spam}/flag`, {
        reason: 'spam',
        note: 'Selling <b>watches</b>',
        back: here,
      });
      assert.equal(flagged.statusCode, 303);
      assert.equal(flagged.headers.location, `${here}&flagged=1#p-${spam}`);
      assert.match(
        (await member.get(String(flagged.headers.location).split('#')[0]!)).body,
        /the moderators will look at the post you flagged/,
      );
      const again = await member.post(`/p/${spam}/flag`, { reason: 'spam', back: here });
      assert.equal(again.statusCode, 409);
      assert.match(again.body, /flagged this post already/);
      await member.post(`/p/${fine}/flag`, { reason: 'off_topic', back: here });
      const author = await as(alice);
      await author.get(`/t/${rude.id}`);
      assert.equal((await author.post(`/p/${spam}/flag`, { reason: 'other', back: here })).statusCode, 403);

      // Only staff see the queue.
      assert.equal((await member.get('/mod/flags')).statusCode, 403);
      assert.doesNotMatch((await member.get('/')).body, /href="\/mod\/flags"/);
      assert.equal((await client().get('/mod/flags')).headers.location, '/login?next=%2Fmod%2Fflags');
      const staff = await as(moderator);
      const queue = await staff.get('/mod/flags');
      assert.equal(queue.statusCode, 200);
      assert.match(queue.body, /<li><a href="\/mod\/flags">Flags<\/a><\/li>/);
      assert.match(queue.body, /<strong>Spam<\/strong><span class="meta"> · flagged by <a href="\/u\/bob">bob<\/a>/);
      assert.match(queue.body, /“Selling &lt;b&gt;watches&lt;\/b&gt;”/);
      assert.match(queue.body, /Buy cheap watches zork/);
      const flagId = (post: string) =>
        new RegExp(
          `<li class="card" id="flagged-${post}">\n<div class="card-head">.*?<li id="flag-([^"]+)">`,
          's',
        ).exec(queue.body)![1]!;
      const spamFlag = flagId(spam);
      const fineFlag = flagId(fine);
      assert.match(
        queue.body,
        new RegExp(
          `<form method="post" action="/mod/flags/${spamFlag}">.*?<input type="hidden" name="action" value="hide">\
<button type="submit" class="danger small">Hide post</button>`,
          's',
        ),
      );

      assert.equal((await member.post(`/mod/flags/${spamFlag}`, { action: 'hide' })).statusCode, 403);
      assert.equal((await staff.post(`/mod/flags/${spamFlag}`, { action: 'burn' })).statusCode, 400);
      const hidden = await staff.post(`/mod/flags/${spamFlag}`, { action: 'hide' });
      assert.equal(hidden.statusCode, 303);
      assert.equal(hidden.headers.location, '/mod/flags?done=hidden');
      assert.match((await staff.get('/mod/flags?done=hidden')).body, /The post was hidden\./);
      assert.equal((await staff.post(`/mod/flags/${fineFlag}`, { action: 'dismiss' })).statusCode, 303);
      assert.equal(
        (await staff.post(`/mod/flags/${fineFlag}`, { action: 'hide' })).statusCode,
        409,
        'a decided flag stays decided',
      );

      // The post is gone for everyone; the record says who decided what.
      const after = await client().get(`/t/${rude.id}`);
      assert.doesNotMatch(after.body, /zork/);
      assert.match(
        after.body,
        new RegExp(`<article class="post deleted" id="p-${spam}"><p>This post was deleted.</p>`),
      );
      assert.match(after.body, /A fine reply/);
      assert.match((await staff.get('/mod/flags')).body, /No open flags/);
      const record = (await staff.get('/mod/flags?state=hidden')).body;
      assert.match(record, new RegExp(`id="flag-${spamFlag}"`));
      assert.match(record, /<p>The post is hidden\.<\/p>/);
      assert.doesNotMatch(record, /zork/, 'a hidden post shows no body, as in the API');
      assert.match(record, /Hidden by <a href="\/u\/mod">mod<\/a> <time /);
      assert.match((await staff.get('/mod/flags?state=dismissed')).body, /Dismissed by <a href="\/u\/mod">mod<\/a>/);
      assert.equal(
        json<Row[]>(await api(moderator.token, 'GET', '/flags?state=hidden')).length,
        1,
        'the API shows the same queue',
      );
    });
  });
}
