// Drafts in the Forum API: saved per member and key for topics and forums the member may see, read
// back only by their writer, deleted by posting, bounded in number; bad keys and strangers refused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addMember, buildClub, type ForumActor, forumApi } from '../../test/factories/forum.js';
import { json, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { MAX_DRAFTS_PER_MEMBER } from './drafts.js';
import { forumDrafts } from './tables.js';

type Row = Record<string, unknown>;
interface Draft {
  key: string;
  title: string | null;
  body: string;
  updated_at: string;
}

for (const database of testDatabases) {
  describe(`forum drafts API [${database}]`, () => {
    let t: TestApp;
    let admin: string;
    let alice: ForumActor;
    let bob: ForumActor;
    let topicId: string;
    let staffTopicId: string;
    let forumId: string;
    const api = (token: string | undefined, method: string, path: string, payload?: Row) =>
      forumApi(t.app, 'club', token, { method: method as 'GET', path, ...(payload ? { payload } : {}) });

    before(async () => {
      ({ t, admin } = await buildClub(database));
      [alice, bob] = await Promise.all([addMember(t.app, 'club', 'alice'), addMember(t.app, 'club', 'bob')]);
      const general = await api(admin, 'POST', '/forums', { name: 'General', slug: 'general' });
      forumId = json<{ id: string }>(general).id;
      await api(admin, 'POST', '/forums', { name: 'Staff room', slug: 'staffroom', visibility: 'staff' });
      topicId = json<{ id: string }>(
        await api(alice.token, 'POST', '/topics', { forum_id: 'general', title: 'Seeds', body: 'Which?' }),
      ).id;
      staffTopicId = json<{ id: string }>(
        await api(admin, 'POST', '/topics', { forum_id: 'staffroom', title: 'Plans', body: 'Secret' }),
      ).id;
    });
    after(() => t.close());

    it('saves, reads back and replaces a reply draft; posting the reply deletes it', async () => {
      assert.equal((await api(bob.token, 'GET', `/drafts/topic-${topicId}`)).statusCode, 404);
      const saved = await api(bob.token, 'PUT', `/drafts/topic-${topicId}`, {
        body: 'First words\r\nand more',
        title: 'ignored',
      });
      assert.equal(saved.statusCode, 200, saved.body);
      const draft = json<Draft>(saved);
      assert.deepEqual(
        { ...draft, updated_at: undefined },
        { key: `topic-${topicId}`, title: null, body: 'First words\nand more', updated_at: undefined },
      );
      assert.ok(!Number.isNaN(Date.parse(draft.updated_at)));
      assert.equal((await api(bob.token, 'PUT', `/drafts/topic-${topicId}`, { body: 'Second words' })).statusCode, 200);
      assert.equal(json<Draft>(await api(bob.token, 'GET', `/drafts/topic-${topicId}`)).body, 'Second words');
      // Another member's draft under the same key is its own; nobody reads bob's.
      assert.equal((await api(alice.token, 'GET', `/drafts/topic-${topicId}`)).statusCode, 404);
      assert.equal((await api(undefined, 'GET', `/drafts/topic-${topicId}`)).statusCode, 401);

      assert.equal(
        (await api(bob.token, 'POST', `/topics/${topicId}/posts`, { body: 'Posted words' })).statusCode,
        201,
      );
      const gone = await api(bob.token, 'GET', `/drafts/topic-${topicId}`);
      assert.equal(gone.statusCode, 404);
      assert.equal(json<{ code: string }>(gone).code, 'draft_not_found');
    });

    it('keeps a new topic draft per forum, named by its id, with its title; posting the topic deletes it', async () => {
      const saved = await api(bob.token, 'PUT', `/drafts/forum-${forumId}`, { title: 'Compost', body: '' });
      assert.equal(saved.statusCode, 200, saved.body);
      assert.equal(json<Draft>(saved).title, 'Compost');
      const bySlug = await api(bob.token, 'PUT', '/drafts/forum-general', { body: 'x' });
      assert.equal(bySlug.statusCode, 400);
      assert.equal(json<{ code: string }>(bySlug).code, 'draft_key_invalid');
      assert.equal(
        (await api(bob.token, 'POST', '/topics', { forum_id: 'general', title: 'Compost', body: 'Bins?' })).statusCode,
        201,
      );
      assert.equal((await api(bob.token, 'GET', `/drafts/forum-${forumId}`)).statusCode, 404);
    });

    it('refuses drafts for what the member cannot see exactly as for what does not exist, and bad keys', async () => {
      const hidden = await api(bob.token, 'PUT', `/drafts/topic-${staffTopicId}`, { body: 'x' });
      const missing = await api(bob.token, 'PUT', '/drafts/topic-nosuchtopic', { body: 'x' });
      assert.equal(hidden.statusCode, 404);
      assert.deepEqual(
        { ...json<Row>(hidden), detail: undefined, instance: undefined },
        { ...json<Row>(missing), detail: undefined, instance: undefined },
      );
      assert.equal((await api(admin, 'PUT', `/drafts/topic-${staffTopicId}`, { body: 'staff draft' })).statusCode, 200);
      for (const key of ['post-1', 'topic-', 'topic-a%2Fb', 'topic-a.b'])
        assert.equal((await api(bob.token, 'PUT', `/drafts/${key}`, { body: 'x' })).statusCode, 400, key);
      assert.equal(
        (await api(bob.token, 'PUT', `/drafts/topic-${topicId}`, { body: 'x'.repeat(50_001) })).statusCode,
        400,
      );
      assert.equal((await api(bob.token, 'PUT', `/drafts/topic-${topicId}`, { body: 'x', extra: 1 })).statusCode, 400);
    });

    it('deletes a draft, and deleting none is no error; a member keeps a bounded number', async () => {
      await api(bob.token, 'PUT', `/drafts/topic-${topicId}`, { body: 'to delete' });
      assert.equal((await api(bob.token, 'DELETE', `/drafts/topic-${topicId}`)).statusCode, 204);
      assert.equal((await api(bob.token, 'DELETE', `/drafts/topic-${topicId}`)).statusCode, 204);
      assert.equal((await api(bob.token, 'GET', `/drafts/topic-${topicId}`)).statusCode, 404);

      // Fill bob's allowance (one real draft, the rest rows as many topics would leave), then a new
      // draft is refused while the kept ones can still be saved again.
      await api(bob.token, 'PUT', `/drafts/topic-${topicId}`, { body: 'kept' });
      const db = t.app.deps.database.db;
      await db.insert(forumDrafts).values(
        Array.from({ length: MAX_DRAFTS_PER_MEMBER - 1 }, (_, i) => ({
          memberId: bob.member.id,
          key: `topic-filler${i}`,
          siteId: 'club',
          body: 'x',
        })),
      );
      const refused = await api(bob.token, 'PUT', `/drafts/forum-${forumId}`, { body: 'one too many' });
      assert.equal(refused.statusCode, 409);
      assert.equal(json<{ code: string }>(refused).code, 'too_many_drafts');
      assert.equal((await api(bob.token, 'PUT', `/drafts/topic-${topicId}`, { body: 'kept, edited' })).statusCode, 200);
    });
  });
}
