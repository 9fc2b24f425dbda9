// The composer as a browser without script uses it: a preview round trip through the posting
// sanitizer that saves the draft, drafts restored per topic and per forum and deleted by posting,
// uploads from the form (within the uploads' checks), editing a post in the same composer (no
// draft), and CSRF on every form; the script's
// endpoints (preview, mention suggestions, uploads); "in reply to" in the classic view and threads
// shown to a fixed depth with "continue this thread".
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { addMember, buildClub, communityHost, type ForumActor, forumApi } from '../../../test/factories/forum.js';
import { json, type TestApp } from '../../../test/helpers/app.js';
import { testDatabases } from '../../../test/helpers/databases.js';
import { pageText, UiClient } from '../../../test/helpers/forum-ui.js';
import { ONE_PIXEL_PNG } from '../../../test/helpers/images.js';
import type { FormPart } from '../../../test/helpers/archives.js';
import { forumDrafts, forumUploads } from '../tables.js';
import { MAX_UPLOAD_BYTES } from '../uploads.js';
import { THREAD_DEPTH_PER_PAGE } from './read-views.js';

type Row = Record<string, unknown>;
const XSS = '<script>alert(1)</script><img src=x onerror=alert(2)>';

/** The text of the textarea `id` on a page, as the browser shows it. */
function textarea(body: string, id: string): string | undefined {
  const match = new RegExp(`<textarea id="${id}"[^>]*>([^<]*)</textarea>`).exec(body);
  return match
    ? match[1]!
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/&amp;/g, '&')
    : undefined;
}

/** The preview pane's HTML, when the page shows one. */
function preview(body: string): string | undefined {
  const match =
    /<section class="preview"[^>]*data-preview>(?:<h3[^>]*>Preview<\/h3>)<div class="body" aria-live="polite">([\s\S]*?)<\/div><\/section>/.exec(
      body,
    );
  return match?.[1];
}

for (const database of testDatabases) {
  describe(`forum composer [${database}]`, () => {
    let t: TestApp;
    let admin: string;
    let alice: ForumActor;
    let bob: ForumActor;
    let topicId: string;
    let openingId: string;
    const host = communityHost('club');
    const api = (token: string, method: string, path: string, payload?: Row) =>
      forumApi(t.app, 'club', token, { method: method as 'GET', path, ...(payload ? { payload } : {}) });
    const as = async (actor: ForumActor) => {
      const ui = new UiClient(t.app, host);
      assert.equal((await ui.login(actor.member.username, actor.password)).statusCode, 303);
      return ui;
    };
    const drafts = (memberId: string) =>
      t.app.deps.database.db.select().from(forumDrafts).where(eq(forumDrafts.memberId, memberId));

    before(async () => {
      ({ t, admin } = await buildClub(database));
      [alice, bob] = await Promise.all([addMember(t.app, 'club', 'alice'), addMember(t.app, 'club', 'bob')]);
      await addMember(t.app, 'club', 'alicia');
      const banned = await addMember(t.app, 'club', 'aliban');
      for (const forum of [
        { name: 'General', slug: 'general' },
        { name: 'Other', slug: 'other' },
        { name: 'Staff room', slug: 'staffroom', visibility: 'staff' },
      ]) {
        assert.equal((await api(admin, 'POST', '/forums', forum)).statusCode, 201);
      }
      assert.equal((await api(admin, 'PATCH', `/members/${banned.member.id}`, { banned: true })).statusCode, 200);
      const created = await api(alice.token, 'POST', '/topics', {
        forum_id: 'general',
        title: 'Seeds',
        body: 'Which seeds **now**?',
      });
      assert.equal(created.statusCode, 201, created.body);
      ({
        id: topicId,
        first_post: { id: openingId },
      } = json<{ id: string; first_post: { id: string } }>(created));
    });
    after(() => t.close());

    it('previews without script through the posting sanitizer, keeps the draft, restores it and posting deletes it', async () => {
      const ui = await as(bob);
      const page = await ui.get(`/t/${topicId}`);
      assert.match(
        page.body,
        /<form class="stack wide composer" method="post" action="\/t\/[^"]+\/reply" enctype="multipart\/form-data" data-composer data-draft="topic-[^"]+"><input type="hidden" name="_csrf"/,
      );
      assert.match(
        page.body,
        /<button type="submit" name="intent" value="preview" class="secondary" formnovalidate>Preview<\/button>/,
      );
      assert.equal(preview(page.body), undefined, 'no preview before asking');

      const written = `**Tomatoes** and _beans_, @alice. ${XSS}`;
      const shown = await ui.postMultipart(`/t/${topicId}/reply`, [
        { name: 'view', value: 'classic' },
        { name: 'body', value: written },
        { name: 'intent', value: 'preview' },
      ]);
      assert.equal(shown.statusCode, 200, shown.body);
      const html = preview(shown.body);
      assert.ok(html, 'the page shows the preview');
      assert.match(html, /<strong>Tomatoes<\/strong> and <em>beans<\/em>/);
      assert.doesNotMatch(html, /<script|<img/i, 'sanitized as posting sanitizes');
      assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
      assert.equal(textarea(shown.body, 'reply-body'), written, 'the text comes back as written');
      assert.match(pageText(shown.body), /Reply to “Seeds”/);

      // The draft is kept on the server: the topic's reply box has it again, on any later visit.
      assert.deepEqual(
        (await drafts(bob.member.id)).map((d) => [d.key, d.body]),
        [[`topic-${topicId}`, written]],
      );
      const again = await ui.get(`/t/${topicId}`);
      assert.equal(textarea(again.body, 'reply-body'), written);
      assert.match(again.body, /Draft restored\./);
      assert.equal(textarea((await ui.get(`/t/${topicId}/reply`)).body, 'reply-body'), written);
      // Drafts are the member's own.
      const other = await as(alice);
      assert.equal(textarea((await other.get(`/t/${topicId}`)).body, 'reply-body'), '');

      // A url-encoded post (older pages) previews the same way.
      const plain = await ui.post(`/t/${topicId}/reply`, { body: 'Just _one_ more', intent: 'preview' });
      assert.equal(plain.statusCode, 200);
      assert.match(preview(plain.body) ?? '', /Just <em>one<\/em> more/);

      const posted = await ui.postMultipart(`/t/${topicId}/reply`, [
        { name: 'view', value: 'classic' },
        { name: 'body', value: 'Beans, finally.' },
        { name: 'intent', value: 'post' },
      ]);
      assert.equal(posted.statusCode, 303, posted.body);
      assert.match(String(posted.headers.location), new RegExp(`^/t/${topicId}\\?page=last#p-`));
      assert.deepEqual(await drafts(bob.member.id), [], 'posting deletes the draft');
      assert.equal(textarea((await ui.get(`/t/${topicId}`)).body, 'reply-body'), '');
    });

    it('keeps a new topic draft per forum, with its title, until it is discarded or posted', async () => {
      const ui = await as(bob);
      await ui.get('/f/general/new');
      const shown = await ui.postMultipart('/f/general/new', [
        { name: 'title', value: 'Compost <b>bins</b>' },
        { name: 'body', value: '# Heading\n\nText' },
        { name: 'intent', value: 'preview' },
      ]);
      assert.equal(shown.statusCode, 200, shown.body);
      assert.match(preview(shown.body) ?? '', /<h1>Heading<\/h1>/);
      const page = await ui.get('/f/general/new');
      assert.match(page.body, /id="title" name="title" value="Compost &lt;b&gt;bins&lt;\/b&gt;"/);
      assert.equal(textarea(page.body, 'body'), '# Heading\n\nText');
      assert.equal(textarea((await ui.get('/f/other/new')).body, 'body'), '', 'another forum has its own draft');

      const discarded = await ui.postMultipart('/f/general/new', [
        { name: 'title', value: 'x' },
        { name: 'body', value: 'y' },
        { name: 'intent', value: 'discard' },
      ]);
      assert.equal(discarded.statusCode, 303);
      assert.equal(discarded.headers.location, '/f/general');
      assert.deepEqual(await drafts(bob.member.id), []);

      await ui.get('/f/general/new');
      await ui.postMultipart('/f/general/new', [
        { name: 'title', value: 'Compost' },
        { name: 'body', value: 'Draft' },
        { name: 'intent', value: 'preview' },
      ]);
      assert.equal((await drafts(bob.member.id)).length, 1);
      // An empty title is refused, and the form keeps what was written.
      const refused = await ui.postMultipart('/f/general/new', [
        { name: 'title', value: '   ' },
        { name: 'body', value: 'Body kept' },
      ]);
      assert.equal(refused.statusCode, 422);
      assert.equal(textarea(refused.body, 'body'), 'Body kept');
      const posted = await ui.postMultipart('/f/general/new', [
        { name: 'title', value: 'Compost' },
        { name: 'body', value: 'Bins?' },
        { name: 'intent', value: 'post' },
      ]);
      assert.equal(posted.statusCode, 303, posted.body);
      assert.match(String(posted.headers.location), /^\/t\//);
      assert.deepEqual(await drafts(bob.member.id), []);
    });

    it('uploads a file chosen in the form into the text, within the uploads checks', async () => {
      const ui = await as(bob);
      await ui.get(`/t/${topicId}`);
      const image: FormPart = {
        name: 'file',
        filename: 'My photo.png',
        content: ONE_PIXEL_PNG,
        contentType: 'image/png',
      };
      const attached = await ui.postMultipart(`/t/${topicId}/reply`, [
        { name: 'view', value: 'classic' },
        { name: 'body', value: 'Look:' },
        { name: 'intent', value: 'attach' },
        image,
      ]);
      assert.equal(attached.statusCode, 200, attached.body);
      const body = textarea(attached.body, 'reply-body')!;
      const url = /!\[My-photo\.png\]\((\/uploads\/[a-z0-9]+\/My-photo\.png)\)/.exec(body)?.[1];
      assert.ok(url, body);
      assert.ok(body.startsWith('Look:\n\n!['));
      assert.match(pageText(attached.body), /Uploaded My-photo\.png/);
      assert.match(preview(attached.body) ?? '', new RegExp(`<img src="${url}" alt="My-photo.png"`));
      const served = await t.app.inject({ url, headers: { host } });
      assert.equal(served.statusCode, 200);
      assert.equal(served.headers['content-type'], 'image/png');
      assert.match(String(served.headers['content-disposition']), /^inline/);

      // Anything but an image is served as a download.
      const notes = await ui.postMultipart(`/t/${topicId}/reply`, [
        { name: 'body', value: '' },
        { name: 'intent', value: 'attach' },
        { name: 'file', filename: 'notes.txt', content: 'plain notes', contentType: 'text/plain' },
      ]);
      const fileUrl = /\[notes\.txt\]\((\/uploads\/[a-z0-9]+\/notes\.txt)\)/.exec(
        textarea(notes.body, 'reply-body') ?? '',
      )?.[1];
      assert.ok(fileUrl, notes.body);
      const download = await t.app.inject({ url: fileUrl, headers: { host } });
      assert.equal(download.headers['content-disposition'], 'attachment; filename="notes.txt"');

      // A script named .png is refused: the form comes back with the text and a clear message.
      const before = (await t.app.deps.database.db.select().from(forumUploads)).length;
      const disguised = await ui.postMultipart(`/t/${topicId}/reply`, [
        { name: 'body', value: 'Kept text' },
        { name: 'intent', value: 'post' },
        { name: 'file', filename: 'cat.png', content: '<script>alert(1)</script>', contentType: 'image/png' },
      ]);
      assert.equal(disguised.statusCode, 415);
      assert.match(pageText(disguised.body), /cat\.png/);
      assert.equal(textarea(disguised.body, 'reply-body'), 'Kept text');
      assert.equal((await t.app.deps.database.db.select().from(forumUploads)).length, before, 'nothing stored');
      // A file over the limit: refused, and the form keeps the text.
      const huge = await ui.postMultipart(`/t/${topicId}/reply`, [
        { name: 'body', value: 'Still here' },
        { name: 'file', filename: 'big.txt', content: Buffer.alloc(MAX_UPLOAD_BYTES + 1, 0x61) },
        { name: 'intent', value: 'attach' },
      ]);
      assert.equal(huge.statusCode, 413);
      assert.match(pageText(huge.body), /&quot;big\.txt&quot; is larger than 8 MiB/);
      assert.equal(textarea(huge.body, 'reply-body'), 'Still here');
      assert.equal((await t.app.deps.database.db.select().from(forumUploads)).length, before, 'nothing stored');
      // Upload without a file chosen.
      const nothing = await ui.postMultipart(`/t/${topicId}/reply`, [
        { name: 'body', value: 'x' },
        { name: 'intent', value: 'attach' },
        { name: 'file', filename: '', content: '' },
      ]);
      assert.equal(nothing.statusCode, 400);
      assert.match(pageText(nothing.body), /Choose a file to upload first/);
    });

    it('edits a post in the composer: preview and upload without a draft, then save; only its author', async () => {
      const ui = await as(bob);
      const reply = await api(bob.token, 'POST', `/topics/${topicId}/posts`, { body: 'First _words_' });
      const postId = json<{ id: string }>(reply).id;
      const kept = await drafts(bob.member.id);
      const page = await ui.get(`/p/${postId}/edit`);
      assert.equal(page.statusCode, 200);
      assert.match(
        page.body,
        new RegExp(
          `<form class="stack wide composer" method="post" action="/p/${postId}/edit" enctype="multipart/form-data" \
data-composer><input type="hidden" name="_csrf"`,
        ),
        'the composer, keeping no draft',
      );
      assert.equal(textarea(page.body, 'body'), 'First _words_');
      assert.match(page.body, /<input type="file" id="body-file" name="file"/);

      const shown = await ui.postMultipart(`/p/${postId}/edit`, [
        { name: 'body', value: `Second **words** ${XSS}` },
        { name: 'intent', value: 'preview' },
      ]);
      assert.equal(shown.statusCode, 200, shown.body);
      assert.match(preview(shown.body) ?? '', /Second <strong>words<\/strong> &lt;script&gt;/);
      assert.equal(textarea(shown.body, 'body'), `Second **words** ${XSS}`);
      const image: FormPart = { name: 'file', filename: 'edit.png', content: ONE_PIXEL_PNG, contentType: 'image/png' };
      const attached = await ui.postMultipart(`/p/${postId}/edit`, [
        { name: 'body', value: 'Second **words**' },
        { name: 'intent', value: 'attach' },
        image,
      ]);
      assert.equal(attached.statusCode, 200, attached.body);
      const body = textarea(attached.body, 'body')!;
      assert.match(body, /^Second \*\*words\*\*\n\n!\[edit\.png\]\(\/uploads\/[a-z0-9]+\/edit\.png\)\n$/);
      assert.match(preview(attached.body) ?? '', /<img src="\/uploads\/[a-z0-9]+\/edit\.png" alt="edit.png"/);
      assert.deepEqual(await drafts(bob.member.id), kept, 'an edit keeps no draft');

      const saved = await ui.postMultipart(`/p/${postId}/edit`, [
        { name: 'body', value: body },
        { name: 'intent', value: 'post' },
      ]);
      assert.equal(saved.statusCode, 303, saved.body);
      assert.equal(saved.headers.location, `/t/${topicId}#p-${postId}`);
      const stored = json<Array<{ id: string; body_html: string; edited_at: string | null }>>(
        await api(bob.token, 'GET', `/topics/${topicId}/posts`),
      ).find((p) => p.id === postId)!;
      assert.match(stored.body_html, /<strong>words<\/strong>[\s\S]*<img src="\/uploads\/[a-z0-9]+\/edit\.png"/);
      assert.ok(stored.edited_at);
      // An empty body comes back with the message; another member may not edit at all.
      const empty = await ui.postMultipart(`/p/${postId}/edit`, [
        { name: 'body', value: '  ' },
        { name: 'intent', value: 'post' },
      ]);
      assert.equal(empty.statusCode, 422);
      const intruder = await as(alice);
      await intruder.get(`/t/${topicId}`);
      assert.equal(
        (
          await intruder.postMultipart(`/p/${postId}/edit`, [
            { name: 'body', value: 'Hijacked' },
            { name: 'intent', value: 'preview' },
          ])
        ).statusCode,
        403,
      );
      assert.equal(
        (await intruder.postMultipart(`/p/${postId}/edit`, [{ name: 'body', value: 'Hijacked' }, image])).statusCode,
        403,
        'no upload through a post one may not edit',
      );
      assert.equal(
        (await ui.postMultipart(`/p/${postId}/edit`, [{ name: 'body', value: 'forged' }], { csrf: false })).statusCode,
        403,
      );
    });

    it('refuses every composer post without its CSRF token, storing nothing', async () => {
      const ui = await as(bob);
      await ui.get(`/t/${topicId}`);
      const uploads = (await t.app.deps.database.db.select().from(forumUploads)).length;
      const kept = await drafts(bob.member.id);
      const image: FormPart = { name: 'file', filename: 'a.png', content: ONE_PIXEL_PNG, contentType: 'image/png' };
      for (const [url, parts] of [
        [`/t/${topicId}/reply`, [{ name: 'body', value: 'forged' }, { name: 'intent', value: 'preview' }, image]],
        [
          '/f/general/new',
          [
            { name: 'title', value: 't' },
            { name: 'body', value: 'forged' },
          ],
        ],
        ['/compose/upload', [image]],
      ] as Array<[string, FormPart[]]>) {
        assert.equal((await ui.postMultipart(url, parts, { csrf: false })).statusCode, 403, url);
      }
      assert.equal(
        (await ui.post('/compose/preview', { body: 'x', draft: `topic-${topicId}` }, { csrf: false })).statusCode,
        403,
      );
      assert.equal((await ui.post('/compose/preview', { body: 'x' }, { csrf: 'forged-token' })).statusCode, 403);
      assert.equal((await ui.post('/compose/preview', { body: 'x' }, { origin: 'https://evil.test' })).statusCode, 403);
      assert.equal((await t.app.deps.database.db.select().from(forumUploads)).length, uploads);
      assert.deepEqual(await drafts(bob.member.id), kept);
    });

    it("serves the script's endpoints: live preview with the draft, mention suggestions and uploads, to members only", async () => {
      const ui = await as(bob);
      await ui.get(`/t/${topicId}`);
      const live = await ui.post('/compose/preview', { body: `*live* ${XSS}`, title: '', draft: `topic-${topicId}` });
      assert.equal(live.statusCode, 200);
      assert.match(String(live.headers['content-type']), /^text\/html/);
      assert.equal(
        live.body,
        '<p><em>live</em> &lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;</p>',
      );
      assert.equal((await drafts(bob.member.id))[0]?.body, `*live* ${XSS}`);
      // A draft only for what the member may see; a malformed key is refused.
      assert.equal((await ui.post('/compose/preview', { body: 'x', draft: 'forum-staffroom' })).statusCode, 404);
      assert.equal((await ui.post('/compose/preview', { body: 'x', draft: 'nonsense' })).statusCode, 400);
      assert.equal((await drafts(bob.member.id)).length, 1);

      const names = await ui.get('/compose/mentions?q=ALI');
      assert.equal(names.statusCode, 200);
      assert.deepEqual(names.json(), ['alice', 'alicia'], 'any case, banned members left out');
      assert.deepEqual((await ui.get('/compose/mentions?q=al%25')).statusCode, 400, 'names only');
      assert.deepEqual((await ui.get('/compose/mentions?q=zz')).json(), []);

      await ui.get(`/t/${topicId}`);
      const uploaded = await ui.postMultipart('/compose/upload', [
        { name: 'file', filename: 'dot.png', content: ONE_PIXEL_PNG, contentType: 'image/png' },
      ]);
      assert.equal(uploaded.statusCode, 201, uploaded.body);
      assert.match(json<{ markdown: string }>(uploaded).markdown, /^!\[dot\.png\]\(\/uploads\/[a-z0-9]+\/dot\.png\)$/);

      const script = await ui.get('/assets/forum.js');
      assert.equal(script.statusCode, 200);
      assert.match(String(script.headers['content-type']), /^text\/javascript/);
      assert.match((await ui.get('/')).body, /<script src="\/assets\/forum\.js" defer><\/script>/);

      const guest = new UiClient(t.app, host);
      assert.doesNotMatch((await guest.get('/')).body, /<script/);
      await guest.get('/login');
      assert.equal((await guest.get('/compose/mentions?q=al')).statusCode, 303, 'guests are sent to log in');
      assert.equal((await guest.post('/compose/preview', { body: 'x' })).statusCode, 401);
    });

    it('shows whom a reply answers in the classic view and continues deep threads on a page of their own', async () => {
      const chain = [openingId];
      for (let depth = 1; depth <= THREAD_DEPTH_PER_PAGE + 1; depth++) {
        const author = depth % 2 === 1 ? bob : alice;
        const created = await api(author.token, 'POST', `/topics/${topicId}/posts`, {
          body: `Level ${depth} answer`,
          parent_id: chain.at(-1),
        });
        assert.equal(created.statusCode, 201, created.body);
        chain.push(json<{ id: string }>(created).id);
      }
      const ui = await as(bob);
      const classic = await ui.get(`/t/${topicId}`);
      assert.match(classic.body, new RegExp(`<a class="meta in-reply" href="#p-${chain[0]}">in reply to @alice</a>`));
      assert.match(classic.body, new RegExp(`<a class="meta in-reply" href="#p-${chain[1]}">in reply to @bob</a>`));
      // Each post offers a reply to it; the reply page names the post and posting answers it.
      assert.match(
        classic.body,
        new RegExp(`href="/t/${topicId}/reply\\?to=${chain[2]}" aria-label="Reply to alice">Reply</a>`),
      );
      const replyPage = await ui.get(`/t/${topicId}/reply?to=${chain[2]}`);
      assert.match(pageText(replyPage.body), /In reply to @alice Level 2 answer/);
      assert.match(replyPage.body, new RegExp(`<input type="hidden" name="parent_id" value="${chain[2]}">`));
      const answered = await ui.postMultipart(`/t/${topicId}/reply`, [
        { name: 'view', value: 'classic' },
        { name: 'parent_id', value: chain[2]! },
        { name: 'body', value: 'Side answer' },
      ]);
      assert.equal(answered.statusCode, 303, answered.body);
      const sideId = /#p-(\w+)$/.exec(String(answered.headers.location))![1]!;
      const later = await ui.get(`/t/${topicId}?page=last`);
      assert.match(
        later.body,
        new RegExp(`id="p-${sideId}"[\\s\\S]*?<a class="meta in-reply" href="#p-${chain[2]}">in reply to @alice</a>`),
      );
      assert.equal((await ui.get(`/t/${topicId}/reply?to=${openingId}x`)).statusCode, 404);

      // Threaded: THREAD_DEPTH_PER_PAGE levels, then a link that continues the thread.
      const threaded = await ui.get(`/t/${topicId}?view=threaded`);
      const deepest = chain[THREAD_DEPTH_PER_PAGE - 1]!;
      assert.match(threaded.body, new RegExp(`id="p-${deepest}"`));
      assert.doesNotMatch(threaded.body, new RegExp(`id="p-${chain[THREAD_DEPTH_PER_PAGE]}"`));
      const more = chain.length - THREAD_DEPTH_PER_PAGE;
      assert.match(pageText(threaded.body), new RegExp(`Continue this thread \\(${more} more replies\\)`));
      const link = new RegExp(`href="(/t/${topicId}\\?view=threaded&amp;from=${deepest})"`).exec(threaded.body)?.[1];
      assert.ok(link);
      const continued = await ui.get(link.replace(/&amp;/g, '&'));
      assert.equal(continued.statusCode, 200);
      for (const id of chain.slice(THREAD_DEPTH_PER_PAGE - 1)) assert.match(continued.body, new RegExp(`id="p-${id}"`));
      assert.doesNotMatch(continued.body, new RegExp(`id="p-${openingId}"`));
      assert.match(continued.body, /← The whole topic/);
      assert.equal((await ui.get(`/t/${topicId}?view=threaded&from=nope`)).statusCode, 404);
      // A member may not reach posts of a topic it cannot see through `from`.
      const hidden = await api(admin, 'POST', '/topics', { forum_id: 'staffroom', title: 'Plans', body: 'Secret' });
      const hiddenTopic = json<{ id: string; first_post: { id: string } }>(hidden);
      assert.equal(
        (await ui.get(`/t/${hiddenTopic.id}?view=threaded&from=${hiddenTopic.first_post.id}`)).statusCode,
        404,
      );
      assert.equal((await ui.get(`/t/${topicId}?view=threaded&from=${hiddenTopic.first_post.id}`)).statusCode, 404);
    });
  });
}
