// Deep pages of a forum's topic list seek past a node's marks instead of walking their offset
// (docs/decisions/0022-forum-deep-pages.md). Whatever the marks, a page must hold exactly the rows the
// plain OFFSET query gives at that moment. Two nodes share one database; both walk every page, so
// each holds marks from before every write the test then makes on one of them, and every page is
// compared with OFFSET for every kind of viewer. The list across all forums is compared the same way.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { addMember, forumApi, makeCommunity } from '../../test/factories/forum.js';
import { buildTestApp, json, portal, signIn, type TestApp } from '../../test/helpers/app.js';
import { createTestDatabase, testDatabases, type TestDatabase } from '../../test/helpers/databases.js';
import { queryRows } from '../db/client.js';
import { TopicPageMarks } from './page-marks.js';

type Role = 'guest' | 'member' | 'moderator' | 'admin';
const ROLES: Role[] = ['guest', 'member', 'moderator', 'admin'];
const STAFF = new Set<Role>(['moderator', 'admin']);
const PAGE_SIZES = [3, 4];
/** Forum visibilities each viewer sees, for the list across all forums. */
const LEVELS: Record<Role, string[]> = {
  guest: ['public'],
  member: ['public', 'members'],
  moderator: ['public', 'members', 'staff'],
  admin: ['public', 'members', 'staff'],
};
const ENV = { BLUME_RATE_API_PER_MINUTE: '1000000', BLUME_RATE_POSTS_PER_MINUTE: '1000' };

for (const database of testDatabases) {
  describe(`forum topic list deep pages [${database}]`, () => {
    let shared: TestDatabase;
    let a: TestApp;
    let b: TestApp;
    const tokens: Partial<Record<Role, string>> = {};
    const topics: string[] = [];

    const api = (
      node: TestApp,
      role: Role,
      method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
      path: string,
      payload?: Record<string, unknown>,
    ) =>
      forumApi(node.app, 'club', tokens[role], {
        method,
        path,
        headers: { origin: 'https://app.example' },
        ...(payload ? { payload } : {}),
      });

    const write = async (
      node: TestApp,
      role: Role,
      method: 'POST' | 'PATCH' | 'DELETE',
      path: string,
      payload?: Record<string, unknown>,
    ): Promise<{ id: string }> => {
      const response = await api(node, role, method, path, payload);
      assert.ok(response.statusCode < 300, `${method} ${path}: ${response.body}`);
      return response.statusCode === 204 ? { id: '' } : json<{ id: string }>(response);
    };

    /** The page as the plain OFFSET query gives it, straight from the database. */
    const offsetPage = async (role: Role, size: number, offset: number): Promise<string[]> => {
      const rows = await queryRows<{ id: string }>(
        shared.handle.db,
        sql`select t.id from forum_topics t join forums f on f.id = t.forum_id
            where f.site_id = 'club' and f.slug = 'general' and (${STAFF.has(role)} or not t.hidden)
            order by t.pinned desc, t.last_post_at desc, t.id desc limit ${size} offset ${offset}`,
      );
      return rows.map((row) => row.id);
    };

    /** A page of the list across all forums (no `forum_id`) as the plain OFFSET query gives it. */
    const sitePage = async (role: Role, size: number, offset: number): Promise<string[]> => {
      const rows = await queryRows<{ id: string }>(
        shared.handle.db,
        sql`select t.id from forum_topics t join forums f on f.id = t.forum_id
            where f.site_id = 'club' and f.visibility in ${LEVELS[role]} and (${STAFF.has(role)} or not t.hidden)
            order by t.pinned desc, t.last_post_at desc, t.id desc limit ${size} offset ${offset}`,
      );
      return rows.map((row) => row.id);
    };

    /**
     * Every page (and the one past the end) of every size, on both nodes, for every viewer, against
     * OFFSET: backward first, so that the pages read right after a write seek past marks from before
     * it (past the nearest one), then forward (each page past the last row of the one before), then
     * backward again (each page past the row just before it).
     */
    const assertPages = async (step: string): Promise<void> => {
      for (const node of [b, a]) {
        for (const role of ROLES) {
          const [count] = await queryRows<{ n: number }>(
            shared.handle.db,
            sql`select count(*)::integer as n from forum_topics t join forums f on f.id = t.forum_id where f.site_id = \
'club' and f.slug = 'general' and (${STAFF.has(role)} or not t.hidden)`,
          );
          for (const size of PAGE_SIZES) {
            const forward = Array.from({ length: Math.ceil(count!.n / size) + 1 }, (_, i) => i + 1);
            const backward = forward.slice().reverse();
            for (const page of [...backward, ...forward, ...backward]) {
              const response = await api(node, role, 'GET', `/topics?forum_id=general&page_size=${size}&page=${page}`);
              assert.equal(response.statusCode, 200, `${step}: ${role}: ${response.body}`);
              const listed = json<Array<{ id: string }>>(response).map((topic) => topic.id);
              assert.deepEqual(
                listed,
                await offsetPage(role, size, (page - 1) * size),
                `${step}: ${node === a ? 'node a' : 'node b'}, ${role}, page ${page} of size ${size}`,
              );
            }
          }
          // The list across all forums has no marks; its pages come from the site's index.
          for (let page = 1; ; page++) {
            const response = await api(node, role, 'GET', `/topics?page_size=4&page=${page}`);
            assert.equal(response.statusCode, 200, `${step}: ${role}: ${response.body}`);
            const listed = json<Array<{ id: string }>>(response).map((topic) => topic.id);
            assert.deepEqual(
              listed,
              await sitePage(role, 4, (page - 1) * 4),
              `${step}: ${role}, page ${page} of all forums`,
            );
            if (listed.length === 0) break;
          }
        }
      }
    };

    before(async () => {
      shared = await createTestDatabase(database);
      a = await buildTestApp({ database, sharedDatabase: shared, env: ENV });
      const owner = await signIn(a.app, 'owner');
      await makeCommunity(a.app, owner, 'club');
      await portal(a.app, owner, {
        method: 'PUT',
        url: '/api/instances/club/env',
        payload: { FORUM_API_PUBLIC_READ: 'true', API_CORS_ORIGINS: 'https://app.example' },
      });
      await portal(a.app, owner, { method: 'POST', url: '/api/instances/club/restart' });
      tokens.admin = (await addMember(a.app, 'club', 'ada', 'admin')).token;
      tokens.moderator = (await addMember(a.app, 'club', 'mo', 'moderator')).token;
      tokens.member = (await addMember(a.app, 'club', 'mel')).token;
      await write(a, 'admin', 'POST', '/forums', { name: 'General', slug: 'general' });
      for (let i = 0; i < 14; i++)
        topics.push(
          (
            await write(a, i % 3 === 0 ? 'admin' : 'member', 'POST', '/topics', {
              forum_id: 'general',
              title: `Topic ${i}`,
              body: 'Body',
            })
          ).id,
        );
      // Topics in forums not everyone sees, for the list across all forums.
      await write(a, 'admin', 'POST', '/forums', { name: 'Lounge', slug: 'lounge', visibility: 'members' });
      await write(a, 'admin', 'POST', '/forums', { name: 'Backstage', slug: 'backstage', visibility: 'staff' });
      for (let i = 0; i < 3; i++)
        await write(a, 'member', 'POST', '/topics', { forum_id: 'lounge', title: `Lounge ${i}`, body: 'Body' });
      for (let i = 0; i < 2; i++)
        await write(a, 'admin', 'POST', '/topics', { forum_id: 'backstage', title: `Backstage ${i}`, body: 'Body' });
      // Node b starts after the community's settings, as a node that joins later would.
      b = await buildTestApp({ database, sharedDatabase: shared, env: ENV });
    });
    after(async () => {
      await a.close();
      await b.close();
      await shared.drop();
    });

    it('gives the rows of OFFSET through replies, hides, pins and new topics, on both nodes, for every viewer', async () => {
      await assertPages('created');

      // Ties broken by id, and times PostgreSQL's now() writes (microseconds, which a JavaScript Date
      // drops): the marks must carry the exact value. Written as a topic write would, with the version.
      await shared.handle.db.execute(
        sql`update forum_topics set last_post_at = date_trunc('second', last_post_at) + (case when id \
< ${topics[7]!} then 0 else length(title) end) * interval '1 microsecond'`,
      );
      await shared.handle.db.execute(
        sql`update forums set topic_list_version = topic_list_version + 1 where slug = 'general'`,
      );
      await assertPages('ties and microseconds');

      // A reply moves a deep topic to the top: every row before it shifts by one.
      await write(a, 'member', 'POST', `/topics/${topics[1]!}/posts`, { body: 'Up you go' });
      await assertPages('reply on node a');
      const reply = await write(b, 'member', 'POST', `/topics/${topics[5]!}/posts`, { body: 'And you' });
      await assertPages('reply on node b');

      await write(a, 'moderator', 'PATCH', `/topics/${topics[2]!}`, { hidden: true });
      await assertPages('hidden deep');
      await write(b, 'moderator', 'PATCH', `/topics/${topics[12]!}`, { hidden: true });
      await assertPages('hidden near the top');
      await write(a, 'moderator', 'PATCH', `/topics/${topics[2]!}`, { hidden: false });
      await assertPages('unhidden');

      await write(a, 'moderator', 'PATCH', `/topics/${topics[3]!}`, { pinned: true });
      await assertPages('pinned deep');
      await write(b, 'admin', 'PATCH', `/topics/${topics[12]!}`, { pinned: true });
      await assertPages('hidden topic pinned');
      await write(a, 'moderator', 'PATCH', `/topics/${topics[3]!}`, { pinned: false });
      await assertPages('unpinned');
      await write(a, 'member', 'POST', `/topics/${topics[0]!}/posts`, { body: 'Below the pinned ones' });
      await assertPages('reply under a pinned topic');

      // Neither a deleted post nor a new title moves a topic.
      await write(b, 'member', 'DELETE', `/posts/${reply.id}`);
      await write(a, 'moderator', 'PATCH', `/topics/${topics[4]!}`, { title: 'Renamed', locked: true });
      await assertPages('post deleted, topic renamed');

      topics.push(
        (await write(b, 'member', 'POST', '/topics', { forum_id: 'general', title: 'Latest', body: 'Body' })).id,
      );
      await assertPages('new topic on node b');
    });
  });
}

describe('topic page marks', () => {
  const mark = (id: string) => ({ pinned: false, lastPostAt: '2026-11-22 05:00:00.123456+00', id });

  it('seeks past the nearest mark before the page, reading the row before it unless its mark is known', () => {
    const marks = new TopicPageMarks();
    assert.deepEqual(marks.start('member:general', 0), { from: 0 });
    assert.deepEqual(marks.start('member:general', 30), { from: 29 });
    marks.learn('member:general', 'f1', 4, [
      [9, mark('t9')],
      [19, mark('t19')],
    ]);
    assert.deepEqual(marks.start('member:general', 20), {
      from: 20,
      seek: { forumId: 'f1', version: 4, rank: 19, mark: mark('t19') },
    });
    assert.deepEqual(marks.start('member:general', 30), {
      from: 29,
      seek: { forumId: 'f1', version: 4, rank: 19, mark: mark('t19') },
    });
    assert.deepEqual(marks.start('member:general', 15), {
      from: 14,
      seek: { forumId: 'f1', version: 4, rank: 9, mark: mark('t9') },
    });
    assert.deepEqual(marks.start('member:general', 5), { from: 4 });
    assert.deepEqual(marks.start('staff:general', 20), { from: 19 }, 'each visibility class has its own list');
  });

  it('keeps the marks of the newest version only, and forgets them when the name means another forum', () => {
    const marks = new TopicPageMarks();
    marks.learn('member:general', 'f1', 4, [[19, mark('old')]]);
    marks.learn('member:general', 'f1', 5, [[9, mark('new')]]);
    assert.equal(marks.start('member:general', 20).seek?.rank, 9);
    marks.learn('member:general', 'f1', 4, [[19, mark('late')]]);
    assert.equal(
      marks.start('member:general', 20).seek?.mark.id,
      'new',
      'marks read before a newer version are dropped',
    );
    marks.learn('member:general', 'f2', 1, [[3, mark('other')]]);
    assert.deepEqual(marks.start('member:general', 20).seek, {
      forumId: 'f2',
      version: 1,
      rank: 3,
      mark: mark('other'),
    });
  });
});
