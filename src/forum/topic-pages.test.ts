// Pages of posts cached per node (decision 0109) on two nodes sharing one database and nothing else:
// node B keeps a topic's pages, node A (or SQL behind both) writes, and B's next page is exact
// because a trigger moved the topic's or the community's version; while none moves, B answers the
// page it cached without reading it.
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
import { UiClient } from '../../test/helpers/forum-ui.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { queryRows } from '../db/client.js';

const SITE = 'pages';

interface PostOut {
  id: string;
  body: string;
  deleted: boolean;
  like_count: number;
  author: { username: string } | null;
  replies?: PostOut[];
}

for (const database of testDatabases) {
  describe(`topic pages cached per node [${database}]`, () => {
    let t: CommunityOnTwoNodes;
    let ann: ForumActor;
    let bob: ForumActor;
    const call = (
      node: TestApp,
      token: string,
      method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
      path: string,
      payload?: object,
    ) => forumApi(node.app, SITE, token, { method, path, ...(payload ? { payload } : {}) });
    const onA = async (method: 'POST' | 'PATCH' | 'DELETE', path: string, payload?: object, token = t.admin) => {
      const response = await call(t.a, token, method, path, payload);
      assert.ok(response.statusCode < 300, response.body);
      return response;
    };
    /** The topic's posts as node B answers them (classic, or the threads of the threaded view). */
    const onB = async (topic: string, view: 'classic' | 'threaded' = 'classic'): Promise<PostOut[]> => {
      const response = await call(t.b, bob.token, 'GET', `/topics/${topic}/posts?view=${view}&page_size=50`);
      assert.equal(response.statusCode, 200, response.body);
      return json<PostOut[]>(response);
    };
    const bodies = (posts: PostOut[]) => posts.map((post) => post.body);
    const run = (statement: ReturnType<typeof sql>) => t.shared.handle.db.execute(statement);
    /** A topic of Ann's with replies of Bob's, each body as given. */
    const topicWith = async (...replies: string[]) => {
      const topic = json<{ id: string; first_post: { id: string } }>(
        await onA('POST', '/topics', { forum_id: 'open', title: 'Kept', body: 'Start' }, ann.token),
      );
      const posts = [topic.first_post.id];
      for (const body of replies)
        posts.push(json<{ id: string }>(await onA('POST', `/topics/${topic.id}/posts`, { body }, bob.token)).id);
      return { id: topic.id, posts };
    };

    before(async () => {
      t = await communityOnTwoNodes(database, SITE);
      [ann, bob] = await Promise.all([addMember(t.a.app, SITE, 'ann'), addMember(t.a.app, SITE, 'bob')]);
      await onA('POST', '/forums', { name: 'open', slug: 'open', visibility: 'public' });
    });
    after(() => t.close());

    it("reads the page anew on the other node after each write to the topic's posts", async () => {
      const topic = await topicWith('One');
      assert.deepEqual(bodies(await onB(topic.id)), ['Start', 'One'], 'node B keeps the page');
      const two = json<{ id: string }>(
        await onA('POST', `/topics/${topic.id}/posts`, { body: 'Two', parent_id: topic.posts[1] }, ann.token),
      );
      assert.deepEqual(bodies(await onB(topic.id)), ['Start', 'One', 'Two'], 'a reply');
      assert.deepEqual(bodies((await onB(topic.id, 'threaded'))[1]!.replies!), ['Two'], 'the threaded view');
      await onA('PATCH', `/posts/${topic.posts[1]}`, { body: 'One, edited' }, bob.token);
      assert.deepEqual(bodies(await onB(topic.id)), ['Start', 'One, edited', 'Two'], 'an edit');
      assert.deepEqual(bodies(await onB(topic.id, 'threaded')), ['Start', 'One, edited'], 'an edit, threaded');
      await onA('POST', `/posts/${two.id}/like`, undefined, bob.token);
      assert.equal((await onB(topic.id))[2]!.like_count, 1, 'a like');
      await onA('DELETE', `/posts/${two.id}`, undefined, ann.token);
      assert.equal((await onB(topic.id))[2]!.deleted, true, 'a tombstone');

      const ui = new UiClient(t.b.app, communityHost(SITE));
      assert.match((await ui.get(`/t/${topic.id}`)).body, /One, edited/);
      await onA('PATCH', `/posts/${topic.posts[1]}`, { body: 'One, edited twice' }, bob.token);
      assert.match((await ui.get(`/t/${topic.id}`)).body, /One, edited twice/, 'the web UI page');
    });

    it('reads the page anew after SQL behind both nodes, whoever writes', async () => {
      const topic = await topicWith('One', 'Two');
      assert.deepEqual(bodies(await onB(topic.id)), ['Start', 'One', 'Two']);
      await run(sql`update forum_posts set body_source = 'Changed' where id = ${topic.posts[1]}`);
      assert.deepEqual(bodies(await onB(topic.id)), ['Start', 'Changed', 'Two'], 'a body changed with SQL');
      await run(sql`delete from forum_posts where id = ${topic.posts[2]}`);
      assert.deepEqual(bodies(await onB(topic.id)), ['Start', 'Changed'], 'a post deleted with SQL');
      await run(sql`update forum_members set username = 'robert' where id = ${bob.member.id}`);
      assert.equal((await onB(topic.id))[1]!.author?.username, 'robert', 'an author renamed with SQL');
      await run(sql`update forum_members set username = 'bob' where id = ${bob.member.id}`);
      assert.equal((await onB(topic.id))[1]!.author?.username, 'bob');
      const gone = await addMember(t.a.app, SITE, 'gone');
      await onA('POST', `/topics/${topic.id}/posts`, { body: 'Bye' }, gone.token);
      assert.equal((await onB(topic.id))[2]!.author?.username, 'gone');
      await run(sql`delete from forum_members where id = ${gone.member.id}`);
      assert.equal((await onB(topic.id))[2]!.author, null, "an author's account deleted with SQL");
    });

    it('answers the page it cached while no version moved', async () => {
      const topic = await topicWith('One');
      assert.deepEqual(bodies(await onB(topic.id)), ['Start', 'One']);
      // With the trigger off, an edit moves no version: node B answers the page it cached, node A
      // (which cached none) the edited one.
      await run(sql`alter table forum_posts disable trigger forum_posts_updated`);
      try {
        await run(sql`update forum_posts set body_source = 'Unseen' where id = ${topic.posts[1]}`);
        assert.deepEqual(bodies(await onB(topic.id)), ['Start', 'One']);
        assert.deepEqual(
          bodies(json<PostOut[]>(await call(t.a, bob.token, 'GET', `/topics/${topic.id}/posts?page_size=50`))),
          ['Start', 'Unseen'],
        );
      } finally {
        await run(sql`alter table forum_posts enable trigger forum_posts_updated`);
      }
      await onA('POST', `/topics/${topic.id}/posts`, { body: 'Seen' }, bob.token);
      assert.deepEqual(bodies(await onB(topic.id)), ['Start', 'Unseen', 'Seen']);
    });

    it("drops a deleted topic's version with its posts", async () => {
      const topic = await topicWith('One');
      const versions = async () =>
        (
          await queryRows<{ n: number }>(
            t.shared.handle.db,
            sql`select count(*)::int as n from forum_topic_versions where topic_id = ${topic.id}`,
          )
        )[0]!.n;
      assert.equal(await versions(), 1);
      await run(sql`delete from forum_topics where id = ${topic.id}`);
      assert.equal(await versions(), 0);
      assert.equal((await call(t.b, bob.token, 'GET', `/topics/${topic.id}/posts`)).statusCode, 404);
    });
  });
}
