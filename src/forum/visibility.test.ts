// Walks every read endpoint as guest, member, moderator and admin, and checks that nothing the
// visibility policy withholds leaks: no title, body, slug, name or count.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addMember, forumApi, makeCommunity, mintForumToken } from '../../test/factories/forum.js';
import { buildTestApp, json, portal, signIn, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';

type Row = Record<string, unknown>;
type Role = 'guest' | 'member' | 'moderator' | 'admin';

/** Marker words of restricted things, and the roles that may see them. */
const SECRETS: Record<string, Role[]> = {
  Innercat: ['member', 'moderator', 'admin'],
  loungeslug: ['member', 'moderator', 'admin'],
  Memberssecret: ['member', 'moderator', 'admin'],
  memberbodyword: ['member', 'moderator', 'admin'],
  Backstagecat: ['moderator', 'admin'],
  staffslug: ['moderator', 'admin'],
  Staffsecret: ['moderator', 'admin'],
  staffbodyword: ['moderator', 'admin'],
  Hiddensecret: ['moderator', 'admin'],
  hiddenbodyword: ['moderator', 'admin'],
  // A first post held for moderators (its author is none of the walk's roles), and a warning: the
  // warned member reads it, moderators see it in the moderation log. Neither is ever in search.
  Heldsecret: ['moderator', 'admin'],
  heldbodyword: ['moderator', 'admin'],
  warnreasonword: ['member', 'moderator', 'admin'],
};
const NEVER_SEARCHED = /^(held|warn)/i;

for (const database of testDatabases) {
  describe(`forum visibility walk [${database}]`, () => {
    let t: TestApp;
    const tokens: Partial<Record<Role, string>> = {};
    const topics: Record<string, string> = {};
    const forumIds: Record<string, string> = {};

    before(async () => {
      t = await buildTestApp({ database, env: { BLUME_RATE_LOGIN_PER_MINUTE: '1000' } });
      const owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'club');
      const admin = await mintForumToken(t.app, 'club', 'owner', owner.password);
      tokens.admin = admin;
      tokens.moderator = (await addMember(t.app, 'club', 'mod', 'moderator')).token;
      const member = await addMember(t.app, 'club', 'mem');
      tokens.member = member.token;
      const newbie = await addMember(t.app, 'club', 'newbie');
      const call = (path: string, payload: Row, method = 'POST') =>
        forumApi(t.app, 'club', admin, { method: method as 'POST', path, payload });
      await call('/categories', { name: 'Opencat', slug: 'open', position: 1 });
      await call('/categories', { name: 'Innercat', slug: 'inner', position: 2 });
      await call('/categories', { name: 'Backstagecat', slug: 'backstage', position: 3 });
      for (const [slug, category, visibility] of [
        ['general', 'open', 'public'],
        ['loungeslug', 'inner', 'members'],
        ['staffslug', 'backstage', 'staff'],
      ] as const) {
        forumIds[slug] = json<{ id: string }>(
          await call('/forums', { name: slug, slug, category_id: category, visibility }),
        ).id;
      }
      const topic = async (key: string, forum: string, title: string, body: string) => {
        const created = json<{ id: string }>(await call('/topics', { forum_id: forum, title, body }));
        topics[key] = created.id;
        await call(`/topics/${created.id}/posts`, { body: `${body} reply` });
      };
      await topic('public', 'general', 'Public hello', 'Everyone may read this publicword');
      await topic('hidden', 'general', 'Hiddensecret topic', 'hiddenbodyword here');
      await call(`/topics/${topics.hidden}`, { hidden: true }, 'PATCH');
      await topic('members', 'loungeslug', 'Memberssecret lounge', 'memberbodyword here');
      await topic('staff', 'staffslug', 'Staffsecret plans', 'staffbodyword here');
      // Guests read only with public read and CORS origins applied.
      await portal(t.app, owner, {
        method: 'PUT',
        url: '/api/instances/club/env',
        payload: {
          FORUM_API_PUBLIC_READ: 'true',
          API_CORS_ORIGINS: 'https://app.example',
          FORUM_HOLD_FIRST_POSTS: 'true',
        },
      });
      await portal(t.app, owner, { method: 'POST', url: '/api/instances/club/restart' });
      const held = await forumApi(t.app, 'club', newbie.token, {
        method: 'POST',
        path: '/topics',
        payload: { forum_id: 'general', title: 'Heldsecret first', body: 'heldbodyword here' },
      });
      assert.equal(held.statusCode, 202, held.body);
      const warned = await forumApi(t.app, 'club', tokens.moderator, {
        method: 'POST',
        path: `/members/${member.member.id}/warnings`,
        payload: { reason: 'warnreasonword please' },
      });
      assert.equal(warned.statusCode, 201, warned.body);
    });
    after(() => t.close());

    const ROLES: Role[] = ['guest', 'member', 'moderator', 'admin'];
    const expected = {
      topicsTotal: { guest: 1, member: 2, moderator: 4, admin: 4 },
      generalTopicCount: { guest: 1, member: 1, moderator: 2, admin: 2 },
      generalPostCount: { guest: 2, member: 2, moderator: 4, admin: 4 },
      forums: {
        guest: ['general'],
        member: ['general', 'loungeslug'],
        moderator: ['general', 'loungeslug', 'staffslug'],
        admin: ['general', 'loungeslug', 'staffslug'],
      },
      categories: {
        guest: ['Opencat'],
        member: ['Opencat', 'Innercat'],
        moderator: ['Opencat', 'Innercat', 'Backstagecat'],
        admin: ['Opencat', 'Innercat', 'Backstagecat'],
      },
    };
    const mayReadTopic: Record<string, Role[]> = {
      public: ROLES,
      hidden: ['moderator', 'admin'],
      members: ['member', 'moderator', 'admin'],
      staff: ['moderator', 'admin'],
    };
    const mayReadForum: Record<string, Role[]> = {
      general: ROLES,
      loungeslug: ['member', 'moderator', 'admin'],
      staffslug: ['moderator', 'admin'],
    };

    for (const role of ROLES) {
      it(`shows a ${role} exactly what the policy allows`, async () => {
        const token = tokens[role];
        const seen: string[] = [];
        const get = async (path: string) => {
          const response = await forumApi(t.app, 'club', token, {
            method: 'GET',
            path,
            headers: { origin: 'https://app.example' },
          });
          // Not-found answers and search links echo the caller's own words; everything else must not leak.
          if (response.statusCode !== 404) seen.push(response.body, String(response.headers['x-pagination'] ?? ''));
          if (!path.startsWith('/search')) seen.push(String(response.headers.link ?? ''));
          return response;
        };
        /** A restricted thing answers exactly like a thing that does not exist. */
        const missing = async (path: string, code: string) => {
          const response = await get(path);
          assert.equal(response.statusCode, 404, `${role} ${path}`);
          assert.equal(json(response).code, code);
          const ref = /\/(?:forums|topics)\/([^/?]+)|forum_id=([^&]+)/.exec(path)!;
          const unknown = await get(path.replace(ref[1] ?? ref[2]!, 'doesnotexist'));
          assert.equal(json(response).detail, String(json(unknown).detail).replace('doesnotexist', ref[1] ?? ref[2]!));
        };

        const forums = json<Row[]>(await get('/forums'));
        assert.deepEqual(
          forums.map((f) => f.slug),
          expected.forums[role],
        );
        const general = forums.find((f) => f.slug === 'general')!;
        assert.equal(general.topic_count, expected.generalTopicCount[role]);
        assert.equal(general.post_count, expected.generalPostCount[role]);
        assert.deepEqual(
          json<Row[]>(await get('/categories')).map((c) => c.name),
          expected.categories[role],
        );

        for (const [slug, roles] of Object.entries(mayReadForum)) {
          for (const ref of [slug, forumIds[slug]!]) {
            if (roles.includes(role)) {
              const forum = json(await get(`/forums/${ref}`));
              assert.equal(forum.slug, slug);
              if (slug === 'general') assert.equal(forum.topic_count, expected.generalTopicCount[role]);
              assert.equal((await get(`/topics?forum_id=${ref}`)).statusCode, 200);
            } else {
              await missing(`/forums/${ref}`, 'forum_not_found');
              await missing(`/topics?forum_id=${ref}`, 'forum_not_found');
            }
          }
        }

        const all = await get('/topics?page_size=100');
        assert.equal(JSON.parse(String(all.headers['x-pagination'])).total, expected.topicsTotal[role]);
        const generalTopics = await get('/topics?forum_id=general');
        assert.equal(JSON.parse(String(generalTopics.headers['x-pagination'])).total, expected.generalTopicCount[role]);

        for (const [key, roles] of Object.entries(mayReadTopic)) {
          const id = topics[key]!;
          if (roles.includes(role)) {
            assert.equal((await get(`/topics/${id}`)).statusCode, 200);
            assert.equal(json<Row[]>(await get(`/topics/${id}/posts?view=classic`)).length, 2);
            assert.equal(json<Row[]>(await get(`/topics/${id}/posts?view=threaded`)).length, 2);
          } else {
            await missing(`/topics/${id}`, 'topic_not_found');
            await missing(`/topics/${id}/posts`, 'topic_not_found');
            await missing(`/topics/${id}/posts?view=threaded`, 'topic_not_found');
            // Writing into an unseen topic is as unknown as reading it.
            if (token) {
              const reply = await forumApi(t.app, 'club', token, {
                method: 'POST',
                path: `/topics/${id}/posts`,
                payload: { body: 'peek' },
              });
              assert.equal(json(reply).code, 'topic_not_found');
            }
          }
        }

        for (const word of ['publicword', ...Object.keys(SECRETS)]) {
          const hits = json<Row[]>(await get(`/search?q=${word}`));
          const allowed = word === 'publicword' || SECRETS[word]!.includes(role);
          const searchable = !/cat$|slug$/.test(word);
          if (NEVER_SEARCHED.test(word)) assert.equal(hits.length, 0, `${role} search ${word}`);
          else if (searchable) assert.equal(hits.length, allowed ? 1 : 0, `${role} search ${word}`);
        }

        // Moderation reads: the hold and the log (moderators), one's own warnings (members).
        for (const path of ['/held-posts', '/moderation-log', '/warnings']) await get(path);

        const everything = seen.join('\n').toLowerCase();
        for (const [word, roles] of Object.entries(SECRETS)) {
          if (roles.includes(role)) assert.ok(everything.includes(word.toLowerCase()), `${role} should see ${word}`);
          else assert.ok(!everything.includes(word.toLowerCase()), `${role} must not see ${word}`);
        }
      });
    }
  });
}
