import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  addMember,
  FORUM_BASE,
  forumApi,
  makeCommunity,
  mintForumToken,
  type ForumActor,
} from '../../test/factories/forum.js';
import { buildTestApp, json, portal, signIn, type Actor, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';

type Row = Record<string, unknown>;

for (const database of testDatabases) {
  describe(`forum API [${database}]`, () => {
    let t: TestApp;
    let owner: Actor;
    let admin: string;
    let alice: ForumActor;
    let moderator: ForumActor;
    const api = (token: string | undefined, method: string, path: string, payload?: unknown) =>
      forumApi(t.app, 'club', token, {
        method: method as 'GET',
        path,
        ...(payload !== undefined ? { payload: payload as Row } : {}),
      });

    const newTopic = async (token: string, forum: string, title: string, body = 'Opening post.') => {
      const response = await api(token, 'POST', '/topics', { forum_id: forum, title, body });
      assert.equal(response.statusCode, 201, response.body);
      return json<Row & { id: string; first_post: Row & { id: string } }>(response);
    };

    before(async () => {
      t = await buildTestApp({
        database,
        env: {
          BLUME_RATE_LOGIN_PER_MINUTE: '1000',
          BLUME_RATE_POSTS_PER_MINUTE: '1000',
          BLUME_RATE_WAITLIST_PER_MINUTE: '1000',
        },
      });
      owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'club');
      admin = await mintForumToken(t.app, 'club', 'owner', owner.password);
      alice = await addMember(t.app, 'club', 'alice');
      moderator = await addMember(t.app, 'club', 'mod', 'moderator');
      for (const forum of [
        { name: 'General', slug: 'general' },
        { name: 'Locked', slug: 'locked', locked: true },
      ]) {
        assert.equal((await api(admin, 'POST', '/forums', forum)).statusCode, 201);
      }
    });
    after(() => t.close());

    it('lets the site owner act as admin through a linked member', async () => {
      const members = await api(admin, 'GET', '/members');
      assert.equal(members.statusCode, 200);
      const me = json<Row[]>(members).find((m) => m.site_owner === true)!;
      assert.equal(me.username, 'owner');
      assert.equal(me.role, 'admin');
      const change = await api(admin, 'PATCH', `/members/${String(me.id)}`, { role: 'member' });
      assert.equal(change.statusCode, 409);
      assert.equal(json(change).code, 'owner_member');
      assert.equal((await api(alice.token, 'GET', '/members')).statusCode, 403);
    });

    it('manages categories and forums as admin only', async () => {
      const category = await api(admin, 'POST', '/categories', { name: 'Talk', slug: 'talk', description: 'Chat' });
      assert.equal(category.statusCode, 201);
      const forum = await api(admin, 'POST', '/forums', {
        name: 'Ideas',
        slug: 'ideas',
        category_id: 'talk',
        visibility: 'members',
      });
      assert.equal(forum.statusCode, 201);
      assert.equal(json(forum).category_id, json(category).id);
      assert.equal(json(forum).visibility, 'members');
      assert.equal(json(await api(admin, 'POST', '/forums', { name: 'Again', slug: 'ideas' })).code, 'slug_taken');
      assert.equal(
        json(await api(admin, 'POST', '/forums', { name: 'X', slug: 'x', category_id: 'nope' })).code,
        'category_not_found',
      );
      assert.equal(
        json(await api(admin, 'POST', '/forums', { name: 'X', slug: 'Bad Slug' })).code,
        'validation_failed',
      );
      assert.equal((await api(alice.token, 'POST', '/forums', { name: 'Mine', slug: 'mine' })).statusCode, 403);
      assert.equal((await api(moderator.token, 'POST', '/categories', { name: 'Mine', slug: 'mine' })).statusCode, 403);
      const patched = await api(admin, 'PATCH', '/forums/ideas', { description: 'Share ideas', slug: 'ideas-2' });
      assert.equal(patched.statusCode, 200);
      assert.equal(json(patched).slug, 'ideas-2');
      assert.equal((await api(alice.token, 'GET', '/forums/ideas-2')).statusCode, 200);
      assert.equal((await api(admin, 'PATCH', '/categories/talk', { name: 'Talking' })).statusCode, 200);
      assert.deepEqual(
        json<Row[]>(await api(alice.token, 'GET', '/categories')).map((c) => c.name),
        ['Talking'],
      );
      assert.equal((await api(admin, 'DELETE', '/categories/talk')).statusCode, 204);
      assert.equal(json(await api(alice.token, 'GET', '/forums/ideas-2')).category_id, null);
      assert.equal((await api(admin, 'DELETE', '/forums/ideas-2')).statusCode, 204);
      assert.equal(json(await api(alice.token, 'GET', '/forums/ideas-2')).code, 'forum_not_found');
      assert.equal(json(await api(admin, 'DELETE', '/forums/ideas-2')).code, 'forum_not_found');
    });

    it('pages the lists of forums and categories with the shared headers', async () => {
      for (const slug of ['pa', 'pb', 'pc'])
        assert.equal((await api(admin, 'POST', '/categories', { name: `Cat ${slug}`, slug })).statusCode, 201);
      for (const slug of ['fa', 'fb', 'fc'])
        assert.equal(
          (await api(admin, 'POST', '/forums', { name: `Forum ${slug}`, slug, category_id: 'pa' })).statusCode,
          201,
        );
      for (const list of ['/forums', '/categories']) {
        const all = json<Row[]>(await api(admin, 'GET', `${list}?page_size=100`));
        assert.ok(all.length >= 3, list);
        const second = await api(admin, 'GET', `${list}?page=2&page_size=2`);
        assert.equal(second.statusCode, 200);
        assert.deepEqual(
          json<Row[]>(second).map((row) => row.id),
          all.slice(2, 4).map((row) => row.id),
          list,
        );
        const meta = JSON.parse(String(second.headers['x-pagination'])) as Row;
        assert.equal(meta.total, all.length);
        assert.equal(meta.page, 2);
        assert.match(
          String(second.headers.link),
          new RegExp(`<${FORUM_BASE}${list}\\?page=1&page_size=2>; rel="first"`),
        );
        assert.equal(json(await api(admin, 'GET', `${list}?page_size=101`)).code, 'validation_failed');
      }
      for (const slug of ['fa', 'fb', 'fc'])
        assert.equal((await api(admin, 'DELETE', `/forums/${slug}`)).statusCode, 204);
      for (const slug of ['pa', 'pb', 'pc'])
        assert.equal((await api(admin, 'DELETE', `/categories/${slug}`)).statusCode, 204);
    });

    it('creates topics and replies, lists them with pagination headers, by id or slug', async () => {
      const topic = await newTopic(alice.token, 'general', 'First topic', 'Hello **there**');
      assert.equal(topic.post_count, 1);
      assert.equal((topic.first_post as Row).body_html, '<p>Hello <strong>there</strong></p>');
      const reply = await api(moderator.token, 'POST', `/topics/${topic.id}/posts`, { body: 'Welcome!' });
      assert.equal(reply.statusCode, 201);
      assert.equal(json(reply).parent_id, null);
      const one = json(await api(alice.token, 'GET', `/topics/${topic.id}`));
      assert.equal(one.post_count, 2);
      assert.equal(one.reply_count, 1);
      for (let i = 0; i < 11; i++) await newTopic(moderator.token, 'general', `Filler ${i}`);
      const page1 = await api(alice.token, 'GET', '/topics?forum_id=general');
      assert.equal(page1.statusCode, 200);
      assert.equal(json<Row[]>(page1).length, 10);
      const meta = JSON.parse(String(page1.headers['x-pagination'])) as Row;
      assert.deepEqual(meta, { total: 12, total_pages: 2, first_page: 1, last_page: 2, page: 1, next_page: 2 });
      assert.match(String(page1.headers.link), /rel="next"/);
      const page2 = await api(alice.token, 'GET', '/topics?forum_id=general&page=2&page_size=10');
      assert.deepEqual(
        json<Row[]>(page2).map((row) => row.title),
        ['Filler 0', 'First topic'],
      );
      const forum = json(await api(alice.token, 'GET', '/forums/general'));
      assert.equal(forum.topic_count, 12);
      assert.equal(forum.post_count, 13);
      const byId = await api(alice.token, 'GET', `/forums/${String(forum.id)}`);
      assert.equal(json(byId).slug, 'general');
    });

    it('answers threaded and classic views', async () => {
      const topic = await newTopic(alice.token, 'general', 'Threads');
      const first = topic.first_post.id;
      const post = async (body: string, parent?: string) =>
        json<Row & { id: string }>(
          await api(alice.token, 'POST', `/topics/${topic.id}/posts`, {
            body,
            ...(parent ? { parent_id: parent } : {}),
          }),
        );
      const a = await post('A', first);
      const b = await post('B');
      const a1 = await post('A1', a.id);
      await post('A1x', a1.id);
      await post('B1', b.id);
      const threaded = await api(alice.token, 'GET', `/topics/${topic.id}/posts?view=threaded`);
      assert.equal(threaded.statusCode, 200);
      type Node = { body: string; replies: Node[] };
      const shape = (nodes: Node[]): unknown => nodes.map((n) => [n.body, shape(n.replies)]);
      assert.deepEqual(shape(json<Node[]>(threaded)), [
        ['Opening post.', [['A', [['A1', [['A1x', []]]]]]]],
        ['B', [['B1', []]]],
      ]);
      assert.equal(JSON.parse(String(threaded.headers['x-pagination'])).total, 2);
      const pageTwo = await api(alice.token, 'GET', `/topics/${topic.id}/posts?view=threaded&page_size=1&page=2`);
      assert.deepEqual(shape(json<Node[]>(pageTwo)), [['B', [['B1', []]]]]);
      const classic = await api(alice.token, 'GET', `/topics/${topic.id}/posts?view=classic`);
      assert.deepEqual(
        json<Row[]>(classic).map((p) => p.body),
        ['Opening post.', 'A', 'B', 'A1', 'A1x', 'B1'],
      );
      assert.equal(json<Row[]>(classic)[0]!.replies, undefined);
      assert.equal(JSON.parse(String(classic.headers['x-pagination'])).total, 6);
      const classicPages = await Promise.all(
        [2, 9].map((page) =>
          api(alice.token, 'GET', `/topics/${topic.id}/posts?view=classic&page_size=4&page=${page}`),
        ),
      );
      assert.deepEqual(
        classicPages.map((page) => [json<Row[]>(page).length, JSON.parse(String(page.headers['x-pagination'])).total]),
        [
          [2, 6],
          [0, 6],
        ],
        'a page past the end still has the total',
      );
    });

    it('refuses bad input: unknown ids, foreign parents, bad pages, wrong types', async () => {
      const one = await newTopic(alice.token, 'general', 'One');
      const two = await newTopic(alice.token, 'general', 'Two');
      const foreign = await api(alice.token, 'POST', `/topics/${one.id}/posts`, {
        body: 'x',
        parent_id: two.first_post.id,
      });
      assert.equal(foreign.statusCode, 422);
      assert.equal(json(foreign).code, 'parent_not_in_topic');
      assert.equal(
        json(await api(alice.token, 'POST', `/topics/${one.id}/posts`, { body: 'x', parent_id: 'nope' })).code,
        'parent_not_in_topic',
      );
      assert.equal(json(await api(alice.token, 'GET', '/topics/nope')).code, 'topic_not_found');
      assert.equal(json(await api(alice.token, 'GET', '/topics/nope/posts')).code, 'topic_not_found');
      assert.equal(json(await api(alice.token, 'POST', '/topics/nope/posts', { body: 'x' })).code, 'topic_not_found');
      assert.equal(json(await api(alice.token, 'GET', '/forums/nope')).code, 'forum_not_found');
      assert.equal(json(await api(alice.token, 'GET', '/topics?forum_id=nope')).code, 'forum_not_found');
      assert.equal(
        json(await api(alice.token, 'POST', '/topics', { forum_id: 'nope', title: 't', body: 'b' })).code,
        'forum_not_found',
      );
      for (const query of ['page_size=0', 'page_size=1000', 'page_size=abc', 'page=0', 'page=-1', 'view=tree']) {
        const response = await api(alice.token, 'GET', `/topics/${one.id}/posts?${query}`);
        assert.equal(response.statusCode, 400, query);
        assert.equal(json(response).code, 'validation_failed', query);
      }
      assert.equal((await api(alice.token, 'GET', '/topics?page_size=100')).statusCode, 200);
      assert.equal(
        json(await api(alice.token, 'POST', '/topics', { forum_id: 'general', title: 5, body: 'b' })).code,
        'validation_failed',
      );
      assert.equal(
        json(await api(alice.token, 'POST', '/topics', { forum_id: 'general', title: 't', body: 'b', pinned: true }))
          .code,
        'validation_failed',
      );
      assert.equal(
        json(await api(alice.token, 'POST', '/topics', { forum_id: 'general', title: '', body: 'b' })).code,
        'validation_failed',
      );
      assert.equal(
        json(await api(alice.token, 'POST', '/topics', { forum_id: 'general', title: ' \n\t ', body: 'b' })).code,
        'invalid_title',
      );
      assert.equal(
        json(await api(alice.token, 'POST', '/topics', { forum_id: 'general', title: 't', body: '   ' })).code,
        'invalid_body',
      );
    });

    it('refuses oversize titles and bodies', async () => {
      const longTitle = await api(alice.token, 'POST', '/topics', {
        forum_id: 'general',
        title: 'x'.repeat(201),
        body: 'b',
      });
      assert.equal(json(longTitle).code, 'validation_failed');
      const longBody = await api(alice.token, 'POST', '/topics', {
        forum_id: 'general',
        title: 't',
        body: 'x'.repeat(50_001),
      });
      assert.equal(json(longBody).code, 'validation_failed');
      const huge = await api(alice.token, 'POST', '/topics', {
        forum_id: 'general',
        title: 't',
        body: 'x'.repeat(300_000),
      });
      assert.equal(huge.statusCode, 413);
      assert.equal(json(huge).code, 'payload_too_large');
      const fits = await api(alice.token, 'POST', '/topics', {
        forum_id: 'general',
        title: 't'.repeat(200),
        body: 'x'.repeat(50_000),
      });
      assert.equal(fits.statusCode, 201);
    });

    it('sanitizes script in bodies and keeps titles as typed text', async () => {
      const topic = await newTopic(
        alice.token,
        'general',
        '<script>alert(1)</script>Safe <img src=x onerror=alert(1)>title',
        '<script>alert(1)</script>\n\n[x](javascript:alert(1)) <a href="javascript:alert(2)">y</a>',
      );
      assert.equal(topic.title, '<script>alert(1)</script>Safe <img src=x onerror=alert(1)>title');
      const html = String((topic.first_post as Row).body_html);
      assert.doesNotMatch(html, /<script|<a href="javascript|<img/i);
      const reply = json(
        await api(alice.token, 'POST', `/topics/${topic.id}/posts`, {
          body: '<iframe src="https://evil.example"></iframe> ok',
        }),
      );
      assert.doesNotMatch(String(reply.body_html), /<iframe/);
      assert.equal(reply.body, '<iframe src="https://evil.example"></iframe> ok');
    });

    it('refuses member replies to locked topics and topics in locked forums', async () => {
      const topic = await newTopic(alice.token, 'general', 'To be locked');
      assert.equal((await api(alice.token, 'PATCH', `/topics/${topic.id}`, { locked: true })).statusCode, 403);
      const locked = await api(moderator.token, 'PATCH', `/topics/${topic.id}`, { locked: true, pinned: true });
      assert.equal(json(locked).locked, true);
      const refused = await api(alice.token, 'POST', `/topics/${topic.id}/posts`, { body: 'late' });
      assert.equal(refused.statusCode, 403);
      assert.equal(json(refused).code, 'topic_locked');
      assert.equal(
        (await api(moderator.token, 'POST', `/topics/${topic.id}/posts`, { body: 'Closing note' })).statusCode,
        201,
      );
      const inLocked = await api(alice.token, 'POST', '/topics', { forum_id: 'locked', title: 'No', body: 'no' });
      assert.equal(json(inLocked).code, 'forum_locked');
      assert.equal(
        (await api(admin, 'POST', '/topics', { forum_id: 'locked', title: 'Rules', body: 'Read me' })).statusCode,
        201,
      );
      assert.equal(json<Row[]>(await api(alice.token, 'GET', '/topics?forum_id=general'))[0]!.title, 'To be locked');
    });

    it('edits and soft-deletes posts, author or moderators only', async () => {
      const topic = await newTopic(alice.token, 'general', 'Editable');
      const reply = json<Row & { id: string }>(
        await api(alice.token, 'POST', `/topics/${topic.id}/posts`, { body: 'typo' }),
      );
      const nested = json<Row & { id: string }>(
        await api(moderator.token, 'POST', `/topics/${topic.id}/posts`, { body: 'answer', parent_id: reply.id }),
      );
      assert.equal((await api(moderator.token, 'PATCH', `/posts/${reply.id}`, { body: 'moderated' })).statusCode, 200);
      const edited = json(await api(alice.token, 'PATCH', `/posts/${reply.id}`, { body: 'fixed *now*' }));
      assert.equal(edited.body_html, '<p>fixed <em>now</em></p>');
      assert.ok(edited.edited_at);
      assert.equal((await api(alice.token, 'PATCH', `/posts/${nested.id}`, { body: 'not mine' })).statusCode, 403);
      assert.equal((await api(alice.token, 'DELETE', `/posts/${reply.id}`)).statusCode, 204);
      assert.equal(json(await api(alice.token, 'DELETE', `/posts/${reply.id}`)).code, 'post_not_found');
      const threaded = json<Array<Row & { replies: Array<Row & { replies: Row[] }> }>>(
        await api(alice.token, 'GET', `/topics/${topic.id}/posts?view=threaded`),
      );
      const tombstone = threaded[1]!;
      assert.deepEqual(
        [tombstone.deleted, tombstone.body, tombstone.body_html, tombstone.author],
        [true, '', '', null],
      );
      assert.equal(tombstone.replies[0]!.body, 'answer');
      assert.equal(json(await api(alice.token, 'GET', `/topics/${topic.id}`)).post_count, 2);
    });

    it('searches titles and bodies with stemming', async () => {
      const topic = await newTopic(alice.token, 'general', 'Gardening tips', 'Water the tomatoes early.');
      await api(moderator.token, 'POST', `/topics/${topic.id}/posts`, {
        body: 'Mulching keeps roots cool and helps the watering.',
      });
      const byBody = await api(alice.token, 'GET', '/search?q=mulched');
      assert.equal(byBody.statusCode, 200);
      const hits = json<Array<{ topic: Row; post_id: string; excerpt: string }>>(byBody);
      assert.deepEqual(
        hits.map((hit) => hit.topic.title),
        ['Gardening tips'],
      );
      assert.match(hits[0]!.excerpt, /Mulching/);
      assert.ok(JSON.parse(String(byBody.headers['x-pagination'])).total === 1);
      const byTitle = json<Array<{ topic: Row; title_html: string }>>(
        await api(alice.token, 'GET', '/search?q=garden'),
      );
      assert.deepEqual(
        byTitle.map((hit) => hit.topic.title),
        ['Gardening tips'],
      );
      assert.equal(byTitle[0]!.title_html, '<mark>Gardening</mark> tips');
      assert.equal(json<unknown[]>(await api(alice.token, 'GET', '/search?q=zzzunknownzzz')).length, 0);
      assert.equal((await api(alice.token, 'GET', '/search?q=')).statusCode, 400);
      // Matched words come back marked in an HTML excerpt, the text around them escaped.
      await api(moderator.token, 'POST', `/topics/${topic.id}/posts`, {
        body: 'Compost beats mulch & straw when 3 < 4.',
      });
      const marked = json<Array<{ excerpt: string; excerpt_html: string }>>(
        await api(alice.token, 'GET', '/search?q=compost'),
      );
      assert.equal(marked[0]!.excerpt, 'Compost beats mulch & straw when 3 < 4.');
      assert.equal(marked[0]!.excerpt_html, '<mark>Compost</mark> beats mulch &amp; straw when 3 &lt; 4.');
    });

    it('narrows search by forum, author and date', async () => {
      const titles = async (query: string) =>
        json<Array<{ topic: Row }>>(await api(alice.token, 'GET', `/search?q=lantern${query}`))
          .map((hit) => String(hit.topic.title))
          .sort();
      const first = await newTopic(alice.token, 'general', 'Lantern repair', 'The wick burned down.');
      await newTopic(moderator.token, 'general', 'Camping gear', 'Bring a lantern and rope.');
      assert.deepEqual(await titles(''), ['Camping gear', 'Lantern repair']);
      assert.deepEqual(await titles('&author=ALICE'), ['Lantern repair'], "titles count for their topic's author");
      assert.deepEqual(await titles(`&author=${moderator.member.username}`), ['Camping gear']);
      assert.deepEqual(await titles('&author=nobody'), []);
      assert.deepEqual(await titles('&forum_id=general'), ['Camping gear', 'Lantern repair']);
      assert.deepEqual(await titles('&forum_id=nosuchforum'), []);
      const today = new Date().toISOString().slice(0, 10);
      const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
      assert.deepEqual(await titles(`&after=${today}`), ['Camping gear', 'Lantern repair']);
      assert.deepEqual(await titles(`&after=${tomorrow}`), []);
      assert.deepEqual(await titles(`&before=${today}`), []);
      // A reply by alice in the moderator's topic makes it hers to find too.
      await api(alice.token, 'POST', `/topics/${first.id}/posts`, { body: 'Fixed it.' });
      await api(
        alice.token,
        'POST',
        `/topics/${json<Array<{ topic: Row }>>(await api(alice.token, 'GET', '/search?q=camping'))[0]!.topic.id}/posts`,
        { body: 'My lantern is brighter.' },
      );
      assert.deepEqual(await titles('&author=alice'), ['Camping gear', 'Lantern repair']);
      assert.equal((await api(alice.token, 'GET', '/search?q=lantern&after=yesterday')).statusCode, 400);
      // A category narrows to the topics of its forums, by slug or id.
      const outdoors = json<Row>(await api(admin, 'POST', '/categories', { name: 'Outdoors', slug: 'outdoors' }));
      assert.equal(
        (await api(admin, 'POST', '/forums', { name: 'Trail', slug: 'trail', category_id: 'outdoors' })).statusCode,
        201,
      );
      await newTopic(alice.token, 'trail', 'Lantern <hike> & stars', 'Night walk.');
      assert.deepEqual(await titles('&category_id=outdoors'), ['Lantern <hike> & stars']);
      assert.deepEqual(await titles(`&category_id=${String(outdoors.id)}`), ['Lantern <hike> & stars']);
      assert.deepEqual(await titles('&category_id=nosuchcategory'), []);
      const [hike] = json<Array<{ title_html: string }>>(
        await api(alice.token, 'GET', '/search?q=lantern&category_id=outdoors'),
      );
      assert.equal(
        hike!.title_html,
        '<mark>Lantern</mark> &lt;hike&gt; &amp; stars',
        'the title escaped, only the match marked',
      );
    });

    it('mints, lists and revokes forum tokens', async () => {
      const wrong = await api(undefined, 'POST', '/auth/tokens', { login: 'alice', password: 'wrong-password' });
      const unknown = await api(undefined, 'POST', '/auth/tokens', { login: 'nobody', password: 'wrong-password' });
      assert.equal(wrong.statusCode, 401);
      assert.deepEqual(json(wrong), json(unknown));
      const minted = await api(undefined, 'POST', '/auth/tokens', {
        login: 'alice@members.test',
        password: alice.password,
        name: 'laptop',
      });
      assert.equal(minted.statusCode, 201);
      const body = json<{ id: string; name: string; token: string; created_at: string }>(minted);
      assert.match(body.token, /^blu_ft_[0-9a-z]{16}\.[A-Za-z0-9_-]{43}$/);
      assert.equal(body.name, 'laptop');
      const list = await api(body.token, 'GET', '/auth/tokens');
      assert.equal(json<Row[]>(list).length, 2);
      assert.ok(!list.body.includes(body.token.split('.')[1]!));
      assert.equal(json(await api(moderator.token, 'DELETE', `/auth/tokens/${body.id}`)).code, 'credential_not_found');
      assert.equal((await api(alice.token, 'DELETE', `/auth/tokens/${body.id}`)).statusCode, 204);
      const revoked = await api(body.token, 'GET', '/forums');
      assert.equal(revoked.statusCode, 401);
      assert.equal(json(revoked).code, 'invalid_token');
      assert.equal(json(await api('garbage', 'GET', '/forums')).code, 'invalid_token');
    });

    it('refuses tokens of another community and a platform account that does not own the site', async () => {
      const stranger = await signIn(t.app, 'stranger');
      await makeCommunity(t.app, stranger, 'other');
      const otherToken = await mintForumToken(t.app, 'other', 'stranger', stranger.password);
      const cross = await api(otherToken, 'GET', '/forums');
      assert.equal(cross.statusCode, 401);
      assert.equal(json(cross).code, 'invalid_token');
      assert.ok(cross.headers['www-authenticate']);
      const notOwner = await api(undefined, 'POST', '/auth/tokens', { login: 'stranger', password: stranger.password });
      assert.equal(json(notOwner).code, 'invalid_credentials');
    });

    it('refuses banned members', async () => {
      const carol = await addMember(t.app, 'club', 'carol');
      assert.equal(
        (await api(moderator.token, 'PATCH', `/members/${carol.member.id}`, { banned: true })).statusCode,
        403,
      );
      const banned = await api(admin, 'PATCH', `/members/${carol.member.id}`, { banned: true });
      assert.equal(json(banned).banned, true);
      const read = await api(carol.token, 'GET', '/forums');
      assert.equal(read.statusCode, 403);
      assert.equal(json(read).code, 'member_banned');
      assert.equal(
        json(await api(carol.token, 'POST', '/topics', { forum_id: 'general', title: 't', body: 'b' })).code,
        'member_banned',
      );
      assert.equal(
        json(await api(undefined, 'POST', '/auth/tokens', { login: 'carol', password: carol.password })).code,
        'member_banned',
      );
      assert.equal(json(await api(admin, 'PATCH', '/members/nope', { banned: true })).code, 'member_not_found');
    });

    it('adds members as admin and refuses duplicates', async () => {
      const created = await api(admin, 'POST', '/members', {
        username: 'dave',
        email: 'dave@members.test',
        password: '0123456789ab',
        role: 'moderator',
      });
      assert.equal(created.statusCode, 201);
      assert.equal(json(created).role, 'moderator');
      assert.equal(json(created).password_hash, undefined);
      assert.equal(
        json(
          await api(admin, 'POST', '/members', {
            username: 'DAVE',
            email: 'd2@members.test',
            password: '0123456789ab',
          }),
        ).code,
        'username_taken',
      );
      assert.equal(
        json(
          await api(admin, 'POST', '/members', {
            username: 'dave2',
            email: 'Dave@members.test',
            password: '0123456789ab',
          }),
        ).code,
        'email_taken',
      );
    });

    it('needs a token unless public read is enabled', async () => {
      const response = await api(undefined, 'GET', '/forums');
      assert.equal(response.statusCode, 401);
      assert.equal(json(response).code, 'authentication_required');
      assert.match(String(response.headers['www-authenticate']), /Authentication-Token/);
      assert.equal(
        (await api(undefined, 'POST', '/topics', { forum_id: 'general', title: 't', body: 'b' })).statusCode,
        401,
      );
    });

    it('requires a plan with the Forum API', async () => {
      const poor = await signIn(t.app, 'poor');
      await makeCommunity(t.app, poor, 'freebie', 'free');
      const response = await forumApi(t.app, 'freebie', undefined, {
        method: 'POST',
        path: '/auth/tokens',
        payload: { login: 'poor', password: poor.password },
      });
      assert.equal(response.statusCode, 403);
      assert.equal(json(response).code, 'plan_required');
    });

    it('answers only on community hosts', async () => {
      assert.equal((await portal(t.app, undefined, { method: 'GET', url: '/api/forum/v1/forums' })).statusCode, 404);
      const staticSite = await portal(t.app, owner, {
        method: 'POST',
        url: '/api/sites',
        payload: { id: 'brochure', kind: 'static' },
      });
      assert.equal(staticSite.statusCode, 201);
      assert.equal((await forumApi(t.app, 'brochure', admin, { method: 'GET', path: '/forums' })).statusCode, 404);
    });

    it('keeps waitlists: idempotent, validated, listed and exported by admins, rate limited', async () => {
      const join = (email: unknown, key = 'beta') => api(undefined, 'POST', `/waitlist/${key}`, { email });
      const first = await join('Ann@Example.COM');
      assert.equal(first.statusCode, 202);
      assert.deepEqual(json(first), { service_key: 'beta', email: 'Ann@example.com' });
      const again = await join('Ann@example.com');
      assert.equal(again.statusCode, 202);
      assert.deepEqual(json(again), json(first));
      assert.equal((await join('=cmd@example.com', 'launch')).statusCode, 202);
      assert.equal(json(await join('not-an-email')).code, 'invalid_email');
      assert.equal(json(await join(5)).code, 'validation_failed');
      assert.equal(json(await join('a@b.c', 'bad key!')).code, 'validation_failed');
      assert.equal((await api(alice.token, 'GET', '/waitlist')).statusCode, 403);
      const list = await api(admin, 'GET', '/waitlist?service_key=beta');
      assert.deepEqual(
        json<Row[]>(list).map((row) => row.email),
        ['Ann@example.com'],
      );
      assert.equal(JSON.parse(String(list.headers['x-pagination'])).total, 1);
      const csv = await api(admin, 'GET', '/waitlist.csv');
      assert.equal(csv.statusCode, 200);
      assert.match(String(csv.headers['content-type']), /^text\/csv/);
      const lines = csv.body.trim().split('\r\n');
      assert.equal(lines[0], 'service_key,email,created_at');
      assert.match(lines[1]!, /^beta,Ann@example\.com,/);
      assert.match(lines[2]!, /^launch,"'=cmd@example\.com",/);
    });

    it('serves its OpenAPI document from the route schemas', async () => {
      const response = await api(undefined, 'GET', '/openapi.json');
      assert.equal(response.statusCode, 200);
      const doc = json<{ openapi: string; paths: Record<string, Record<string, unknown>> }>(response);
      assert.equal(doc.openapi, '3.1.0');
      for (const path of [
        '/forums',
        '/forums/{id}',
        '/topics',
        '/topics/{id}',
        '/topics/{id}/posts',
        '/categories',
        '/auth/tokens',
        '/waitlist/{service_key}',
        '/search',
      ]) {
        assert.ok(doc.paths[`/api/forum/v1${path}`], path);
      }
      assert.ok(doc.paths['/api/forum/v1/topics']!.post);
      assert.equal(doc.paths['/api/sites'], undefined);
    });
  });
}

for (const database of testDatabases) {
  describe(`forum rate limits [${database}]`, () => {
    let t: TestApp;
    let siteOwner: Actor;
    before(async () => {
      t = await buildTestApp({
        database,
        env: { BLUME_RATE_POSTS_PER_MINUTE: '3', BLUME_RATE_WAITLIST_PER_MINUTE: '3' },
      });
      siteOwner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, siteOwner, 'club');
    });
    after(() => t.close());

    it('limits topics, replies and edits per member, across routes and tokens', async () => {
      const eve = await addMember(t.app, 'club', 'eve');
      const owner = await mintForumToken(t.app, 'club', 'owner', siteOwner.password);
      assert.equal(
        (
          await forumApi(t.app, 'club', owner, {
            method: 'POST',
            path: '/forums',
            payload: { name: 'General', slug: 'general' },
          })
        ).statusCode,
        201,
      );
      const post = (token: string, path: string, payload: Row) =>
        forumApi(t.app, 'club', token, { method: 'POST', path, payload });
      const topic = json<{ id: string }>(
        await post(eve.token, '/topics', { forum_id: 'general', title: 'Chatty', body: 'b' }),
      );
      assert.equal((await post(eve.token, `/topics/${topic.id}/posts`, { body: 'one' })).statusCode, 201);
      const secondToken = await mintForumToken(t.app, 'club', 'eve', eve.password);
      assert.equal((await post(secondToken, `/topics/${topic.id}/posts`, { body: 'two' })).statusCode, 201);
      const limited = await post(eve.token, `/topics/${topic.id}/posts`, { body: 'three' });
      assert.equal(limited.statusCode, 429);
      assert.equal(json(limited).code, 'rate_limited');
      assert.ok(limited.headers['retry-after']);
      assert.equal(
        (await post(secondToken, '/topics', { forum_id: 'general', title: 'Flood', body: 'b' })).statusCode,
        429,
      );
      assert.equal((await post(owner, `/topics/${topic.id}/posts`, { body: 'others still post' })).statusCode, 201);
    });

    it('limits waitlist sign-ups per client', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        statuses.push(
          (
            await forumApi(t.app, 'club', undefined, {
              method: 'POST',
              path: '/waitlist/beta',
              payload: { email: `u${i}@example.com` },
            })
          ).statusCode,
        );
      }
      assert.deepEqual(statuses, [202, 202, 202, 429]);
    });
  });
}
