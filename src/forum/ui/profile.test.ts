// A member's profile on both databases: their topics, posts, likes received and given, and latest
// posts with the topic each is in, counted and listed only where the viewer may read (a staff forum's
// posts show to staff alone, a deleted post to nobody); guests see no profiles.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addMember, buildClub, communityHost, type ForumActor, forumApi } from '../../../test/factories/forum.js';
import { json, type TestApp } from '../../../test/helpers/app.js';
import { testDatabases } from '../../../test/helpers/databases.js';
import { pageText, UiClient } from '../../../test/helpers/forum-ui.js';

interface Created {
  id: string;
  first_post: { id: string };
}

for (const database of testDatabases) {
  describe(`forum profiles [${database}]`, () => {
    let t: TestApp;
    let ann: ForumActor;
    let bob: ForumActor;
    let moderator: ForumActor;
    const host = communityHost('club');
    const api = (token: string, method: 'GET' | 'POST' | 'DELETE', path: string, payload?: Record<string, unknown>) =>
      forumApi(t.app, 'club', token, { method, path, ...(payload ? { payload } : {}) });
    const as = async (actor: ForumActor) => {
      const ui = new UiClient(t.app, host);
      assert.equal((await ui.login(actor.member.username, actor.password)).statusCode, 303);
      return ui;
    };
    /** The numbers of a profile's stats, by label. */
    const stats = (body: string) =>
      Object.fromEntries(
        [...body.matchAll(/<div><dt>([^<]+)<\/dt><dd>(\d+)<\/dd><\/div>/g)].map((m) => [m[1], +m[2]!]),
      );

    before(async () => {
      const club = await buildClub(database);
      t = club.t;
      const admin = club.admin;
      [ann, bob, moderator] = await Promise.all([
        addMember(t.app, 'club', 'ann', 'moderator'),
        addMember(t.app, 'club', 'bob'),
        addMember(t.app, 'club', 'mod', 'moderator'),
      ]);
      for (const forum of [
        { name: 'General', slug: 'general' },
        { name: 'Staff room', slug: 'staffroom', visibility: 'staff' },
      ])
        assert.equal((await api(admin, 'POST', '/forums', forum)).statusCode, 201);
      const topic = async (forum: string, title: string) => {
        const created = await api(ann.token, 'POST', '/topics', { forum_id: forum, title, body: `${title}, opened.` });
        assert.equal(created.statusCode, 201, created.body);
        return json<Created>(created);
      };
      const reply = async (topicId: string, body: string) => {
        const created = await api(ann.token, 'POST', `/topics/${topicId}/posts`, { body });
        assert.equal(created.statusCode, 201, created.body);
        return json<{ id: string }>(created).id;
      };
      const garden = await topic('general', 'Garden tools');
      await reply(garden.id, 'The rake is in the shed.');
      const gone = await reply(garden.id, 'A reply taken back.');
      assert.equal((await api(ann.token, 'DELETE', `/posts/${gone}`)).statusCode, 204);
      const plans = await topic('staffroom', 'Staff plans');
      await reply(plans.id, 'Only staff read this.');
      assert.equal((await api(bob.token, 'POST', `/posts/${garden.first_post.id}/like`)).statusCode, 200);
      assert.equal((await api(moderator.token, 'POST', `/posts/${plans.first_post.id}/like`)).statusCode, 200);
      // ann likes bob's post: a like given.
      const bobs = await api(bob.token, 'POST', `/topics/${garden.id}/posts`, { body: 'Thanks!' });
      assert.equal(bobs.statusCode, 201, bobs.body);
      assert.equal((await api(ann.token, 'POST', `/posts/${json<{ id: string }>(bobs).id}/like`)).statusCode, 200);
    });
    after(() => t.close());

    it("counts and lists a member's activity where a member may read", async () => {
      const page = await (await as(bob)).get('/u/ann');
      assert.equal(page.statusCode, 200);
      assert.deepEqual(stats(page.body), { Topics: 1, Posts: 2, 'Likes received': 1, 'Likes given': 1 });
      const text = pageText(page.body);
      assert.match(
        text,
        /Recent posts Garden tools The rake is in the shed\. now Garden tools Garden tools, opened\. now · 1 like/,
      );
      assert.doesNotMatch(text, /Staff plans|Only staff read this|taken back/);
    });

    it('counts the staff forum for staff', async () => {
      const page = await (await as(moderator)).get('/u/ann');
      assert.deepEqual(stats(page.body), { Topics: 2, Posts: 4, 'Likes received': 2, 'Likes given': 1 });
      assert.match(pageText(page.body), /Staff plans Only staff read this\./);
      assert.doesNotMatch(pageText(page.body), /taken back/);
    });

    it('shows guests no profile', async () => {
      const page = await new UiClient(t.app, host).get('/u/ann');
      assert.notEqual(page.statusCode, 200);
      assert.doesNotMatch(page.body, /Likes received/);
    });
  });
}
