// Read marks and the unread list: a member's unread topics are the visible ones with posts newer than
// its mark (or never opened) and than its `read_before` (its joining, then "mark all read"); a mark
// only moves forward; a new reply makes a read topic unread again.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../db/client.js';
import { addMember, forumApi, makeCommunity, mintForumToken, type ForumActor } from '../../test/factories/forum.js';
import { buildTestApp, json, signIn, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';

type Row = Record<string, unknown>;
interface Created {
  id: string;
  title: string;
  first_post: { id: string };
}

for (const database of testDatabases) {
  describe(`unread topics [${database}]`, () => {
    let t: TestApp;
    let admin: string;
    let ann: ForumActor;
    let bob: ForumActor;
    const topics: Record<string, Created> = {};
    const call = (token: string | undefined, method: 'GET' | 'POST', path: string, payload?: Row) =>
      forumApi(t.app, 'reads', token, { method, path, ...(payload ? { payload } : {}) });
    /** The unread titles; the X-Pagination total must count exactly them (it is counted apart). */
    const unread = async (actor: ForumActor, extra = '') => {
      const answer = await call(actor.token, 'GET', `/topics?filter=unread&page_size=100${extra}`);
      const titles = json<Array<{ title: string }>>(answer).map((row) => row.title);
      assert.equal(
        (JSON.parse(String(answer.headers['x-pagination'])) as { total: number }).total,
        titles.length,
        'X-Pagination total',
      );
      return titles;
    };
    const read = (actor: ForumActor, topic: Created, postId: string) =>
      call(actor.token, 'POST', `/topics/${topic.id}/read`, { post_id: postId });

    before(async () => {
      t = await buildTestApp({ database, env: { BLUME_RATE_LOGIN_PER_MINUTE: '1000' } });
      const owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'reads');
      admin = await mintForumToken(t.app, 'reads', 'owner', owner.password);
      [ann, bob] = await Promise.all([addMember(t.app, 'reads', 'ann'), addMember(t.app, 'reads', 'bob')]);
      for (const [slug, visibility] of [
        ['open', 'public'],
        ['other', 'public'],
        ['staff', 'staff'],
      ] as const) {
        assert.equal((await call(admin, 'POST', '/forums', { name: slug, slug, visibility })).statusCode, 201);
      }
      for (const [title, forum, token] of [
        ['Alpha', 'open', ann.token],
        ['Beta', 'other', ann.token],
        ['Secret', 'staff', admin],
      ] as const) {
        topics[title] = json<Created>(
          await call(token, 'POST', '/topics', { forum_id: forum, title, body: `${title} body` }),
        );
      }
    });
    after(() => t.close());

    it('lists the topics a member never opened, newest activity first, never those it cannot see', async () => {
      assert.deepEqual(await unread(bob), ['Beta', 'Alpha']);
      assert.deepEqual(await unread(bob, '&forum_id=open'), ['Alpha']);
      const latest = json<Array<{ title: string }>>(await call(bob.token, 'GET', '/topics?filter=latest')).map(
        (row) => row.title,
      );
      assert.deepEqual(latest, ['Beta', 'Alpha']);
    });

    it('drops a topic read to its last post, brings it back on a new reply, and never moves a mark back', async () => {
      const alpha = topics.Alpha!;
      const marked = await read(bob, alpha, alpha.first_post.id);
      assert.equal(marked.statusCode, 200, marked.body);
      assert.equal(json<{ last_read_post_id: string }>(marked).last_read_post_id, alpha.first_post.id);
      assert.deepEqual(await unread(bob), ['Beta']);
      assert.deepEqual(await unread(ann), ['Beta', 'Alpha'], "another member's marks are its own");

      const replyId = json<{ id: string }>(
        await call(ann.token, 'POST', `/topics/${alpha.id}/posts`, { body: 'Something new' }),
      ).id;
      assert.deepEqual(await unread(bob), ['Alpha', 'Beta']);
      assert.equal(json<{ last_read_post_id: string }>(await read(bob, alpha, replyId)).last_read_post_id, replyId);
      assert.equal(
        json<{ last_read_post_id: string }>(await read(bob, alpha, alpha.first_post.id)).last_read_post_id,
        replyId,
        'the mark stays at the newer post',
      );
      assert.deepEqual(await unread(bob), ['Beta']);
    });

    it('moves a mark to a deleted last post, so a topic whose last post went is not unread for good', async () => {
      const beta = topics.Beta!;
      const gone = json<{ id: string }>(
        await call(ann.token, 'POST', `/topics/${beta.id}/posts`, { body: 'Soon gone' }),
      ).id;
      assert.equal(
        (await forumApi(t.app, 'reads', ann.token, { method: 'DELETE', path: `/posts/${gone}` })).statusCode,
        204,
      );
      assert.ok((await unread(bob)).includes('Beta'));
      const marked = await read(bob, beta, gone);
      assert.equal(marked.statusCode, 200, marked.body);
      assert.ok(!(await unread(bob)).includes('Beta'));
    });

    it('refuses a post of another topic, a post it cannot see, and guests', async () => {
      const wrong = await read(bob, topics.Alpha!, topics.Beta!.first_post.id);
      assert.equal(wrong.statusCode, 404);
      assert.equal(json(wrong).code, 'post_not_found');
      assert.equal((await read(bob, topics.Secret!, topics.Secret!.first_post.id)).statusCode, 404);
      assert.equal((await call(undefined, 'GET', '/topics?filter=unread')).statusCode, 401);
      assert.equal((await call(undefined, 'POST', '/topics/read')).statusCode, 401);
    });

    it('shows a member who joins later none of the older topics unread, until they have a new post', async () => {
      const carol = await addMember(t.app, 'reads', 'carol');
      assert.deepEqual(await unread(carol), []);
      const alpha = topics.Alpha!;
      assert.equal(
        (await call(ann.token, 'POST', `/topics/${alpha.id}/posts`, { body: 'News for carol' })).statusCode,
        201,
      );
      assert.deepEqual(await unread(carol), ['Alpha']);
    });

    it('marks all read: nothing unread, the marks kept (the trust ladder counts them), and the next post unread again', async () => {
      const marks = async () =>
        (
          await queryRows<{ n: number }>(
            t.app.deps.database.db,
            sql`select count(*)::int as n from forum_topic_reads where member_id = ${bob.member.id}`,
          )
        )[0]!.n;
      assert.ok((await unread(bob)).length > 0);
      const marked = await marks();
      assert.ok(marked > 0);
      const answer = await call(bob.token, 'POST', '/topics/read');
      assert.equal(answer.statusCode, 200, answer.body);
      const readBefore = Date.parse(json<{ read_before: string }>(answer).read_before);
      assert.ok(Math.abs(Date.now() - readBefore) < 60_000, 'read_before is now');
      assert.deepEqual(await unread(bob), []);
      assert.deepEqual(await unread(ann), ['Alpha', 'Beta'], "another member's unread topics stay");
      assert.equal(await marks(), marked);
      const beta = topics.Beta!;
      assert.equal(
        (await call(ann.token, 'POST', `/topics/${beta.id}/posts`, { body: 'After the sweep' })).statusCode,
        201,
      );
      assert.deepEqual(await unread(bob), ['Beta']);
    });
  });
}
