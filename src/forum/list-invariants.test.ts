// The forum's list counters and topic_list_version hold for any write to forum_topics, made with
// plain SQL here as another domain (the CMS) or an operator would make it (decisions 0040, 0110).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestDatabase, testDatabases, type TestDatabase } from '../../test/helpers/databases.js';
import { queryRows } from '../db/client.js';

interface ForumState {
  id: string;
  topic_list_version: number;
  topic_count: number;
  hidden_topic_count: number;
  post_count: number;
  hidden_post_count: number;
}

for (const database of testDatabases) {
  describe(`forum list invariants [${database}]`, () => {
    let testDb: TestDatabase;
    const run = (query: string) => testDb.handle.db.execute(sql.raw(query));
    /** Each forum as stored, and its counters as recounted from its topics. */
    const forumsNow = async () => {
      const stored = await queryRows<ForumState>(
        testDb.handle.db,
        sql`select id, topic_list_version::int as topic_list_version, topic_count, hidden_topic_count, post_count, \
hidden_post_count from forums order by id`,
      );
      const recounted = await queryRows<Omit<ForumState, 'topic_list_version'>>(
        testDb.handle.db,
        sql`select f.id, count(t.id)::int as topic_count, count(t.id) filter (where t.hidden)::int as \
hidden_topic_count,
              coalesce(sum(t.post_count), 0)::int as post_count, coalesce(sum(t.post_count) filter (where t.hidden), \
0)::int as hidden_post_count
            from forums f left join forum_topics t on t.forum_id = f.id group by f.id order by f.id`,
      );
      return { stored, recounted };
    };
    /** Runs `write` and checks the counters still match; answers which forums' versions moved. */
    const versionsMovedBy = async (write: string): Promise<string[]> => {
      const before = await forumsNow();
      await run(write);
      const after = await forumsNow();
      assert.deepEqual(
        after.stored.map(({ topic_list_version: _version, ...counts }) => counts),
        after.recounted,
        `counters after: ${write}`,
      );
      return after.stored
        .filter((forum, i) => forum.topic_list_version !== before.stored[i]!.topic_list_version)
        .map((forum) => forum.id);
    };

    before(async () => {
      testDb = await createTestDatabase(database);
      await run(`insert into sites (id, kind, plan) values ('club', 'community', 'pro')`);
      await run(
        `insert into forums (id, site_id, name, slug) values ('f1', 'club', 'One', 'one'), ('f2', 'club', 'Two', \
'two')`,
      );
    });
    after(() => testDb.drop());

    it('moves the version and the counters with every write that changes a forum list, and only those', async () => {
      assert.deepEqual(
        await versionsMovedBy(
          `insert into forum_topics (id, site_id, forum_id, title, slug, post_count) values ('t1', 'club', 'f1', 'a', \
'a', 1)`,
        ),
        ['f1'],
      );
      assert.deepEqual(
        await versionsMovedBy(
          `insert into forum_topics (id, site_id, forum_id, title, slug, post_count, hidden) values ('t2', 'club', \
'f1', 'b', 'b', 3, true)`,
        ),
        ['f1'],
      );
      assert.deepEqual(
        await versionsMovedBy(
          `update forum_topics set post_count = post_count + 1, last_post_at = now() + interval '1 second' where id = \
't1'`,
        ),
        ['f1'],
        'a reply',
      );
      assert.deepEqual(await versionsMovedBy(`update forum_topics set pinned = true where id = 't1'`), ['f1'], 'a pin');
      assert.deepEqual(
        await versionsMovedBy(`update forum_topics set hidden = true where id = 't1'`),
        ['f1'],
        'a hide',
      );
      assert.deepEqual(
        await versionsMovedBy(`update forum_topics set hidden = false where id = 't2'`),
        ['f1'],
        'an unhide',
      );
      assert.deepEqual(
        await versionsMovedBy(`update forum_topics set post_count = post_count - 1 where id = 't2'`),
        ['f1'],
        'a deleted post',
      );
      // Cached topic list pages show every column of their topics (decision 0110).
      assert.deepEqual(
        await versionsMovedBy(`update forum_topics set title = 'renamed', slug = 'renamed' where id = 't1'`),
        ['f1'],
        'a rename',
      );
      assert.deepEqual(
        await versionsMovedBy(`update forum_topics set locked = true where id = 't1'`),
        ['f1'],
        'a lock',
      );
      assert.deepEqual(
        await versionsMovedBy(`update forum_topics set pinned = pinned where id = 't1'`),
        [],
        'a write that changes nothing',
      );
      assert.deepEqual(
        await versionsMovedBy(`update forum_topics set forum_id = 'f2' where id = 't2'`),
        ['f1', 'f2'],
        'a move',
      );
      assert.deepEqual(await versionsMovedBy(`delete from forum_topics where id = 't1'`), ['f1'], 'a delete');
      const { stored } = await forumsNow();
      assert.deepEqual(
        stored.map(({ id, topic_count, post_count }) => ({ id, topic_count, post_count })),
        [
          { id: 'f1', topic_count: 0, post_count: 0 },
          { id: 'f2', topic_count: 1, post_count: 2 },
        ],
      );
      // Deleting a forum takes its topics with it; the trigger finds no forum left to count in.
      await run(`delete from forums where id = 'f2'`);
      assert.deepEqual(
        (await forumsNow()).stored.map((forum) => forum.id),
        ['f1'],
      );
    });
  });
}
