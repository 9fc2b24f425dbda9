// Avatars: a member uploads a picture on its profile (checked by its bytes, stored without its
// metadata, served inert), topic pages and lists show it, and members without one get initials in
// a coloured bubble; SVG, disguised files and forged forms are refused. The Forum API names each
// member's avatar (`avatar_url`): the uploaded picture, or the initials generated as SVG.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { deflateSync } from 'node:zlib';
import {
  addMember,
  communityHost,
  forumApi,
  makeCommunity,
  mintForumToken,
  type ForumActor,
} from '../../../test/factories/forum.js';
import { buildTestApp, json, signIn, type TestApp } from '../../../test/helpers/app.js';
import { testDatabases } from '../../../test/helpers/databases.js';
import { UiClient } from '../../../test/helpers/forum-ui.js';
import { pngChunk } from '../../../test/helpers/images.js';
import { AVATAR_PALETTE, colourOf, initialsOf } from '../avatars.js';

const SECRET = 'GPS 48.8584N 2.2945E';

/** A 2x2 RGB PNG with a tEXt chunk holding SECRET. */
function photoPng(): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(2, 0);
  header.writeUInt32BE(2, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const rows = Buffer.concat([Buffer.from([0, 255, 0, 0, 0, 255, 0]), Buffer.from([0, 9, 9, 9, 99, 99, 99])]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('tEXt', Buffer.from(`Location\0${SECRET}`)),
    pngChunk('IDAT', deflateSync(rows)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

for (const database of testDatabases) {
  describe(`forum avatars [${database}]`, () => {
    let t: TestApp;
    let ann: ForumActor;
    let bob: ForumActor;
    let topic: string;
    let admin: string;
    const host = communityHost('faces');
    const as = async (actor: ForumActor) => {
      const ui = new UiClient(t.app, host);
      assert.equal((await ui.login(actor.member.username, actor.password)).statusCode, 303);
      await ui.get('/account');
      return ui;
    };

    before(async () => {
      t = await buildTestApp({
        database,
        env: { BLUME_RATE_LOGIN_PER_MINUTE: '1000', BLUME_RATE_POSTS_PER_MINUTE: '1000' },
      });
      const owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'faces');
      admin = await mintForumToken(t.app, 'faces', 'owner', owner.password);
      [ann, bob] = await Promise.all([addMember(t.app, 'faces', 'ann'), addMember(t.app, 'faces', 'bob.smith')]);
      assert.equal(
        (
          await forumApi(t.app, 'faces', admin, {
            method: 'POST',
            path: '/forums',
            payload: { name: 'General', slug: 'general' },
          })
        ).statusCode,
        201,
      );
      topic = json<{ id: string }>(
        await forumApi(t.app, 'faces', ann.token, {
          method: 'POST',
          path: '/topics',
          payload: { forum_id: 'general', title: 'Faces', body: 'Hello' },
        }),
      ).id;
      await forumApi(t.app, 'faces', bob.token, {
        method: 'POST',
        path: `/topics/${topic}/posts`,
        payload: { body: 'Hi ann' },
      });
    });
    after(() => t.close());

    type Named = { username: string; avatar_url: string } | null;
    /**
     * Every avatar URL the Forum API gives for `username`: post authors, topic authors, notification actors, members.
     */
    async function apiAvatars(username: string): Promise<Set<string>> {
      const get = async <T>(token: string, path: string) =>
        json<T>(await forumApi(t.app, 'faces', token, { method: 'GET', path }));
      const [posts, topics, notifications, members] = await Promise.all([
        get<Array<{ author: Named }>>(ann.token, `/topics/${topic}/posts`),
        get<Array<{ author: Named }>>(ann.token, '/topics'),
        get<Array<{ actor: Named }>>(ann.token, '/notifications'),
        get<Array<Exclude<Named, null>>>(admin, '/members'),
      ]);
      const named = [
        ...posts.map((p) => p.author),
        ...topics.map((p) => p.author),
        ...notifications.map((n) => n.actor),
        ...members,
      ];
      return new Set(named.filter((who) => who?.username === username).map((who) => who!.avatar_url));
    }

    it('names generated initials in the Forum API for members without a picture, served as inert SVG', async () => {
      const bs = `/avatars/initials/${colourOf('bob.smith')}/BS.svg`;
      assert.deepEqual(await apiAvatars('bob.smith'), new Set([bs]), 'post author, notification actor and member');
      assert.deepEqual(
        await apiAvatars('ann'),
        new Set([`/avatars/initials/${colourOf('ann')}/AN.svg`]),
        'post and topic author and member',
      );
      const svg = await t.app.inject({ method: 'GET', url: bs, headers: { host } });
      assert.equal(svg.statusCode, 200);
      assert.equal(svg.headers['content-type'], 'image/svg+xml');
      assert.equal(svg.headers['x-content-type-options'], 'nosniff');
      assert.match(String(svg.headers['content-security-policy']), /sandbox/);
      assert.match(
        svg.body,
        new RegExp(
          `^<svg xmlns="http://www.w3.org/2000/svg"[^>]*><circle [^>]*fill="${AVATAR_PALETTE[colourOf('bob.smith')]}"/>\
<text [^>]*>BS</text></svg>$`,
        ),
      );
      const again = await t.app.inject({
        method: 'GET',
        url: bs,
        headers: { host, 'if-none-match': String(svg.headers.etag) },
      });
      assert.equal(again.statusCode, 304);
      for (const url of [
        '/avatars/initials/8/BS.svg',
        '/avatars/initials/0/bs.svg',
        '/avatars/initials/0/BSX.svg',
        '/avatars/initials/0/B%3C.svg',
        '/avatars/initials/0/BS.png',
        '/avatars/initials/x/BS.svg',
      ]) {
        assert.equal((await t.app.inject({ method: 'GET', url, headers: { host } })).statusCode, 404, url);
      }
      assert.equal(
        (await t.app.inject({ method: 'GET', url: bs, headers: { host: communityHost('other') } })).statusCode,
        404,
      );
    });

    it('shows initials in a stable coloured bubble for members without a picture', async () => {
      assert.deepEqual([initialsOf('ann'), initialsOf('bob.smith'), initialsOf('x')], ['AN', 'BS', 'X']);
      const page = await (await as(ann)).get(`/t/${topic}`);
      assert.match(
        page.body,
        new RegExp(
          `<header><span class="avatar avatar-c${colourOf('bob.smith')}" aria-hidden="true">BS</span>\
<a class="author" href="/u/bob.smith">bob.smith</a>`,
        ),
      );
      const list = await (await as(ann)).get('/latest');
      assert.match(
        list.body,
        new RegExp(
          `<span class="posters"><span title="ann"><span class="avatar avatar-c${colourOf('ann')}" aria-hidden="true">AN</span></span>`,
        ),
      );
    });

    it('takes a picture without its metadata, serves it inert, and shows it on topic pages and lists', async () => {
      const ui = await as(ann);
      assert.match(
        (await ui.get('/account')).body,
        /<form class="stack" method="post" action="\/account\/avatar" enctype="multipart\/form-data">/,
      );
      const forged = await ui.postMultipart(
        '/account/avatar',
        [{ name: 'avatar', filename: 'me.png', content: photoPng(), contentType: 'image/png' }],
        { csrf: false },
      );
      assert.equal(forged.statusCode, 403, 'the CSRF field must come first');
      for (const [filename, content, type] of [
        ['me.svg', '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', 'image/svg+xml'],
        ['me.png', '<script>alert(1)</script>', 'image/png'],
        ['me.pdf', '%PDF-1.4\n', 'application/pdf'],
      ] as const) {
        const refused = await ui.postMultipart('/account/avatar', [
          { name: 'avatar', filename, content, contentType: type },
        ]);
        assert.equal(refused.statusCode, 415, `${filename}: ${refused.body.slice(0, 200)}`);
      }
      const big = await ui.postMultipart('/account/avatar', [
        { name: 'avatar', filename: 'big.png', content: Buffer.alloc(1024 * 1024 + 1), contentType: 'image/png' },
      ]);
      assert.equal(big.statusCode, 413);

      await ui.get('/account');
      const uploaded = await ui.postMultipart('/account/avatar', [
        { name: 'avatar', filename: 'me.png', content: photoPng(), contentType: 'image/png' },
      ]);
      assert.equal(uploaded.statusCode, 303, uploaded.body);
      const account = await ui.get('/account');
      const id = /<img class="avatar large" src="\/avatars\/([^"]+)" alt=""/.exec(account.body)![1]!;
      const served = await t.app.inject({ method: 'GET', url: `/avatars/${id}`, headers: { host } });
      assert.equal(served.statusCode, 200);
      assert.equal(served.headers['content-type'], 'image/png');
      assert.equal(served.headers['x-content-type-options'], 'nosniff');
      assert.match(String(served.headers['content-security-policy']), /sandbox/);
      assert.ok(!served.rawPayload.includes(Buffer.from(SECRET)), 'the metadata is gone');
      assert.equal(
        (await t.app.inject({ method: 'GET', url: `/avatars/${id}`, headers: { host: communityHost('other') } }))
          .statusCode,
        404,
      );

      const reader = await as(bob);
      assert.match(
        (await reader.get(`/t/${topic}`)).body,
        new RegExp(
          `<header><img class="avatar" src="/avatars/${id}" alt="" width="24" height="24" loading="lazy">\
<a class="author" href="/u/ann">ann</a>`,
        ),
      );
      assert.match(
        (await reader.get('/latest')).body,
        new RegExp(`<span class="posters"><span title="ann"><img class="avatar" src="/avatars/${id}"[^>]*></span>`),
      );
      assert.match((await reader.get('/u/ann')).body, new RegExp(`<h1><img class="avatar large" src="/avatars/${id}"`));
      assert.deepEqual(
        await apiAvatars('ann'),
        new Set([`/avatars/${id}`]),
        'the API names the picture wherever it names ann',
      );

      await ui.get('/account');
      assert.equal((await ui.post('/account/avatar/remove', {})).statusCode, 303);
      assert.match(
        (await reader.get(`/t/${topic}`)).body,
        /<span class="avatar avatar-c\d" aria-hidden="true">AN<\/span><a class="author" href="\/u\/ann">/,
      );
      assert.equal(
        (await t.app.inject({ method: 'GET', url: `/avatars/${id}`, headers: { host } })).statusCode,
        404,
        'a replaced avatar is gone',
      );
      assert.deepEqual(await apiAvatars('ann'), new Set([`/avatars/initials/${colourOf('ann')}/AN.svg`]));
    });
  });
}
