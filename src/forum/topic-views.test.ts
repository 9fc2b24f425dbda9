// Topic views on both databases: a topic page counts each member or guest once (reloads and other
// views of it included) and no crawler; the counts reach Latest and the forum's page with the flush
// and never move a forum's list version; a topic deleted before the flush leaves the others' counts
// written; a failed flush warns and keeps its counts for the next; a reader counts again after the
// window. Flushes are driven through `flush()`, never waited for.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { GUEST } from './policy.js';
import { listTopicActivity } from './topic-list.js';
import { TopicViewCounter } from './topic-views.js';
import { forums, forumTopicViews } from './tables.js';
import {
  addMember,
  communityHost,
  forumApi,
  makeCommunity,
  mintForumToken,
  type ForumActor,
} from '../../test/factories/forum.js';
import { buildTestApp, json, signIn, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { pageText, UiClient } from '../../test/helpers/forum-ui.js';

const SITE = 'views';
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0';

/** The number cells of a topic's row in a topic list: replies, views, likes, activity. */
function rowNumbers(body: string, topicId: string): string[] {
  const row = body.split('<tr').find((part) => part.includes(`href="/t/${topicId}"`));
  assert.ok(row, `the list shows topic ${topicId}`);
  return [...row.matchAll(/<td class="num">(.*?)<\/td>/gs)].map((match) => pageText(match[1]!).trim());
}

for (const database of testDatabases) {
  describe(`topic views [${database}]`, () => {
    let t: TestApp;
    let admin: string;
    let ann: ForumActor;
    let bob: ForumActor;
    let topicId: string;
    const warnings: Array<{ source?: string; msg: string }> = [];
    const host = communityHost(SITE);
    const db = () => t.app.deps.database.db;
    const member = async (actor: ForumActor) => {
      const ui = new UiClient(t.app, host);
      assert.equal((await ui.login(actor.member.username, actor.password)).statusCode, 303);
      return ui;
    };
    /** A guest's read of the topic page from `ip`, as a browser unless `userAgent` says otherwise. */
    const guestReads = async (id: string, ip: string, userAgent = BROWSER) => {
      const page = await t.app.inject({
        method: 'GET',
        url: `/t/${id}`,
        remoteAddress: ip,
        headers: { host, 'user-agent': userAgent },
      });
      assert.equal(page.statusCode, 200, page.body);
    };
    /** The topic's views on Latest and on its forum's page, as a guest reads them. */
    const shownViews = async (id: string) => {
      const guest = new UiClient(t.app, host);
      const latest = rowNumbers((await guest.get('/latest')).body, id)[1];
      const forumPage = rowNumbers((await guest.get('/f/general')).body, id)[1];
      assert.equal(forumPage, latest, 'the forum page shows what Latest shows');
      return latest;
    };

    before(async () => {
      t = await buildTestApp({
        database,
        env: { BLUME_RATE_LOGIN_PER_MINUTE: '1000' },
        logger: {
          level: 'warn',
          stream: { write: (line: string) => warnings.push(JSON.parse(line) as { source?: string; msg: string }) },
        },
      });
      const owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, SITE);
      admin = await mintForumToken(t.app, SITE, 'owner', owner.password);
      [ann, bob] = await Promise.all([addMember(t.app, SITE, 'ann'), addMember(t.app, SITE, 'bob')]);
      for (const slug of ['general', 'attic'])
        assert.equal(
          (await forumApi(t.app, SITE, admin, { method: 'POST', path: '/forums', payload: { name: slug, slug } }))
            .statusCode,
          201,
        );
      const created = await forumApi(t.app, SITE, ann.token, {
        method: 'POST',
        path: '/topics',
        payload: { forum_id: 'general', title: 'Much read', body: 'Read me.' },
      });
      assert.equal(created.statusCode, 201, created.body);
      topicId = json<{ id: string }>(created).id;
    });
    after(() => t.close());

    it("counts a member once however often it reads, another member's and each guest's view, and no crawler's", async () => {
      const annUi = await member(ann);
      for (const url of [`/t/${topicId}`, `/t/${topicId}`, `/t/${topicId}?view=threaded`])
        assert.equal((await annUi.get(url)).statusCode, 200);
      await t.app.forum.topicViews.flush();
      assert.equal(await shownViews(topicId), '1');

      const bobUi = await member(bob);
      await bobUi.get(`/t/${topicId}`);
      await bobUi.get(`/t/${topicId}`);
      await guestReads(topicId, '203.0.113.7');
      await guestReads(topicId, '203.0.113.7');
      await guestReads(topicId, '203.0.113.8');
      // Not readers: crawlers, link previews, a client that says nothing of itself.
      await guestReads(
        topicId,
        '203.0.113.9',
        'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      );
      await guestReads(topicId, '203.0.113.9', 'Slack-LinkPreview/1.0');
      await guestReads(topicId, '203.0.113.9', '');
      await t.app.forum.topicViews.flush();
      assert.equal(await shownViews(topicId), '4');
      const latest = pageText((await annUi.get('/latest')).body);
      assert.match(latest, /0 replies, 4 views, 0 likes, active/, 'the phone line names the views');
    });

    it('writes views without moving the forum list version lists are kept under', async () => {
      const version = async () =>
        (await db().select({ version: forums.topicListVersion }).from(forums).where(eq(forums.slug, 'general')))[0]!
          .version;
      const before = await version();
      await guestReads(topicId, '198.51.100.1');
      await t.app.forum.topicViews.flush();
      assert.equal(await version(), before);
      assert.equal(await shownViews(topicId), '5');
    });

    it('writes the other counts of a flush when a counted topic was deleted before it', async () => {
      const created = await forumApi(t.app, SITE, ann.token, {
        method: 'POST',
        path: '/topics',
        payload: { forum_id: 'attic', title: 'Soon gone', body: 'Going.' },
      });
      const goneId = json<{ id: string }>(created).id;
      await guestReads(goneId, '198.51.100.2');
      const attic = json<Array<{ id: string; slug: string }>>(
        await forumApi(t.app, SITE, admin, { method: 'GET', path: '/forums' }),
      ).find((forum) => forum.slug === 'attic')!;
      assert.equal(
        (await forumApi(t.app, SITE, admin, { method: 'DELETE', path: `/forums/${attic.id}` })).statusCode,
        204,
      );
      // The view counted before the delete, whether or not the node's timer wrote it meanwhile.
      t.app.forum.topicViews.count(goneId, { viewer: GUEST, ip: '198.51.100.3', userAgent: BROWSER });
      await guestReads(topicId, '198.51.100.2');
      await t.app.forum.topicViews.flush();
      assert.equal(await shownViews(topicId), '6');
      assert.deepEqual(await db().select().from(forumTopicViews).where(eq(forumTopicViews.topicId, goneId)), []);
      assert.deepEqual(
        warnings.filter((line) => line.source?.startsWith('topic view')),
        [],
      );
    });

    it('warns when a flush fails and writes its counts with the next', async () => {
      await db().execute(sql`alter table forum_topic_views rename to forum_topic_views_away`);
      try {
        await guestReads(topicId, '198.51.100.4');
        await t.app.forum.topicViews.flush();
      } finally {
        await db().execute(sql`alter table forum_topic_views_away rename to forum_topic_views`);
      }
      const warned = warnings.filter((line) => line.source === 'topic view counts');
      assert.equal(warned.length, 1, JSON.stringify(warnings));
      assert.match(warned[0]!.msg, /forum_topic_views/);
      await t.app.forum.topicViews.flush();
      assert.equal(await shownViews(topicId), '7');
    });

    it('counts a reader again once the window has passed', async () => {
      let now = Date.now();
      const counter = new TopicViewCounter(db(), t.app.log, () => now);
      try {
        const read = () => counter.count(topicId, { viewer: GUEST, ip: '192.0.2.1', userAgent: BROWSER });
        read();
        now += 8 * 60 * 60 * 1000 - 1;
        read();
        await counter.flush();
        assert.equal((await listTopicActivity(db(), [topicId])).get(topicId)!.views, 8);
        now += 1;
        read();
        await counter.flush();
        assert.equal((await listTopicActivity(db(), [topicId])).get(topicId)!.views, 9);
      } finally {
        await counter.close();
      }
    });
  });
}
