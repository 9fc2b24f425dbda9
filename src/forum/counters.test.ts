// List totals come from counters the writes keep (docs/decisions/0018-forum-counters.md). These tests
// walk the writes that move them and check, for every kind of viewer, that each total equals what a
// count of the rows gives, so a write that forgets a counter, or counts twice, fails here.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { addMember, buildClub, forumApi } from '../../test/factories/forum.js';
import { json, portal, type TestApp } from '../../test/helpers/app.js';
import { createTestDatabase, testDatabases } from '../../test/helpers/databases.js';
import { eventually } from '../../test/helpers/eventually.js';
import { migrateUpTo } from '../../test/helpers/migrations.js';
import { queryRows, type Executor } from '../db/client.js';
import { runMigrations } from '../db/migrate.js';

type Row = Record<string, unknown>;
type Role = 'guest' | 'member' | 'moderator' | 'admin';

const ROLES: Role[] = ['guest', 'member', 'moderator', 'admin'];
const FORUMS = { general: 'public', lounge: 'members', backstage: 'staff' } as const;
type ForumSlug = keyof typeof FORUMS;
const SEES: Record<Role, ForumSlug[]> = {
  guest: ['general'],
  member: ['general', 'lounge'],
  moderator: ['general', 'lounge', 'backstage'],
  admin: ['general', 'lounge', 'backstage'],
};
const STAFF = new Set<Role>(['moderator', 'admin']);

function pagination(response: { headers: Record<string, unknown> }): { total: number } {
  return JSON.parse(String(response.headers['x-pagination'])) as { total: number };
}

/** Counters stored on the forums next to counts of the topic rows: they must never differ. */
async function storedAgainstCounted(db: Executor): Promise<Row[]> {
  return queryRows<Row>(
    db,
    sql`select f.slug, f.topic_count as stored, f.hidden_topic_count as stored_hidden,
          f.post_count as stored_posts, f.hidden_post_count as stored_hidden_posts,
          (select count(*)::integer from forum_topics t where t.forum_id = f.id) as counted,
          (select count(*)::integer from forum_topics t where t.forum_id = f.id and t.hidden) as counted_hidden,
          (select count(*)::integer from forum_posts p join forum_topics t on t.id = p.topic_id where t.forum_id = f.id\
 and p.deleted_at is null) as counted_posts,
          (select count(*)::integer from forum_posts p join forum_topics t on t.id = p.topic_id where t.forum_id = f.id\
 and p.deleted_at is null and t.hidden) as counted_hidden_posts
        from forums f order by f.slug`,
  );
}

for (const database of testDatabases) {
  describe(`forum topic counters [${database}]`, () => {
    let t: TestApp;
    const tokens: Partial<Record<Role, string>> = {};
    /** What the test wrote: every topic with its forum and whether it is hidden. */
    const topics = new Map<string, { forum: ForumSlug; hidden: boolean }>();

    const api = (role: Role, method: string, path: string, payload?: Row) =>
      forumApi(t.app, 'club', tokens[role], {
        method: method as 'GET',
        path,
        headers: { origin: 'https://app.example' },
        ...(payload ? { payload } : {}),
      });

    const newTopic = async (role: Role, forum: ForumSlug, title: string): Promise<string> => {
      const response = await api(role, 'POST', '/topics', { forum_id: forum, title, body: `${title} body` });
      assert.equal(response.statusCode, 201, response.body);
      const id = json<{ id: string }>(response).id;
      topics.set(id, { forum, hidden: false });
      return id;
    };

    const setHidden = async (id: string, hidden: boolean): Promise<void> => {
      const response = await api('moderator', 'PATCH', `/topics/${id}`, { hidden });
      assert.equal(response.statusCode, 200, response.body);
      topics.get(id)!.hidden = hidden;
    };

    /** Every total each viewer gets agrees with the topics the test wrote and the rows it can list. */
    const assertTotals = async (step: string): Promise<void> => {
      for (const role of ROLES) {
        const expected = (forum: ForumSlug): number =>
          [...topics.values()].filter((topic) => topic.forum === forum && (!topic.hidden || STAFF.has(role))).length;
        const listed = json<Row[]>(await api(role, 'GET', '/forums'));
        let sum = 0;
        for (const forum of SEES[role].filter((slug) => listed.some((row) => row.slug === slug))) {
          const response = await api(role, 'GET', `/topics?forum_id=${forum}&page_size=100`);
          assert.equal(response.statusCode, 200, `${step}: ${role} ${forum}`);
          assert.equal(pagination(response).total, expected(forum), `${step}: ${role} total of ${forum}`);
          assert.equal(json<Row[]>(response).length, expected(forum), `${step}: ${role} rows of ${forum}`);
          const stats = listed.find((row) => row.slug === forum)!;
          assert.equal(stats.topic_count, expected(forum), `${step}: ${role} topic_count of ${forum}`);
          // Post count and last activity are those of the topics this viewer is listed.
          const rows = json<Array<{ post_count: number; last_post_at: string }>>(response);
          assert.equal(
            stats.post_count,
            rows.reduce((sum, row) => sum + row.post_count, 0),
            `${step}: ${role} post_count of ${forum}`,
          );
          const newest =
            rows
              .map((row) => row.last_post_at)
              .sort()
              .at(-1) ?? null;
          assert.equal(stats.last_post_at, newest, `${step}: ${role} last_post_at of ${forum}`);
          sum += expected(forum);
        }
        const all = await api(role, 'GET', '/topics?page_size=100');
        assert.equal(pagination(all).total, sum, `${step}: ${role} total of all forums`);
        assert.equal(json<Row[]>(all).length, sum, `${step}: ${role} rows of all forums`);
        const pastTheEnd = await api(role, 'GET', '/topics?page_size=100&page=9');
        assert.deepEqual(
          [json<Row[]>(pastTheEnd).length, pagination(pastTheEnd).total],
          [0, sum],
          `${step}: ${role} total past the last page`,
        );
      }
      for (const row of await storedAgainstCounted(t.app.deps.database.db)) {
        assert.deepEqual(
          [row.stored, row.stored_hidden, row.stored_posts, row.stored_hidden_posts],
          [row.counted, row.counted_hidden, row.counted_posts, row.counted_hidden_posts],
          `${step}: stored counters of ${String(row.slug)}`,
        );
      }
    };

    before(async () => {
      const club = await buildClub(database);
      t = club.t;
      tokens.admin = club.admin;
      const owner = club.owner;
      tokens.moderator = (await addMember(t.app, 'club', 'mod', 'moderator')).token;
      tokens.member = (await addMember(t.app, 'club', 'mem')).token;
      for (const [slug, visibility] of Object.entries(FORUMS)) {
        assert.equal((await api('admin', 'POST', '/forums', { name: slug, slug, visibility })).statusCode, 201);
      }
      await portal(t.app, owner, {
        method: 'PUT',
        url: '/api/instances/club/env',
        payload: { FORUM_API_PUBLIC_READ: 'true', API_CORS_ORIGINS: 'https://app.example' },
      });
      await portal(t.app, owner, { method: 'POST', url: '/api/instances/club/restart' });
    });
    after(() => t.close());

    it('keeps list totals exact through new, hidden and unhidden topics, for every viewer', async () => {
      await assertTotals('empty');
      const general = [
        await newTopic('member', 'general', 'One'),
        await newTopic('member', 'general', 'Two'),
        await newTopic('admin', 'general', 'Three'),
      ];
      const lounge = [await newTopic('member', 'lounge', 'Four'), await newTopic('member', 'lounge', 'Five')];
      await newTopic('moderator', 'backstage', 'Six');
      await assertTotals('created');

      await setHidden(general[0]!, true);
      await setHidden(lounge[0]!, true);
      await assertTotals('hidden');

      // Writing the state a topic already has moves nothing.
      await setHidden(general[0]!, true);
      await assertTotals('hidden again');
      await setHidden(general[1]!, false);
      await assertTotals('unhidden while visible');

      // Two moderators hiding the same topic at once count it once.
      await Promise.all([setHidden(general[2]!, true), setHidden(general[2]!, true)]);
      await assertTotals('hidden twice at once');

      await setHidden(general[0]!, false);
      await setHidden(general[2]!, false);
      await assertTotals('unhidden');

      // Other changes of a hidden topic, and posts, leave the topic counts alone.
      assert.equal(
        (
          await api('moderator', 'PATCH', `/topics/${lounge[0]!}`, {
            title: 'Four, renamed',
            pinned: true,
            locked: true,
          })
        ).statusCode,
        200,
      );
      const reply = json<{ id: string }>(
        await api('member', 'POST', `/topics/${general[1]!}/posts`, { body: 'A reply' }),
      );
      assert.equal((await api('member', 'DELETE', `/posts/${reply.id}`)).statusCode, 204);
      await assertTotals('retitled, pinned, replied');

      // Replies to a hidden topic count for staff only, and move with the topic when it is unhidden.
      const hiddenReply = json<{ id: string }>(
        await api('moderator', 'POST', `/topics/${lounge[0]!}/posts`, { body: 'Staff note' }),
      );
      await api('moderator', 'POST', `/topics/${lounge[0]!}/posts`, { body: 'Another staff note' });
      await assertTotals('replied in a hidden topic');
      assert.equal((await api('moderator', 'DELETE', `/posts/${hiddenReply.id}`)).statusCode, 204);
      await assertTotals('reply deleted in a hidden topic');
      await setHidden(lounge[0]!, false);
      await assertTotals('replied topic unhidden');
      await setHidden(lounge[0]!, true);
      await assertTotals('replied topic hidden again');
      // A reply and a hide of the same topic at once: the reply is counted with the topic's new state.
      await Promise.all([
        api('member', 'POST', `/topics/${general[1]!}/posts`, { body: 'Racing a hide' }),
        setHidden(general[1]!, true),
      ]);
      await assertTotals('replied while hidden');
      await setHidden(general[1]!, false);

      // A new topic lands in a forum that has hidden ones.
      await newTopic('member', 'lounge', 'Seven');
      await assertTotals('created among hidden');

      // Deleting a forum takes its topics, and its counters, out of every total.
      assert.equal((await api('admin', 'DELETE', '/forums/lounge')).statusCode, 204);
      for (const [id, topic] of topics) if (topic.forum === 'lounge') topics.delete(id);
      await assertTotals('forum deleted');
    });

    it('counts the threads of the threaded view, tombstones included', async () => {
      const topic = json<{ id: string; first_post: { id: string } }>(
        await api('member', 'POST', '/topics', { forum_id: 'general', title: 'Threads', body: 'Opening' }),
      );
      const post = async (body: string, parent?: string) =>
        json<{ id: string }>(
          await api('member', 'POST', `/topics/${topic.id}/posts`, { body, ...(parent ? { parent_id: parent } : {}) }),
        ).id;
      const threaded = async (query = '') => {
        const response = await api('member', 'GET', `/topics/${topic.id}/posts?view=threaded&page_size=100${query}`);
        return { total: pagination(response).total, roots: json<Row[]>(response).length };
      };
      assert.deepEqual(await threaded(), { total: 1, roots: 1 });
      const second = await post('Second thread');
      await post('A reply to the opening post', topic.first_post.id);
      await post('A reply to a reply', await post('Another reply', second));
      await post('Third thread');
      assert.deepEqual(await threaded(), { total: 3, roots: 3 });
      assert.equal((await api('member', 'DELETE', `/posts/${second}`)).statusCode, 204);
      assert.deepEqual(await threaded(), { total: 3, roots: 3 });
      const page = await api('member', 'GET', `/topics/${topic.id}/posts?view=threaded&page_size=2&page=2`);
      assert.deepEqual(pagination(page), {
        total: 3,
        total_pages: 2,
        first_page: 1,
        last_page: 2,
        page: 2,
        previous_page: 1,
      });
      assert.deepEqual(
        json<Array<{ body: string }>>(page).map((row) => row.body),
        ['Third thread'],
      );
      const [stored] = await queryRows<{ thread_count: number }>(
        t.app.deps.database.db,
        sql`select thread_count from forum_topics where id = ${topic.id}`,
      );
      assert.equal(stored!.thread_count, 3);
    });

    // PGlite runs one transaction at a time: two can never wait on each other there.
    if (database === 'postgres') {
      /** A public forum holding one topic. */
      const forumWithTopic = async (slug: string): Promise<{ id: string; forum_id: string }> => {
        assert.equal(
          (await api('admin', 'POST', '/forums', { name: slug, slug, visibility: 'public' })).statusCode,
          201,
        );
        return json<{ id: string; forum_id: string }>(
          await api('member', 'POST', '/topics', { forum_id: slug, title: 'Going', body: 'Soon gone' }),
        );
      };
      /** Waits until `count` sessions of the test database wait on a lock. */
      const lockWaiters = (count: number) =>
        eventually(`${count} session(s) to wait on a lock`, async () => {
          const [row] = await queryRows<{ waiting: number }>(
            t.app.deps.database.db,
            sql`select count(*)::int as waiting from pg_stat_activity where datname = current_database() and \
wait_event_type = 'Lock'`,
          );
          return row!.waiting >= count ? true : undefined;
        });
      /** Runs `use` on a connection of its own, in a transaction `use` commits. */
      const onOwnConnection = async (use: (client: pg.Client) => Promise<void>): Promise<void> => {
        const client = new pg.Client({ connectionString: t.testDatabase.url });
        await client.connect();
        try {
          await client.query('begin');
          await use(client);
        } finally {
          await client.end();
        }
      };

      it('deletes a forum while a reply holds one of its topics, without a deadlock', async () => {
        const topic = await forumWithTopic('doomed');
        // A reply's own transaction, stopped between its two writes: the topic row, then the forum row.
        await onOwnConnection(async (reply) => {
          await reply.query('update forum_topics set post_count = post_count + 1 where id = $1', [topic.id]);
          const deleting = api('admin', 'DELETE', '/forums/doomed');
          await lockWaiters(1);
          // Had the delete locked the forum row first, this would wait on it while it waits on the
          // topic: PostgreSQL would then abort one of the two as a deadlock.
          await reply.query('update forums set post_count = post_count + 1 where id = $1', [topic.forum_id]);
          await reply.query('commit');
          assert.equal((await deleting).statusCode, 204);
        });
        assert.equal((await api('admin', 'GET', '/forums/doomed')).statusCode, 404);
        assert.equal((await api('admin', 'GET', `/topics/${topic.id}`)).statusCode, 404);
      });

      it('answers a reply to a topic deleted while the reply waited with topic_not_found', async () => {
        const topic = await forumWithTopic('gone');
        // The topic held, the delete queues for it first and the reply, which has read the topic, after it.
        await onOwnConnection(async (holder) => {
          await holder.query('select id from forum_topics where id = $1 for update', [topic.id]);
          const deleting = api('admin', 'DELETE', '/forums/gone');
          await lockWaiters(1);
          const replying = api('member', 'POST', `/topics/${topic.id}/posts`, { body: 'Too late' });
          await lockWaiters(2);
          await holder.query('commit');
          assert.equal((await deleting).statusCode, 204);
          const reply = await replying;
          assert.equal(reply.statusCode, 404, reply.body);
          assert.equal(json<{ code: string }>(reply).code, 'topic_not_found');
        });
      });
    }
  });

  describe(`forum counters migration [${database}]`, () => {
    it('backfills the counters of forums and topics that exist before it', async () => {
      const db = await createTestDatabase(database, { migrate: false });
      try {
        // The committed migrations up to the one before the counters.
        const later = await migrateUpTo(db.handle, '_forum_counters');

        const run = (query: string) => db.handle.db.execute(sql.raw(query));
        await run(`insert into sites (id, kind, plan) values ('club', 'community', 'pro')`);
        await run(
          `insert into forums (id, site_id, name, slug) values ('f1', 'club', 'One', 'one'), ('f2', 'club', 'Two', \
'two'), ('f3', 'club', 'Empty', 'empty')`,
        );
        await run(`insert into forum_topics (id, site_id, forum_id, title, slug, hidden, post_count) values
          ('t1', 'club', 'f1', 'a', 'a', false, 3), ('t2', 'club', 'f1', 'b', 'b', true, 1), ('t3', 'club', 'f1', 'c', \
'c', false, 0), ('t4', 'club', 'f2', 'd', 'd', true, 2)`);
        await run(`insert into forum_posts (id, site_id, topic_id, parent_id, root_id, depth, body_source, body_html, \
body_text) values
          ('p1', 'club', 't1', null, 'p1', 0, 'x', 'x', 'x'), ('p2', 'club', 't1', 'p1', 'p1', 1, 'x', 'x', 'x'), \
('p3', 'club', 't1', null, 'p3', 0, 'x', 'x', 'x'),
          ('p4', 'club', 't2', null, 'p4', 0, 'x', 'x', 'x')`);
        assert.equal(await runMigrations(db.handle), later);

        const forums = await queryRows<Row>(
          db.handle.db,
          sql`select id, topic_count, hidden_topic_count, post_count, hidden_post_count from forums order by id`,
        );
        assert.deepEqual(forums, [
          { id: 'f1', topic_count: 3, hidden_topic_count: 1, post_count: 4, hidden_post_count: 1 },
          { id: 'f2', topic_count: 1, hidden_topic_count: 1, post_count: 2, hidden_post_count: 2 },
          { id: 'f3', topic_count: 0, hidden_topic_count: 0, post_count: 0, hidden_post_count: 0 },
        ]);
        const topics = await queryRows<Row>(db.handle.db, sql`select id, thread_count from forum_topics order by id`);
        assert.deepEqual(topics, [
          { id: 't1', thread_count: 2 },
          { id: 't2', thread_count: 1 },
          { id: 't3', thread_count: 0 },
          { id: 't4', thread_count: 0 },
        ]);
      } finally {
        await db.drop();
      }
    });
  });
}
