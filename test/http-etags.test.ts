// Conditional GETs (docs/decisions/0129-http-etags.md, src/http/etags.ts) on two nodes sharing one
// database and no bus: a read clients poll answers an `ETag`; the same read naming it in
// `If-None-Match` answers 304 with no body, on the node that made the tag and on the other; after a
// write through node A, or one made with SQL behind both nodes, node B's tag changes and its body is
// new within the cache seam's bound; and a viewer never gets a 304 for a tag another viewer was given.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { cmsApi, mintApiKey } from './factories/cms.js';
import {
  addMember,
  communityHost,
  forumApi,
  makeCommunity,
  mintForumToken,
  type ForumActor,
} from './factories/forum.js';
import { helpdeskApi } from './factories/helpdesk.js';
import { buildTestApp, json, portal, signIn, type Actor, type TestApp } from './helpers/app.js';
import { createTestDatabase, testDatabases, type TestDatabase } from './helpers/databases.js';
import { eventually } from './helpers/eventually.js';

/** How long node B may answer from before a change (docs/scaling.md). */
const BOUND_MS = 2_000;
const SITE = 'tags';
const ORIGIN = 'https://app.example';

type Read = (node: TestApp, headers?: Record<string, string>) => Promise<LightMyRequestResponse>;

/** A tagged 200: the tag is weak, private to the credential, and names the credential headers in `Vary`. */
function tagOf(response: LightMyRequestResponse, credential = true): string {
  assert.equal(response.statusCode, 200, response.body);
  const tag = response.headers.etag;
  assert.ok(typeof tag === 'string' && /^W\/"[vb][\w-]+"$/.test(tag), `a weak ETag, not ${String(tag)}`);
  const vary = String(response.headers.vary).toLowerCase();
  for (const name of ['authorization', 'authentication-token', 'cookie']) assert.ok(vary.includes(name), vary);
  if (credential) assert.equal(response.headers['cache-control'], 'private, no-cache');
  return tag;
}

/** The same read with the tag: 304, no body, the same tag. */
async function notModified(read: Read, node: TestApp, tag: string): Promise<void> {
  const response = await read(node, { 'if-none-match': tag });
  assert.equal(response.statusCode, 304, response.body);
  assert.equal(response.body, '', 'no body');
  assert.equal(response.headers.etag, tag);
}

/** Resolves once node B answers `read` with a new tag and a body `fresh` accepts, within the bound. */
async function changesOnB(
  what: string,
  read: Read,
  b: TestApp,
  tag: string,
  fresh: (body: string) => boolean,
  credential = true,
) {
  const response = await eventually(
    what,
    async () => {
      const answer = await read(b, { 'if-none-match': tag });
      return answer.statusCode === 200 && fresh(answer.body) ? answer : undefined;
    },
    BOUND_MS,
  );
  assert.notEqual(tagOf(response, credential), tag);
  return response;
}

for (const database of testDatabases) {
  describe(`ETag and 304 on two nodes without a bus between them [${database}]`, () => {
    let shared: TestDatabase;
    let a: TestApp;
    let b: TestApp;
    let owner: Actor;
    let ann: ForumActor;
    let bob: ForumActor;
    let adminToken = '';
    let key = '';
    let otherKey = '';
    const run = (statement: ReturnType<typeof sql>) => shared.handle.db.execute(statement);

    before(async () => {
      shared = await createTestDatabase(database);
      a = await buildTestApp({ database, sharedDatabase: shared });
      b = await buildTestApp({ database, sharedDatabase: shared });
      owner = await signIn(a.app, 'owner');
      await makeCommunity(a.app, owner, SITE, 'pro');
      adminToken = await mintForumToken(a.app, SITE, 'owner', owner.password);
      ann = await addMember(a.app, SITE, 'ann');
      bob = await addMember(a.app, SITE, 'bob');
      key = await mintApiKey(a.app, owner, SITE, ['cms-read', 'cms-write', 'helpdesk-read', 'helpdesk-write']);
      otherKey = await mintApiKey(a.app, owner, SITE, ['cms-read', 'cms-write', 'helpdesk-read', 'helpdesk-write']);
      const admin = await mintApiKey(a.app, owner, SITE, ['admin']);
      const type = await cmsApi(a.app, SITE, admin, {
        method: 'POST',
        path: '/content-types',
        payload: { slug: 'notes', name: 'Notes', fields: [{ name: 'title', type: 'text' }] },
      });
      assert.equal(type.statusCode, 201, type.body);
      const forum = await forumApi(a.app, SITE, adminToken, {
        method: 'POST',
        path: '/forums',
        payload: { name: 'Lounge', slug: 'lounge' },
      });
      assert.equal(forum.statusCode, 201, forum.body);
    });
    after(async () => {
      await a.close();
      await b.close();
      await shared.drop();
    });

    it('Content API lists: 304 on both nodes; a new tag after a write on node A, after SQL, and per key', async () => {
      const read =
        (as: string): Read =>
        (node, headers) =>
          cmsApi(node.app, SITE, as, { method: 'GET', path: '/entries/notes?sort=title', headers });
      const first = tagOf(await read(key)(b));
      await notModified(read(key), b, first);
      await notModified(read(key), a, first);
      const other = await read(otherKey)(b, { 'if-none-match': first });
      assert.notEqual(tagOf(other), first, "another key never matches this key's tag");
      const created = await cmsApi(a.app, SITE, key, {
        method: 'POST',
        path: '/entries/notes',
        payload: { slug: 'one', status: 'published', data: { title: 'One' } },
      });
      assert.equal(created.statusCode, 201, created.body);
      const second = await changesOnB('the new entry listed on node B', read(key), b, first, (body) =>
        body.includes('"One"'),
      );
      const tag = tagOf(second);
      await notModified(read(key), b, tag);
      await run(sql`update cms_entries set data = '{"title": "Uno"}'::jsonb where slug = 'one'`);
      await changesOnB('the entry changed with SQL on node B', read(key), b, tag, (body) => body.includes('"Uno"'));
      // HEAD answers as GET does.
      const head = await cmsApi(b.app, SITE, key, { method: 'HEAD', path: '/entries/notes?sort=title' });
      const headed = await cmsApi(b.app, SITE, key, {
        method: 'HEAD',
        path: '/entries/notes?sort=title',
        headers: { 'if-none-match': String(head.headers.etag) },
      });
      assert.equal(headed.statusCode, 304);
    });

    it('the content model: 304, and a new tag after a type changed with SQL', async () => {
      const read: Read = (node, headers) =>
        cmsApi(node.app, SITE, key, { method: 'GET', path: '/content-types', headers });
      const tag = tagOf(await read(b));
      await notModified(read, b, tag);
      await run(sql`update cms_content_types set name = 'Jottings' where slug = 'notes'`);
      await changesOnB('the renamed type on node B', read, b, tag, (body) => body.includes('Jottings'));
    });

    it('help desk ticket lists: 304 by their bytes; a new tag after a ticket opened on node A and after SQL', async () => {
      const read =
        (as: string): Read =>
        (node, headers) =>
          helpdeskApi(node.app, SITE, { key: as }, { method: 'GET', path: '/tickets', headers });
      const tag = tagOf(await read(key)(b));
      await notModified(read(key), b, tag);
      assert.equal((await read(otherKey)(b, { 'if-none-match': tag })).statusCode, 200, 'another key: the body');
      const opened = await helpdeskApi(
        a.app,
        SITE,
        { key },
        {
          method: 'POST',
          path: '/tickets',
          payload: { subject: 'Broken', body: 'It broke', requester: { email: 'carol@example.test' } },
        },
      );
      assert.equal(opened.statusCode, 201, opened.body);
      const listed = await changesOnB('the ticket listed on node B', read(key), b, tag, (body) =>
        body.includes('Broken'),
      );
      const next = tagOf(listed);
      await notModified(read(key), b, next);
      await run(sql`update helpdesk_tickets set subject = 'Mended' where subject = 'Broken'`);
      await changesOnB('the subject changed with SQL on node B', read(key), b, next, (body) => body.includes('Mended'));
    });

    it("a member's topic list, a topic's posts and notifications: 304 by versions, never across members", async () => {
      const list =
        (token: string): Read =>
        (node, headers) =>
          forumApi(node.app, SITE, token, { method: 'GET', path: '/topics?forum_id=lounge', headers });
      const empty = tagOf(await list(ann.token)(b));
      await notModified(list(ann.token), b, empty);
      await notModified(list(ann.token), a, empty);
      assert.equal((await list(bob.token)(b, { 'if-none-match': empty })).statusCode, 200, "bob never matches ann's");
      const topic = await forumApi(a.app, SITE, bob.token, {
        method: 'POST',
        path: '/topics',
        payload: { forum_id: 'lounge', title: 'Hello there', body: 'First, @ann' },
      });
      assert.equal(topic.statusCode, 201, topic.body);
      const { id } = json<{ id: string }>(topic);
      const listed = tagOf(
        await changesOnB('the topic listed on node B', list(ann.token), b, empty, (body) => body.includes('Hello')),
      );
      await run(sql`update forum_topics set title = 'Renamed' where id = ${id}`);
      await changesOnB('the title changed with SQL', list(ann.token), b, listed, (body) => body.includes('Renamed'));

      const posts: Read = (node, headers) =>
        forumApi(node.app, SITE, ann.token, { method: 'GET', path: `/topics/${id}/posts`, headers });
      const page = tagOf(await posts(b));
      await notModified(posts, b, page);
      await run(sql`update forum_posts set body_html = '<p>Edited</p>' where topic_id = ${id}`);
      await changesOnB('the post changed with SQL', posts, b, page, (body) => body.includes('Edited'));

      const notifications: Read = (node, headers) =>
        forumApi(node.app, SITE, ann.token, { method: 'GET', path: '/notifications', headers });
      const before = await notifications(b);
      const seen = tagOf(before);
      const count = json<unknown[]>(before).length;
      await notModified(notifications, b, seen);
      const reply = await forumApi(a.app, SITE, bob.token, {
        method: 'POST',
        path: `/topics/${id}/posts`,
        payload: { body: 'Again, @ann' },
      });
      assert.equal(reply.statusCode, 201, reply.body);
      await changesOnB(
        'the new mention on node B',
        notifications,
        b,
        seen,
        (body) => (JSON.parse(body) as unknown[]).length > count,
      );
    });

    it('instance settings: 304 to the owner; a new tag after a change with SQL', async () => {
      const read: Read = (node, headers) =>
        portal(node.app, owner, { method: 'GET', url: `/api/instances/${SITE}/env`, headers });
      const tag = tagOf(await read(b));
      await notModified(read, b, tag);
      await run(sql`insert into site_settings (site_id, desired) values (${SITE}, '{"FORUM_TITLE": "Tagged"}'::jsonb)
                    on conflict (site_id) do update set desired = excluded.desired`);
      await changesOnB('the settings changed with SQL', read, b, tag, (body) => body.includes('Tagged'));
    });

    it("the owner's site: 304 by its bytes; a new tag after a change with SQL", async () => {
      const read: Read = (node, headers) =>
        portal(node.app, owner, { method: 'GET', url: `/api/sites/${SITE}`, headers });
      const tag = tagOf(await read(b));
      await notModified(read, b, tag);
      await notModified(read, a, tag);
      await run(sql`update sites set plan = 'business' where id = ${SITE}`);
      await changesOnB('the plan changed with SQL', read, b, tag, (body) => body.includes('business'));
    });

    it('a guest page, compressed or not: one weak tag, 304 with no body, a new one after a new topic', async () => {
      const env = await portal(a.app, owner, {
        method: 'PUT',
        url: `/api/instances/${SITE}/env`,
        payload: { FORUM_API_PUBLIC_READ: 'True', API_CORS_ORIGINS: ORIGIN },
      });
      assert.equal(env.statusCode, 200, env.body);
      const read: Read = (node, headers) =>
        node.app.inject({ method: 'GET', url: '/latest', headers: { host: communityHost(SITE), ...headers } });
      const plain = await read(b);
      const tag = tagOf(plain, false);
      assert.equal(plain.headers['cache-control'], 'no-cache');
      const compressed = await read(b, { 'accept-encoding': 'br' });
      assert.equal(compressed.headers['content-encoding'], 'br');
      assert.equal(compressed.headers.etag, tag, 'the same weak tag for every encoding');
      const again = await read(b, { 'accept-encoding': 'br', 'if-none-match': tag });
      assert.equal(again.statusCode, 304);
      assert.equal(again.body, '');
      assert.equal(again.headers['content-encoding'], undefined);
      const topic = await forumApi(a.app, SITE, bob.token, {
        method: 'POST',
        path: '/topics',
        payload: { forum_id: 'lounge', title: 'Guests welcome', body: 'Hi' },
      });
      assert.equal(topic.statusCode, 201, topic.body);
      await changesOnB(
        'the new topic on the page on node B',
        read,
        b,
        tag,
        (body) => body.includes('Guests welcome'),
        false,
      );
    });
  });
}
