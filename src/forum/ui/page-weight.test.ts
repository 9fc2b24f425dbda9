// The first load of the forum's busiest pages, as a logged-in member's browser gets them (HTML, CSS
// and JS, compressed as they cross the wire), stays under a ceiling well below two thirds of what they
// weighed uncompressed (a topic page 65 KiB, Latest 42 KiB): a page, stylesheet or script that grows
// past it fails here.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addMember, communityHost, forumApi, makeCommunity, mintForumToken } from '../../../test/factories/forum.js';
import { buildTestApp, signIn, type TestApp } from '../../../test/helpers/app.js';
import { UiClient } from '../../../test/helpers/forum-ui.js';
import { servedFirstLoad } from '../../../test/helpers/page-weight.js';

const KiB = 1024;
/** The ceilings: room to grow over today's (about 10 and 9 KiB), far under two thirds of 65 and 42 KiB. */
const TOPIC_PAGE_CEILING = 16 * KiB;
const LATEST_CEILING = 14 * KiB;

describe('first-load weight of forum pages [pglite]', () => {
  let t: TestApp;
  let member: UiClient;
  let topicUrl: string;

  before(async () => {
    t = await buildTestApp({
      database: 'pglite',
      env: { BLUME_RATE_LOGIN_PER_MINUTE: '1000', BLUME_RATE_POSTS_PER_MINUTE: '1000' },
    });
    const owner = await signIn(t.app, 'owner');
    await makeCommunity(t.app, owner, 'club');
    const admin = await mintForumToken(t.app, 'club', 'owner', owner.password);
    for (const slug of ['general', 'help']) {
      const forum = await forumApi(t.app, 'club', admin, {
        method: 'POST',
        path: '/forums',
        payload: { name: slug, slug },
      });
      assert.equal(forum.statusCode, 201, forum.body);
    }
    const alice = await addMember(t.app, 'club', 'alice');
    const bob = await addMember(t.app, 'club', 'bob');
    let topicId = '';
    // A full page of Latest (20 topics), and a topic page of 20 posts with code and a table.
    for (let i = 0; i < 20; i++) {
      const created = await forumApi(t.app, 'club', alice.token, {
        method: 'POST',
        path: '/topics',
        payload: {
          forum_id: i % 2 ? 'general' : 'help',
          title: `Question number ${i}: how do I configure the reverse proxy for websockets?`,
          body: `A question with some detail, as people write them. `.repeat(8),
        },
      });
      assert.equal(created.statusCode, 201, created.body);
      topicId ||= (JSON.parse(created.body) as { id: string }).id;
    }
    for (let i = 0; i < 19; i++) {
      const reply = await forumApi(t.app, 'club', i % 2 ? alice.token : bob.token, {
        method: 'POST',
        path: `/topics/${topicId}/posts`,
        payload: {
          body: `Reply ${i}: try this.\n\n\`\`\`nginx\nlocation /ws {\n  proxy_pass http://app;\n  proxy_http_version 1.1;\n}\n\`\`\`\n\n| Header | Value |\n|---|---|\n| Upgrade | websocket |\n\n${'And an explanation of why. '.repeat(6)}`,
        },
      });
      assert.equal(reply.statusCode, 201, reply.body);
    }
    member = new UiClient(t.app, communityHost('club'));
    assert.equal((await member.login('alice', alice.password)).statusCode, 303);
    topicUrl = `/t/${topicId}`;
  });
  after(() => t.close());

  it('keeps a topic page of 20 posts and a page of Latest under their ceilings', async () => {
    const get = (url: string, headers: Record<string, string>) => member.get(url, headers);
    const topic = await servedFirstLoad(get, topicUrl);
    const latest = await servedFirstLoad(get, '/latest');
    assert.deepEqual(topic.files.slice(1), ['/assets/forum.css', '/assets/forum.js']);
    assert.deepEqual(latest.files.slice(1), ['/assets/forum.css', '/assets/forum.js']);
    assert.ok(topic.bytes <= TOPIC_PAGE_CEILING, `a topic page weighs ${topic.bytes} B, over ${TOPIC_PAGE_CEILING}`);
    assert.ok(latest.bytes <= LATEST_CEILING, `Latest weighs ${latest.bytes} B, over ${LATEST_CEILING}`);
  });
});
