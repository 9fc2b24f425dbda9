import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { applyDesiredSettings, replaceDesiredSettings } from '../../core/settings/service.js';
import {
  addMember,
  buildClub,
  communityHost,
  type ForumActor,
  forumApi,
  makeCommunity,
} from '../../../test/factories/forum.js';
import { buildTestApp, signIn, type TestApp } from '../../../test/helpers/app.js';
import { testDatabases } from '../../../test/helpers/databases.js';
import { pageText, UiClient } from '../../../test/helpers/forum-ui.js';
import { MAX_BODY_LENGTH } from '../schemas.js';
import { forumSessions } from '../tables.js';

type Row = Record<string, unknown>;
const XSS = `<script>alert(1)</script>"><img src=x onerror=alert(2)>`;

/** No markup from user input made it onto the page as markup; members' pages load only the forum's own script. */
function assertNoInjection(body: string): void {
  assert.doesNotMatch(body.replace('<script src="/assets/forum.js" defer></script>', ''), /<script/i);
  assert.doesNotMatch(body, /<img[^>]*onerror/i);
}

for (const database of testDatabases) {
  describe(`forum web UI [${database}]`, () => {
    let t: TestApp;
    let admin: string;
    let alice: ForumActor;
    let bob: ForumActor;
    let moderator: ForumActor;
    const host = communityHost('club');
    const client = () => new UiClient(t.app, host);
    const api = (token: string, method: string, path: string, payload?: Row) =>
      forumApi(t.app, 'club', token, { method: method as 'GET', path, ...(payload ? { payload } : {}) });
    const topics: Record<string, string> = {};

    const applySettings = async (values: Record<string, string>) => {
      await replaceDesiredSettings(t.app.deps.database.db, 'club', values, t.config.secretKey);
      await applyDesiredSettings(t.app.deps.database.db, 'club');
      await t.app.services.epochs.announce();
    };

    before(async () => {
      ({ t, admin } = await buildClub(database));
      alice = await addMember(t.app, 'club', 'alice');
      bob = await addMember(t.app, 'club', 'bob');
      moderator = await addMember(t.app, 'club', 'mod', 'moderator');
      assert.equal(
        (await api(admin, 'POST', '/categories', { name: 'Talk', slug: 'talk', description: 'Chat here' })).statusCode,
        201,
      );
      for (const forum of [
        { name: 'General', slug: 'general', category_id: 'talk' },
        { name: 'Inner circle', slug: 'inner', visibility: 'members' },
        { name: 'Staff room', slug: 'staffroom', visibility: 'staff' },
        { name: `Evil ${XSS}`, slug: 'evil', description: XSS },
      ]) {
        assert.equal((await api(admin, 'POST', '/forums', forum)).statusCode, 201);
      }
      for (const [key, forum, title, body] of [
        ['public', 'general', 'Public hello', 'Everyone may read this.'],
        ['members', 'inner', 'Secret plans xyzzy', 'Only members read xyzzy.'],
        ['staff', 'staffroom', 'Staff matters plugh', 'Only staff read plugh.'],
      ] as const) {
        const created = await api(alice.token, 'POST', '/topics', { forum_id: forum, title, body });
        if (key === 'staff') {
          const staff = await api(moderator.token, 'POST', '/topics', { forum_id: forum, title, body });
          assert.equal(staff.statusCode, 201, staff.body);
          topics[key] = String((staff.json() as Row).id);
        } else {
          assert.equal(created.statusCode, 201, created.body);
          topics[key] = String((created.json() as Row).id);
        }
      }
    });
    after(() => t.close());

    it('shows a guest the index by category, forums, topics in both views, search and feeds', async () => {
      const guest = client();
      const index = await guest.get('/');
      assert.equal(index.statusCode, 200);
      assert.match(String(index.headers['content-type']), /text\/html/);
      assert.match(index.body, /<main id="main"/);
      assert.match(index.body, /<h2 id="cat-talk">Talk<\/h2>/);
      assert.match(index.body, /href="\/f\/general"/);
      const forum = await guest.get('/f/general');
      assert.equal(forum.statusCode, 200);
      assert.match(forum.body, /Public hello/);
      assert.match(forum.body, /Log in to start a topic/);
      for (const view of ['classic', 'threaded']) {
        const topic = await guest.get(`/t/${topics.public}?view=${view}`);
        assert.equal(topic.statusCode, 200);
        assert.match(topic.body, /Everyone may read this\./);
        assert.match(topic.body, /Log in to reply/);
        assert.doesNotMatch(topic.body, /name="body"/);
      }
      const search = await guest.get('/search?q=everyone');
      assert.match(search.body, /Public hello/);
      // Matches are marked; filters narrow by forum, author and day, and stay in the form.
      assert.match(search.body, /<mark>Everyone<\/mark> may read this\./);
      assert.match((await guest.get('/search?q=everyone&forum=general&after=2000-01-01')).body, /Public hello/);
      const narrowed = await guest.get('/search?q=everyone&author=nobody-at-all');
      assert.match(narrowed.body, /Nothing found for “everyone” with these filters\./);
      assert.match(narrowed.body, /<details class="filters" open>/);
      assert.match(narrowed.body, /id="author" name="author" value="nobody-at-all"/);
      assert.match((await guest.get('/search?q=everyone&before=2000-01-01')).body, /Nothing found/);
      // A category narrows too; matched title words are marked like the excerpt's.
      const inCategory = await guest.get('/search?q=hello&category=talk');
      assert.match(inCategory.body, /Public <mark>hello<\/mark><\/a>/);
      assert.match(inCategory.body, /<option value="talk" selected>Talk<\/option>/);
      assert.match((await guest.get('/search?q=hello&category=nosuch')).body, /Nothing found/);
      assert.equal((await guest.get('/search?q=everyone&after=not-a-day')).statusCode, 400);
      const feed = await guest.get('/feed.atom');
      assert.equal(feed.statusCode, 200);
      assert.match(String(feed.headers['content-type']), /application\/atom\+xml/);
      assert.match(feed.body, /<title>Public hello<\/title>/);
      assert.equal(feed.headers['set-cookie'], undefined);
      assert.match((await guest.get('/f/general/feed.atom')).body, /Public hello/);
      assert.equal((await guest.get('/assets/forum.css')).statusCode, 200);
    });

    it('never shows a guest members-only or staff content in pages, search or feeds', async () => {
      const guest = client();
      const pages = [
        await guest.get('/'),
        await guest.get('/latest'),
        await guest.get('/search?q=xyzzy'),
        await guest.get('/search?q=plugh'),
        await guest.get('/feed.atom'),
        await guest.get('/f/general'),
      ];
      for (const page of pages) {
        assert.doesNotMatch(page.body, /Inner circle|Secret plans|Staff room|Staff matters/);
      }
      // The search form's forum list is the guest's view too.
      assert.doesNotMatch((await guest.get('/search')).body, /value="inner"|value="staff"/);
      assert.equal((await guest.get('/f/inner')).statusCode, 404);
      assert.equal((await guest.get('/f/inner/feed.atom')).statusCode, 404);
      assert.equal((await guest.get(`/t/${topics.members}`)).statusCode, 404);
      assert.equal((await guest.get(`/t/${topics.staff}`)).statusCode, 404);
      // Members see members-only content, never staff content; feeds stay the guest's view.
      const member = client();
      assert.equal((await member.login('bob', bob.password)).statusCode, 303);
      assert.match((await member.get('/')).body, /Inner circle/);
      assert.doesNotMatch((await member.get('/')).body, /Staff room/);
      const latest = (await member.get('/latest')).body;
      assert.match(latest, /Secret plans/);
      assert.doesNotMatch(latest, /Staff matters/);
      assert.match((await member.get('/search?q=xyzzy')).body, /Secret plans/);
      assert.doesNotMatch((await member.get('/search?q=plugh')).body, /Staff matters/);
      assert.equal((await member.get(`/t/${topics.staff}`)).statusCode, 404);
      assert.doesNotMatch((await member.get('/feed.atom')).body, /Secret plans/);
      const staff = client();
      await staff.login('mod', moderator.password);
      assert.match((await staff.get('/')).body, /Staff room/);
      assert.equal((await staff.get(`/t/${topics.staff}`)).statusCode, 200);
      assert.match((await staff.get('/latest')).body, /Staff matters/);
    });

    it('gives search engines robots.txt, a sitemap of what a guest sees, and topic pages a canonical URL and preview tags', async () => {
      const guest = client();
      const robots = await guest.get('/robots.txt');
      assert.equal(robots.statusCode, 200);
      assert.match(robots.body, /^User-agent: \*$/m);
      assert.match(robots.body, /^Disallow: \/admin$/m);
      assert.match(robots.body, new RegExp(`^Sitemap: http://${host.replace(/\./g, '\\.')}/sitemap.xml$`, 'm'));
      const sitemap = await guest.get('/sitemap.xml');
      assert.equal(sitemap.statusCode, 200);
      assert.match(String(sitemap.headers['content-type']), /application\/xml/);
      assert.match(
        sitemap.body,
        new RegExp(`<loc>http://${host.replace(/\./g, '\\.')}/t/${topics.public}</loc><lastmod>`),
      );
      assert.match(sitemap.body, /\/f\/general<\/loc>/);
      assert.doesNotMatch(
        sitemap.body,
        new RegExp(`${topics.members}|${topics.staff}|/f/inner|/f/staffroom`),
        'nothing a guest may not see',
      );
      const page = (await guest.get(`/t/${topics.public}`)).body;
      assert.match(
        page,
        new RegExp(`<link rel="canonical" href="http://${host.replace(/\./g, '\\.')}/t/${topics.public}">`),
      );
      assert.match(page, /<meta property="og:title" content="Public hello">/);
      assert.match(page, /<meta name="description" content="Everyone may read this\.">/);
      assert.match(
        (await guest.get(`/t/${topics.public}?view=threaded`)).body,
        /<meta name="description" content="Everyone may read this\.">/,
        'read from the opening post where the page does not start with it',
      );
    });

    it('signs up a member with a hashed, HttpOnly, SameSite=Lax session, and honours REGISTRATION_OPEN', async () => {
      const visitor = client();
      const response = await visitor.submit('/signup', '/signup', {
        username: 'carol',
        email: 'carol@example.test',
        password: 'carol-password-1',
      });
      assert.equal(response.statusCode, 303, response.body);
      const cookie = response.cookies.find((c) => c.name === 'blume_member')!;
      assert.equal(cookie.httpOnly, true);
      assert.equal(cookie.sameSite, 'Lax');
      assert.equal(cookie.secure, undefined);
      assert.equal(cookie.domain, undefined);
      const [id, secret] = cookie.value.split('.');
      const [row] = await t.app.deps.database.db.select().from(forumSessions).where(eq(forumSessions.id, id!));
      assert.ok(row);
      assert.notEqual(row.secretHash, secret);
      assert.match((await visitor.get('/')).body, /href="\/account">carol</);
      const taken = await client().submit('/signup', '/signup', {
        username: 'carol',
        email: 'other@example.test',
        password: 'carol-password-1',
      });
      assert.equal(taken.statusCode, 409);
      assert.match(taken.body, /taken/);
      const weak = await client().submit('/signup', '/signup', {
        username: 'dave',
        email: 'dave@example.test',
        password: 'short',
      });
      assert.equal(weak.statusCode, 422);
      const common = await client().submit('/signup', '/signup', {
        username: 'dave',
        email: 'dave@example.test',
        password: 'Password123',
      });
      assert.equal(common.statusCode, 422);
      assert.match(common.body, /one of the most common passwords/);
      assert.match(common.body, /value="dave"/);

      await applySettings({ REGISTRATION_OPEN: 'false', FORUM_TITLE: `Club ${XSS}` });
      try {
        const closed = client();
        const page = await closed.get('/signup');
        assert.match(page.body, /Sign-up is closed/);
        assertNoInjection(page.body);
        assert.match(page.body, /<title>Sign up · Club &lt;script&gt;/);
        assert.doesNotMatch((await closed.get('/')).body, /href="\/signup"/);
        const refused = await closed.post('/signup', {
          username: 'erin',
          email: 'erin@example.test',
          password: 'erin-password-1',
        });
        assert.equal(refused.statusCode, 403);
      } finally {
        await applySettings({});
      }
    });

    it('answers one message for unknown logins and wrong passwords, and rejects foreign redirects', async () => {
      const unknown = await client().login('nobody-here', 'whatever-password');
      const wrong = await client().login('alice', 'wrong-password-123');
      assert.equal(unknown.statusCode, 401);
      assert.equal(wrong.statusCode, 401);
      const message = (body: string) => /<p class="notice error"[^>]*>([^<]*)</.exec(body)?.[1];
      assert.equal(message(unknown.body), message(wrong.body));
      assert.equal(message(unknown.body), 'The login or password is wrong.');
      assert.ok(!unknown.cookies.some((c) => c.name === 'blume_member'));
      const visitor = client();
      await visitor.get('/login');
      const away = await visitor.post('/login', { login: 'alice', password: alice.password, next: '//evil.example/' });
      assert.equal(away.statusCode, 303);
      assert.equal(away.headers.location, '/');
      // The site owner logs in with the platform account and acts as admin.
      const ownerUi = client();
      assert.equal((await ownerUi.login('owner', 'pw-owner-0123456789')).statusCode, 303);
      assert.match((await ownerUi.get('/account')).body, /admin/);
    });

    it('refuses forms without a valid CSRF token or from a foreign origin', async () => {
      const member = client();
      await member.login('alice', alice.password);
      await member.get('/f/general/new');
      const good = member.csrf;
      const fields = { title: 'CSRF test', body: 'Body' };
      assert.equal((await member.post('/f/general/new', fields, { csrf: false })).statusCode, 403);
      assert.equal((await member.post('/f/general/new', fields, { csrf: 'forged' })).statusCode, 403);
      assert.equal((await member.post('/f/general/new', fields, { origin: 'https://evil.example' })).statusCode, 403);
      // A token from another member's session is no good here.
      const other = client();
      await other.login('bob', bob.password);
      await other.get('/f/general/new');
      const refused = await member.post('/f/general/new', fields, { csrf: other.csrf });
      assert.equal(refused.statusCode, 403);
      assert.match(refused.body, /Cross-site request refused/);
      // Logging in and out are forms too.
      assert.equal(
        (await client().post('/login', { login: 'alice', password: alice.password }, { csrf: false })).statusCode,
        403,
      );
      assert.equal((await member.post('/logout', {}, { csrf: 'forged' })).statusCode, 403);
      assert.equal((await member.post('/f/general/new', fields, { csrf: good })).statusCode, 303);
    });

    it('lets a member start a topic, reply in both views, edit and delete own posts only', async () => {
      const member = client();
      await member.login('alice', alice.password);
      const created = await member.submit('/f/general/new', '/f/general/new', {
        title: 'My topic',
        body: 'Opening **words**',
      });
      assert.equal(created.statusCode, 303);
      const topicUrl = String(created.headers.location);
      const topicId = topicUrl.split('/')[2]!;
      let page = await member.get(topicUrl);
      assert.match(page.body, /Opening <strong>words<\/strong>/);
      const opening = /id="p-([0-9a-z]+)"/.exec(page.body)![1]!;
      const classic = await member.post(`/t/${topicId}/reply`, { body: 'A classic reply', view: 'classic' });
      assert.equal(classic.statusCode, 303);
      assert.match(String(classic.headers.location), /page=last#p-/);
      page = await member.get(`/t/${topicId}?view=threaded`);
      const threaded = await member.post(`/t/${topicId}/reply`, {
        body: 'A threaded reply',
        parent_id: opening,
        view: 'threaded',
      });
      assert.equal(threaded.statusCode, 303);
      const replyId = /#p-(.+)$/.exec(String(threaded.headers.location))![1]!;
      page = await member.get(`/t/${topicId}?view=threaded`);
      assert.match(page.body, new RegExp(`<ol class="replies"><li><article class="post" id="p-${replyId}"`));
      const posts = await api(alice.token, 'GET', `/topics/${topicId}/posts`);
      assert.equal((posts.json() as Row[]).find((p) => p.id === replyId)!.parent_id, opening);

      const edit = await member.submit(`/p/${replyId}/edit`, `/p/${replyId}/edit`, { body: 'Edited reply' });
      assert.equal(edit.statusCode, 303);
      assert.match((await member.get(`/t/${topicId}`)).body, /Edited reply/);
      const intruder = client();
      await intruder.login('bob', bob.password);
      assert.doesNotMatch((await intruder.get(`/t/${topicId}`)).body, new RegExp(`/p/${replyId}/edit`));
      assert.equal(
        (await intruder.submit(`/t/${topicId}`, `/p/${replyId}/edit`, { body: 'Hijacked' })).statusCode,
        403,
      );
      assert.equal((await intruder.post(`/p/${replyId}/delete`, {})).statusCode, 403);
      assert.equal((await member.submit(`/t/${topicId}`, `/p/${replyId}/delete`, {})).statusCode, 303);
      assert.match((await member.get(`/t/${topicId}`)).body, /This post was deleted/);
      // Guests who try to write are sent to log in.
      const guest = client();
      const newTopic = await guest.get('/f/general/new');
      assert.equal(newTopic.statusCode, 303);
      assert.equal(newTopic.headers.location, '/login?next=%2Ff%2Fgeneral%2Fnew');
      await guest.get('/login');
      const refused = await guest.post(`/t/${topicId}/reply`, { body: 'x' });
      assert.equal(refused.statusCode, 401);
      assert.match(refused.body, /href="\/login"/);
    });

    it('refuses oversize posts and empty ones, keeping what was typed', async () => {
      const member = client();
      await member.login('alice', alice.password);
      await member.get('/f/general/new');
      const tooLong = await member.post('/f/general/new', { title: 'Long one', body: 'x'.repeat(MAX_BODY_LENGTH + 1) });
      assert.equal(tooLong.statusCode, 413);
      assert.match(tooLong.body, /longer than 50,000 characters/);
      assert.match(tooLong.body, /value="Long one"/);
      const huge = await member.post('/f/general/new', { title: 'Huge', body: 'x'.repeat(MAX_BODY_LENGTH * 13) });
      assert.equal(huge.statusCode, 413);
      assert.match(String(huge.headers['content-type']), /text\/html/);
      const empty = await member.submit('/f/general/new', '/f/general/new', { title: 'Empty', body: '   ' });
      assert.equal(empty.statusCode, 422);
      assert.equal(
        (
          await member.submit(`/t/${topics.public}`, `/t/${topics.public}/reply`, {
            body: 'y'.repeat(MAX_BODY_LENGTH + 1),
          })
        ).statusCode,
        413,
      );
    });

    it('escapes script injection in every field that reaches a page', async () => {
      const evil = client();
      const signup = await evil.submit('/signup', '/signup', { username: XSS, email: XSS, password: 'password-12345' });
      assert.equal(signup.statusCode, 422);
      assertNoInjection(signup.body);
      const login = await evil.submit('/login', '/login', { login: XSS, password: 'x', next: XSS });
      assertNoInjection(login.body);
      await evil.login('alice', alice.password);
      const created = await evil.submit('/f/general/new', '/f/general/new', {
        title: `Title ${XSS}`,
        body: `Body ${XSS}\n\n[link](javascript:alert(3))`,
      });
      assert.equal(created.statusCode, 303);
      const topicUrl = String(created.headers.location);
      await evil.post(`${topicUrl}/reply`, { body: `Reply ${XSS}` });
      await evil.get('/account');
      const minted = await evil.post('/account/tokens', { name: `Token ${XSS}` });
      assert.equal(minted.statusCode, 201);
      const pages = [
        minted,
        await evil.get('/'),
        await evil.get('/f/evil'),
        await evil.get('/f/general'),
        await evil.get(topicUrl),
        await evil.get(`${topicUrl}?view=threaded`),
        await evil.get(`/search?q=${encodeURIComponent(XSS)}`),
        await evil.get('/search?q=title'),
        await evil.get('/account'),
        await evil.get('/u/alice'),
        await evil.get(`/u/${encodeURIComponent(XSS)}`),
        await evil.get(`/f/${encodeURIComponent(XSS)}`),
      ];
      for (const page of pages) assertNoInjection(page.body);
      assert.doesNotMatch(pages[4]!.body, /href="javascript:/);
      const feed = await client().get('/feed.atom');
      assert.doesNotMatch(feed.body, /<script|<img/i);
    });

    it('keeps a topic title as typed and escapes it on pages, feeds, search and the API', async () => {
      const title = 'Why does <div> not center? a < b & "c"';
      const created = await api(alice.token, 'POST', '/topics', {
        forum_id: 'general',
        title,
        body: 'Flexbox question centerpiece.',
      });
      assert.equal(created.statusCode, 201, created.body);
      const id = String((created.json() as Row).id);
      assert.equal((created.json() as Row).title, title);
      assert.equal(((await api(alice.token, 'GET', `/topics/${id}`)).json() as Row).title, title);
      const hits = (await api(alice.token, 'GET', '/search?q=centerpiece')).json() as Row[];
      assert.deepEqual(
        hits.map((hit) => (hit.topic as Row).title),
        [title],
      );
      const escaped = 'Why does &lt;div&gt; not center? a &lt; b &amp; &quot;c&quot;';
      const reader = client();
      for (const url of [`/t/${id}`, '/f/general', '/search?q=centerpiece', '/feed.atom', '/f/general/feed.atom']) {
        const page = await reader.get(url);
        assert.ok(page.body.includes(escaped), url);
        assert.ok(!page.body.includes('<div> not center'), url);
      }
      const edited = await api(admin, 'PATCH', `/topics/${id}`, { title: '<b>bold</b> claim' });
      assert.equal((edited.json() as Row).title, '<b>bold</b> claim', edited.body);
    });

    it('lets moderators pin, lock, hide and ban; members cannot', async () => {
      const staff = client();
      await staff.login('mod', moderator.password);
      const member = client();
      await member.login('bob', bob.password);
      const topic = topics.public!;
      assert.doesNotMatch((await member.get(`/t/${topic}`)).body, /aria-label="Moderation"/);
      assert.equal((await member.post(`/t/${topic}/moderate`, { action: 'lock' })).statusCode, 403);

      assert.match((await staff.get(`/t/${topic}`)).body, /aria-label="Moderation"/);
      assert.equal((await staff.post(`/t/${topic}/moderate`, { action: 'pin' })).statusCode, 303);
      const forum = await client().get('/f/general');
      assert.match(
        forum.body,
        /<tbody><tr>\s*<td><a class="title" href="\/t\/[^"]+">Public hello<\/a><span class="badge pin">Pinned/,
      );

      assert.equal((await staff.submit(`/t/${topic}`, `/t/${topic}/moderate`, { action: 'lock' })).statusCode, 303);
      assert.match((await member.get(`/t/${topic}`)).body, /This topic is locked/);
      assert.equal((await member.post(`/t/${topic}/reply`, { body: 'Still here?' })).statusCode, 403);
      assert.equal((await staff.submit(`/t/${topic}`, `/t/${topic}/moderate`, { action: 'unlock' })).statusCode, 303);

      assert.equal((await staff.submit(`/t/${topic}`, `/t/${topic}/moderate`, { action: 'hide' })).statusCode, 303);
      assert.equal((await client().get(`/t/${topic}`)).statusCode, 404);
      assert.doesNotMatch((await client().get('/feed.atom')).body, /Public hello/);
      assert.equal((await staff.submit(`/t/${topic}`, `/t/${topic}/moderate`, { action: 'unhide' })).statusCode, 303);
      assert.equal((await staff.post(`/t/${topic}/moderate`, { action: 'constructor' })).statusCode, 400);

      // Banning ends the member's sessions and stops logins; moderators cannot ban staff.
      assert.equal((await member.submit('/u/mod', '/u/mod/ban', { banned: 'true' })).statusCode, 403);
      assert.equal((await staff.submit('/u/owner', '/u/owner/ban', { banned: 'true' })).statusCode, 403);
      assert.equal((await staff.submit('/u/bob', '/u/bob/ban', { banned: 'true' })).statusCode, 303);
      assert.match((await member.get('/')).body, /href="\/login"/);
      const again = await client().login('bob', bob.password);
      assert.equal(again.statusCode, 403);
      assert.match(again.body, /banned/);
      assert.equal((await staff.submit('/u/bob', '/u/bob/ban', { banned: 'false' })).statusCode, 303);
      assert.equal((await client().login('bob', bob.password)).statusCode, 303);
    });

    it('manages forum tokens: minted once, usable on the API, revocable', async () => {
      const member = client();
      await member.login('alice', alice.password);
      await member.get('/account');
      const minted = await member.post('/account/tokens', { name: 'script' });
      assert.equal(minted.statusCode, 201);
      assert.equal(minted.headers['cache-control'], 'no-store');
      const token = /<code class="token" id="new-token">([^<]+)<\/code>/.exec(minted.body)![1]!;
      assert.equal((await api(token, 'GET', '/topics')).statusCode, 200);
      const listed = await member.get('/account');
      assert.doesNotMatch(listed.body, new RegExp(token.split('.')[1]!));
      const tokenId = token.slice('blu_ft_'.length).split('.')[0]!;
      assert.equal((await member.post(`/account/tokens/${tokenId}/revoke`, {})).statusCode, 200);
      assert.equal((await api(token, 'GET', '/topics')).statusCode, 401);
      assert.equal((await member.post(`/account/tokens/${tokenId}/revoke`, {})).statusCode, 404);
    });

    it('changes the password, ending other sessions', async () => {
      const [first, second] = [client(), client()];
      await addMember(t.app, 'club', 'frank');
      await first.login('frank', 'pw-frank-0123456789');
      await second.login('frank', 'pw-frank-0123456789');
      await first.get('/account');
      const wrong = await first.post('/account/password', {
        current_password: 'nope-nope-nope',
        new_password: 'new-password-123',
      });
      assert.equal(wrong.statusCode, 422);
      assert.match(wrong.body, /current password is wrong/);
      const changed = await first.post('/account/password', {
        current_password: 'pw-frank-0123456789',
        new_password: 'new-password-123',
      });
      assert.equal(changed.statusCode, 200);
      assert.match(changed.body, /password is changed/);
      assert.match((await first.get('/account')).body, /Your profile/);
      assert.equal((await second.get('/account')).statusCode, 303);
      assert.equal((await client().login('frank', 'pw-frank-0123456789')).statusCode, 401);
      assert.equal((await client().login('frank', 'new-password-123')).statusCode, 303);
      // Logging out ends the session server-side.
      const cookie = first.cookies.get('blume_member')!;
      await first.get('/');
      assert.equal((await first.post('/logout', {})).statusCode, 303);
      const stale = new UiClient(t.app, host);
      stale.cookies.set('blume_member', cookie);
      assert.match((await stale.get('/')).body, /href="\/login"/);
    });

    it('sends security headers, and no script to guests', async () => {
      const page = await client().get('/');
      const csp = String(page.headers['content-security-policy']);
      assert.match(csp, /default-src 'none'/);
      assert.match(csp, /frame-ancestors 'none'/);
      // Scripts of this origin only (the forum script members' pages load), never inline ones.
      assert.match(csp, /script-src 'self'(;|$)/);
      assert.equal(page.headers['x-content-type-options'], 'nosniff');
      assert.equal(page.headers['x-frame-options'], 'SAMEORIGIN');
      assert.equal(page.headers['referrer-policy'], 'same-origin');
      assert.doesNotMatch(page.body, /<script/i);
      assert.match(page.body, /<label class="sr-only" for="site-search">/);
      // The API keeps answering JSON problems; the portal has no forum pages.
      assert.match(
        String((await forumApi(t.app, 'club', undefined, { method: 'GET', path: '/topics' })).headers['content-type']),
        /problem\+json/,
      );
      assert.equal((await t.app.inject({ url: '/f/general', headers: { host: 'blume.test' } })).statusCode, 404);
      const text = pageText((await client().get('/nope-not-a-page')).body);
      assert.match(text, /No route/);
    });

    it('rate limits login per client', async () => {
      const limited = await buildTestApp({ database, env: { BLUME_RATE_LOGIN_PER_MINUTE: '3' } });
      try {
        const owner = await signIn(limited.app, 'owner2');
        await makeCommunity(limited.app, owner, 'club');
        const visitor = new UiClient(limited.app, host);
        const statuses: number[] = [];
        for (let i = 0; i < 5; i++)
          statuses.push((await visitor.submit('/login', '/login', { login: 'x', password: 'y-password' })).statusCode);
        assert.deepEqual(statuses, [401, 401, 401, 429, 429]);
      } finally {
        await limited.close();
      }
    });
  });
}
