// Counts cached per node (decision 0106), and pages of the API's notification list (0109) and topic
// lists (0110), on two nodes sharing one database and nothing else: node B keeps each notification
// list's page and total, the web UI badge, the unread topics' total and pages of the topic lists,
// node A (or SQL behind both) writes, and B's next answer is exact because a trigger moved the
// member's or the community's version; while no version moves, B answers what it cached without
// reading.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import {
  addMember,
  communityHost,
  communityOnTwoNodes,
  forumApi,
  type CommunityOnTwoNodes,
  type ForumActor,
} from '../../test/factories/forum.js';
import { json, type TestApp } from '../../test/helpers/app.js';
import { headerCount, UiClient } from '../../test/helpers/forum-ui.js';
import { testDatabases } from '../../test/helpers/databases.js';

const SITE = 'kept';

for (const database of testDatabases) {
  describe(`notification counts cached per node [${database}]`, () => {
    let t: CommunityOnTwoNodes;
    let ann: ForumActor;
    let bob: ForumActor;
    let cy: ForumActor;
    const call = (
      node: TestApp,
      token: string,
      method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
      path: string,
      payload?: object,
    ) => forumApi(node.app, SITE, token, { method, path, ...(payload ? { payload } : {}) });
    /** Ann's list on node B: its total (X-Pagination) and how many rows its first page holds. */
    const annOnB = async (query = '') => {
      const response = await call(t.b, ann.token, 'GET', `/notifications?page_size=100${query}`);
      assert.equal(response.statusCode, 200, response.body);
      return {
        total: (JSON.parse(String(response.headers['x-pagination'])) as { total: number }).total,
        rows: json<unknown[]>(response).length,
      };
    };
    const onA = async (method: 'POST' | 'PATCH' | 'DELETE', path: string, payload?: object, token = t.admin) => {
      const response = await call(t.a, token, method, path, payload);
      assert.ok(response.statusCode < 300, response.body);
      return response;
    };
    /** Cy's unread topics on node B: the total and how many rows the first page holds. */
    const cyUnreadOnB = async () => {
      const response = await call(t.b, cy.token, 'GET', '/topics?filter=unread&page_size=100');
      assert.equal(response.statusCode, 200, response.body);
      return {
        total: (JSON.parse(String(response.headers['x-pagination'])) as { total: number }).total,
        rows: json<unknown[]>(response).length,
      };
    };
    const run = (statement: ReturnType<typeof sql>) => t.shared.handle.db.execute(statement);
    /** A topic of Ann's in `forum` with `replies` replies of Bob's: Ann's notifications. */
    const topicWithReplies = async (forum: string, replies: number) => {
      const topic = json<{ id: string }>(
        await onA('POST', '/topics', { forum_id: forum, title: `In ${forum}`, body: 'Start' }, ann.token),
      );
      const posts: string[] = [];
      for (let i = 0; i < replies; i += 1)
        posts.push(
          json<{ id: string }>(await onA('POST', `/topics/${topic.id}/posts`, { body: `Reply ${i}` }, bob.token)).id,
        );
      return { id: topic.id, posts };
    };

    before(async () => {
      t = await communityOnTwoNodes(database, SITE);
      [ann, bob, cy] = await Promise.all([
        addMember(t.a.app, SITE, 'ann'),
        addMember(t.a.app, SITE, 'bob'),
        addMember(t.a.app, SITE, 'cy'),
      ]);
      for (const [slug, visibility] of [
        ['open', 'public'],
        ['more', 'public'],
        ['hush', 'staff'],
      ])
        await onA('POST', '/forums', { name: slug, slug, visibility });
    });
    after(() => t.close());

    it('counts anew on the other node after each write that changes a total', async () => {
      const first = await topicWithReplies('open', 2);
      assert.deepEqual(await annOnB(), { total: 2, rows: 2 }, 'node B keeps the total');
      await onA('POST', `/topics/${first.id}/posts`, { body: 'Once more' }, bob.token);
      assert.deepEqual(await annOnB(), { total: 3, rows: 3 }, 'a new notification');

      const [newest] = json<Array<{ id: string }>>(await call(t.a, ann.token, 'GET', '/notifications'));
      assert.deepEqual(await annOnB('&unread=true'), { total: 3, rows: 3 });
      await onA('POST', '/notifications/read', { ids: [newest!.id] }, ann.token);
      assert.deepEqual(await annOnB('&unread=true'), { total: 2, rows: 2 }, 'a read mark');

      await onA('DELETE', `/posts/${first.posts[0]}`);
      assert.deepEqual(await annOnB(), { total: 2, rows: 2 }, 'a deleted post');

      const second = await topicWithReplies('more', 2);
      assert.deepEqual(await annOnB(), { total: 4, rows: 4 });
      await onA('PATCH', `/topics/${second.id}`, { hidden: true });
      assert.deepEqual(await annOnB(), { total: 2, rows: 2 }, 'a hidden topic');
      await onA('PATCH', `/topics/${second.id}`, { hidden: false });
      assert.deepEqual(await annOnB(), { total: 4, rows: 4 }, 'a topic shown again');

      await onA('PATCH', '/forums/more', { visibility: 'staff' });
      assert.deepEqual(await annOnB(), { total: 2, rows: 2 }, "a forum's visibility");
      await onA('PATCH', '/forums/more', { visibility: 'public' });
      assert.deepEqual(await annOnB(), { total: 4, rows: 4 });
    });

    it('counts anew after SQL behind both nodes, whoever writes', async () => {
      const topic = await topicWithReplies('open', 3);
      const { total } = await annOnB();
      await run(sql`update forum_posts set deleted_at = now() where id = ${topic.posts[0]}`);
      assert.deepEqual(await annOnB(), { total: total - 1, rows: total - 1 }, 'a post deleted with SQL');
      await run(sql`delete from forum_notifications where post_id = ${topic.posts[1]}`);
      assert.deepEqual(await annOnB(), { total: total - 2, rows: total - 2 }, 'a notification deleted with SQL');
      await run(
        sql`update forum_topics set forum_id = (select id from forums where slug = 'hush' and site_id = ${SITE}) where \
id = ${topic.id}`,
      );
      assert.deepEqual(
        await annOnB(),
        { total: total - 3, rows: total - 3 },
        'a topic moved into a forum Ann cannot see',
      );
      await run(sql`update forums set visibility = 'public' where slug = 'hush' and site_id = ${SITE}`);
      assert.deepEqual(await annOnB(), { total: total - 2, rows: total - 2 }, "a forum's visibility");
    });

    it("shows an actor's new name on the API page node B cached (decision 0109)", async () => {
      await topicWithReplies('open', 1);
      const actors = async () =>
        json<Array<{ actor: { username: string } | null }>>(
          await call(t.b, ann.token, 'GET', '/notifications?page_size=100'),
        ).map((row) => row.actor?.username);
      assert.ok((await actors()).includes('bob'));
      await run(sql`update forum_members set username = 'robert' where id = ${bob.member.id}`);
      try {
        const renamed = await actors();
        assert.ok(renamed.includes('robert') && !renamed.includes('bob'), 'a rename with SQL');
      } finally {
        await run(sql`update forum_members set username = 'bob' where id = ${bob.member.id}`);
      }
      assert.ok((await actors()).includes('bob'));
    });

    it('keeps the web UI badge the same way', async () => {
      const ui = new UiClient(t.b.app, communityHost(SITE));
      assert.equal((await ui.login('ann', ann.password)).statusCode, 303);
      const badge = async () => headerCount((await ui.get('/latest')).body);
      const { total } = await annOnB('&unread=true');
      assert.equal(await badge(), total);
      const topic = await topicWithReplies('open', 2);
      assert.equal(await badge(), total + 2, 'new notifications');
      await onA('POST', '/notifications/read', {}, ann.token);
      assert.equal(await badge(), 0, 'all read');
      await onA('POST', `/topics/${topic.id}/posts`, { body: 'And again' }, bob.token);
      assert.equal(await badge(), 1);
      await run(sql`update forum_topics set hidden = true where id = ${topic.id}`);
      assert.equal(await badge(), 0, 'a topic hidden with SQL');
    });

    it("keeps the unread topics' total the same way", async () => {
      const { total } = await cyUnreadOnB();
      const fresh = json<{ id: string; first_post: { id: string } }>(
        await onA('POST', '/topics', { forum_id: 'open', title: 'Fresh', body: 'New here' }, bob.token),
      );
      assert.deepEqual(await cyUnreadOnB(), { total: total + 1, rows: total + 1 }, 'a new topic');
      await onA('POST', `/topics/${fresh.id}/read`, { post_id: fresh.first_post.id }, cy.token);
      assert.deepEqual(await cyUnreadOnB(), { total, rows: total }, 'a read mark');
      const more = json<{ id: string }>(await onA('POST', `/topics/${fresh.id}/posts`, { body: 'More' }, ann.token));
      assert.deepEqual(await cyUnreadOnB(), { total: total + 1, rows: total + 1 }, 'a reply after the mark');
      await onA('POST', `/topics/${fresh.id}/read`, { post_id: more.id }, cy.token);
      assert.deepEqual(await cyUnreadOnB(), { total, rows: total }, 'a mark moved on');
      await run(sql`delete from forum_topic_reads where member_id = ${cy.member.id} and topic_id = ${fresh.id}`);
      assert.deepEqual(await cyUnreadOnB(), { total: total + 1, rows: total + 1 }, 'a mark deleted with SQL');
      await onA('POST', `/topics/${fresh.id}/posts`, { body: 'Even more' }, ann.token);
      await onA('POST', '/topics/read', {}, cy.token);
      assert.deepEqual(await cyUnreadOnB(), { total: 0, rows: 0 }, 'all read');

      await onA('POST', '/forums', { name: 'gone', slug: 'gone', visibility: 'public' });
      await onA('POST', '/topics', { forum_id: 'gone', title: 'Soon gone', body: 'Bye' }, bob.token);
      assert.deepEqual(await cyUnreadOnB(), { total: 1, rows: 1 });
      await onA('PATCH', '/forums/gone', { visibility: 'staff' });
      assert.deepEqual(await cyUnreadOnB(), { total: 0, rows: 0 }, "a forum's visibility");
      await onA('PATCH', '/forums/gone', { visibility: 'public' });
      assert.deepEqual(await cyUnreadOnB(), { total: 1, rows: 1 });
      // A forum whose list version is back at 0 (SQL): its deletion leaves the versions' sum as it was.
      await run(sql`update forums set topic_list_version = 0 where slug = 'gone' and site_id = ${SITE}`);
      assert.deepEqual(await cyUnreadOnB(), { total: 1, rows: 1 });
      await run(sql`delete from forums where slug = 'gone' and site_id = ${SITE}`);
      assert.deepEqual(await cyUnreadOnB(), { total: 0, rows: 0 }, 'a forum deleted with SQL');
      await run(sql`update forum_members set read_before = now() - interval '1 day' where id = ${cy.member.id}`);
      assert.ok((await cyUnreadOnB()).total > 0, 'read_before moved back with SQL');
    });

    it('answers the count it cached while no version moved', async () => {
      const topic = await topicWithReplies('open', 1);
      const ui = new UiClient(t.b.app, communityHost(SITE));
      assert.equal((await ui.login('ann', ann.password)).statusCode, 303);
      const badge = async () => headerCount((await ui.get('/latest')).body);
      const cached = await annOnB();
      const cachedBadge = await badge();
      // With the trigger off, a deleted post moves no version: node B still answers the API page
      // and the counts it cached, though the page node A reads no longer holds the post's notification.
      await run(sql`alter table forum_posts disable trigger forum_posts_visibility`);
      try {
        await run(sql`update forum_posts set deleted_at = now() where id = ${topic.posts[0]}`);
        assert.deepEqual(await annOnB(), cached);
        assert.equal(
          json<unknown[]>(await call(t.a, ann.token, 'GET', '/notifications?page_size=100')).length,
          cached.rows - 1,
        );
        assert.equal(await badge(), cachedBadge);
      } finally {
        await run(sql`alter table forum_posts enable trigger forum_posts_visibility`);
      }
      const unread = await cyUnreadOnB();
      assert.ok(unread.total > 0);
      await run(sql`alter table forum_topic_reads disable trigger user`);
      try {
        await run(sql`insert into forum_topic_reads (member_id, topic_id, site_id, last_read_post_id, last_read_at)
                      select ${cy.member.id}, id, site_id, id, now() + interval '1 day' from forum_topics where site_id\
 = ${SITE}
                      on conflict (member_id, topic_id) do update set last_read_at = excluded.last_read_at`);
        // Node B answers the unread page it cached (decision 0110); node A, which cached none, reads it.
        assert.deepEqual(await cyUnreadOnB(), unread);
        assert.equal(
          json<unknown[]>(await call(t.a, cy.token, 'GET', '/topics?filter=unread&page_size=100')).length,
          0,
        );
      } finally {
        await run(sql`alter table forum_topic_reads enable trigger user`);
      }
      // Likewise Latest, with a rename that moves no list version.
      const newest = async (node: TestApp) =>
        json<Array<{ id: string; title: string }>>(
          await call(node, cy.token, 'GET', '/topics?filter=latest&page_size=1'),
        )[0]!;
      const cachedNewest = await newest(t.b);
      await run(sql`alter table forum_topics disable trigger forum_topics_keep_forum`);
      try {
        await run(sql`update forum_topics set title = 'Renamed unseen' where id = ${cachedNewest.id}`);
        assert.deepEqual(await newest(t.b), cachedNewest);
        assert.equal((await newest(t.a)).title, 'Renamed unseen');
      } finally {
        await run(sql`alter table forum_topics enable trigger forum_topics_keep_forum`);
      }
    });

    it("shows a topic's new title, lock and author name on the Latest, forum and unread pages node B cached (decision 0110)", async () => {
      const topic = json<{ id: string }>(
        await onA('POST', '/topics', { forum_id: 'more', title: 'Before', body: 'Hello' }, bob.token),
      );
      const ui = new UiClient(t.b.app, communityHost(SITE));
      assert.equal((await ui.login('cy', cy.password)).statusCode, 303);
      /** The topic as each of Cy's lists on node B shows it, in the API and the web UI; they must agree. */
      const onB = async () => {
        const seen = [];
        for (const query of ['filter=unread', 'filter=latest', 'forum_id=more']) {
          const rows = json<Array<{ id: string; title: string; locked: boolean; author: { username: string } | null }>>(
            await call(t.b, cy.token, 'GET', `/topics?${query}&page_size=100`),
          );
          const row = rows.find(({ id }) => id === topic.id);
          assert.ok(row, `the topic is on ${query}`);
          seen.push({ title: row.title, locked: row.locked, author: row.author?.username });
        }
        assert.deepEqual(seen.slice(1), [seen[0], seen[0]]);
        for (const path of ['/latest', '/f/more']) {
          const page = (await ui.get(path)).body;
          assert.ok(
            page.includes(`>${seen[0]!.title}</a>`) && page.includes(`by ${seen[0]!.author} ·`),
            `${path} shows ${JSON.stringify(seen[0])}`,
          );
        }
        return seen[0]!;
      };
      assert.deepEqual(await onB(), { title: 'Before', locked: false, author: 'bob' });
      await onA('PATCH', `/topics/${topic.id}`, { title: 'Renamed' });
      assert.equal((await onB()).title, 'Renamed');
      await run(sql`update forum_topics set title = 'Renamed with SQL' where id = ${topic.id}`);
      assert.equal((await onB()).title, 'Renamed with SQL');
      await run(sql`update forum_topics set locked = true where id = ${topic.id}`);
      assert.equal((await onB()).locked, true);
      await run(sql`update forum_members set username = 'bobby' where id = ${bob.member.id}`);
      try {
        assert.equal((await onB()).author, 'bobby');
      } finally {
        await run(sql`update forum_members set username = 'bob' where id = ${bob.member.id}`);
      }
      assert.equal((await onB()).author, 'bob');
    });
  });
}
