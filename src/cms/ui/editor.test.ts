// The CMS editor in the admin area over HTTP, on both databases: admins only, a content type made in
// the type editor, an entry written through the generated form with a Markdown preview, drafts and
// scheduled publishing as the Content API then serves them, stale edits refused, media uploaded with
// its CSRF token and offered by the picker.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { cmsApi, mintApiKey } from '../../../test/factories/cms.js';
import { addMember, communityHost, makeCommunity } from '../../../test/factories/forum.js';
import { buildTestApp, json, signIn, type TestApp } from '../../../test/helpers/app.js';
import { testDatabases } from '../../../test/helpers/databases.js';
import { pageText, UiClient } from '../../../test/helpers/forum-ui.js';
import { eventually } from '../../../test/helpers/eventually.js';
import { solidPng } from '../../../test/helpers/images.js';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

for (const database of testDatabases) {
  describe(`CMS editor [${database}]`, () => {
    let t: TestApp;
    let admin: UiClient;
    let read: string;
    let write: string;
    const host = communityHost('club');

    before(async () => {
      t = await buildTestApp({ database, env: { BLUME_RATE_LOGIN_PER_MINUTE: '1000' } });
      const owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'club');
      read = await mintApiKey(t.app, owner, 'club', ['cms-read']);
      write = await mintApiKey(t.app, owner, 'club', ['cms-write']);
      admin = new UiClient(t.app, host);
      assert.equal((await admin.login('owner', owner.password)).statusCode, 303);
    });
    after(() => t.close());

    const published = async (type: string) =>
      json<Array<{ slug: string }>>(await cmsApi(t.app, 'club', read, { method: 'GET', path: `/entries/${type}` })).map(
        (e) => e.slug,
      );

    it('is for admins: guests log in first, members get 403', async () => {
      const guest = new UiClient(t.app, host);
      assert.equal((await guest.get('/admin/content')).headers.location, '/login?next=%2Fadmin%2Fcontent');
      const alice = await addMember(t.app, 'club', 'alice');
      const member = new UiClient(t.app, host);
      await member.login('alice', alice.password);
      for (const path of ['/admin/content', '/admin/content/articles', '/admin/content/articles/new', '/admin/media'])
        assert.equal((await member.get(path)).statusCode, 403, path);
      await member.get('/');
      assert.equal((await member.post('/admin/content/articles/new', { data_title: 'Nope' })).statusCode, 403);
      const page = await admin.get('/admin/content');
      assert.equal(page.statusCode, 200);
      assert.match(pageText(page.body), /Articles articles 8 Built-in.*Forum topics topics/);
    });

    it('makes a content type in the type editor and refuses bad fields with the reason', async () => {
      const bad = await admin.submit('/admin/content', '/admin/content-types', {
        name: 'Events',
        slug: 'events',
        rows: '3',
        f0_name: 'Bad Name',
        f0_type: 'text',
      });
      assert.equal(bad.statusCode, 422);
      assert.match(bad.body, /id="f0_name-error"/);
      const fields = {
        f0_name: 'title',
        f0_type: 'text',
        f0_required: 'on',
        f1_name: 'body',
        f1_type: 'markdown',
        f2_name: 'kind',
        f2_type: 'enum',
        f2_values: 'talk\nparty',
        f3_name: 'poster',
        f3_type: 'media',
      };
      const made = await admin.post('/admin/content-types', { name: 'Events', slug: 'events', rows: '5', ...fields });
      assert.equal(made.statusCode, 303, made.body);
      assert.equal(made.headers.location, '/admin/content/events');
      const editor = await admin.get('/admin/content-types/events');
      assert.match(editor.body, /value="kind"/);
      assert.equal(
        (
          await admin.post('/admin/content-types/events', {
            name: 'Events',
            rows: '5',
            ...fields,
            f0_max_length: '80',
            f4_name: 'capacity',
            f4_type: 'number',
            f4_min: '1',
            f4_max: '500',
            f4_integer: 'on',
            f4_max_length: '9',
          })
        ).statusCode,
        303,
      );
      assert.match((await admin.get('/admin/content/events/new')).body, /name="data_capacity"/);
      const type = json<{ fields: Array<{ name: string; options: object }> }>(
        await cmsApi(t.app, 'club', read, { method: 'GET', path: '/content-types/events' }),
      );
      assert.deepEqual(
        Object.fromEntries(type.fields.map((f) => [f.name, f.options])),
        {
          title: { max_length: 80 },
          body: {},
          kind: { values: ['talk', 'party'] },
          poster: {},
          capacity: { min: 1, max: 500, integer: true },
        },
        "choices and rules come from fields; a rule of another type (a number's length) is left out",
      );
      const shown = (await admin.get('/admin/content-types/events')).body;
      assert.match(shown, /<textarea id="f2_values" name="f2_values"[^>]*>talk\nparty<\/textarea>/);
      assert.match(shown, /id="f4_max" name="f4_max" value="500"/);
      const refused = await admin.post('/admin/content-types/events', {
        name: 'Events',
        rows: '5',
        ...fields,
        f2_values: '',
        f4_name: 'capacity',
        f4_type: 'number',
        f4_min: 'lots',
      });
      assert.equal(refused.statusCode, 422);
      assert.match(refused.body, /id="f2_values-error"[^>]*>Enter the choices, one per line\./);
      assert.match(refused.body, /id="f4_min-error"[^>]*>Enter a number\./);
    });

    it('previews Markdown through the server, saves drafts, publishes and schedules as the API serves them', async () => {
      const form = await admin.get('/admin/content/events/new');
      assert.match(form.body, /<label for="field-title">Title \(required\)<\/label>/);
      assert.match(
        pageText(form.body),
        /Kind None Talk Party /,
        'the enum is labelled choices with "None" (it is not required)',
      );
      assert.match(form.body, /<input type="radio" id="field-kind-0" name="data_kind" value="" checked>/);
      const preview = await admin.post('/admin/content/events/new', {
        action: 'preview',
        data_title: 'Launch',
        data_body: '**Big** day <script>alert(1)</script>',
        data_kind: 'party',
        status: 'draft',
      });
      assert.equal(preview.statusCode, 200);
      assert.match(preview.body, /<strong>Big<\/strong> day/);
      assert.doesNotMatch(preview.body, /<script>alert/);
      assert.match(preview.body, /value="Launch"/, 'the typed values stay in the form');
      assert.match(preview.body, /name="data_kind" value="party" checked> Party/, 'the chosen enum value stays chosen');

      const missing = await admin.post('/admin/content/events/new', {
        action: 'save',
        data_title: '',
        status: 'draft',
      });
      assert.equal(missing.statusCode, 422);
      assert.match(pageText(missing.body), /Title is required/);

      const draft = await admin.post('/admin/content/events/new', {
        action: 'save',
        data_title: 'Launch',
        data_body: 'Big day',
        data_kind: 'party',
        slug: 'launch',
        status: 'draft',
      });
      assert.equal(draft.statusCode, 303, draft.body);
      const editUrl = draft.headers.location!.replace('?saved=1', '');
      assert.deepEqual(await published('events'), []);
      const list = await admin.get('/admin/content/events?status=draft');
      assert.match(pageText(list.body), /Launch Party Draft/);

      const edit = await admin.get(editUrl);
      const version = /name="version" value="([^"]+)"/.exec(edit.body)![1]!.replace(/&quot;/g, '"');
      const later = await admin.post(editUrl, {
        action: 'save',
        version,
        data_title: 'Launch',
        data_kind: 'party',
        slug: 'launch',
        status: 'published',
        published_at: '2999-01-01T10:00',
      });
      assert.equal(later.statusCode, 303, later.body);
      assert.deepEqual(await published('events'), [], 'a scheduled entry is not served before its time');
      assert.match(pageText((await admin.get('/admin/content/events')).body), /Launch Party Scheduled/);

      const stale = await admin.post(editUrl, {
        action: 'save',
        version,
        data_title: 'Stale',
        slug: 'launch',
        status: 'published',
      });
      assert.equal(stale.statusCode, 412);
      assert.match(pageText(stale.body), /Someone changed this entry/);

      // Its time comes by SQL, which no node hears of: a trigger moved the type's cache epoch, and
      // the API serves it once the node's poll found that (decision 0111).
      await t.app.deps.database.db.execute(
        sql`update cms_entries set published_at = now() - interval '1 minute' where slug = 'launch'`,
      );
      await eventually(
        'the entry published by SQL to be served',
        async () => ((await published('events')).includes('launch') ? true : undefined),
        2_000,
      );
    });

    it("uploads media with the form's CSRF token and offers it in the picker", async () => {
      const page = await admin.get('/admin/media');
      const boundary = '----blumeeditor';
      const upload = (csrf: string, content: Buffer, filename: string) =>
        t.app.inject({
          method: 'POST',
          url: '/admin/media',
          headers: {
            host,
            origin: `http://${host}`,
            'content-type': `multipart/form-data; boundary=${boundary}`,
            cookie: [...admin.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
          },
          payload: Buffer.concat([
            Buffer.from(
              `--${boundary}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${csrf}\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: image/png\r\n\r\n`,
            ),
            content,
            Buffer.from(`\r\n--${boundary}--\r\n`),
          ]),
        });
      const token = /name="_csrf" value="([^"]+)"/.exec(page.body)![1]!;
      assert.equal((await upload('forged', PNG, 'poster.png')).statusCode, 403);
      const refused = await upload(token, Buffer.from('<script>x</script>'), 'poster.png');
      assert.equal(refused.statusCode, 415);
      assert.match(pageText(refused.body), /are not a/);
      const ok = await upload(token, PNG, 'poster.png');
      assert.equal(ok.statusCode, 303, ok.body);
      const form = await admin.get('/admin/content/events/new');
      const option = /<option value="(\/media\/[^"]+)" data-type="image\/png"[^>]*>poster.png<\/option>/.exec(
        form.body,
      );
      assert.ok(option, 'the picker offers the upload');
      const saved = await admin.post('/admin/content/events/new', {
        action: 'save',
        data_title: 'With poster',
        data_poster: option[1]!,
        status: 'published',
      });
      assert.equal(saved.statusCode, 303, saved.body);
    });

    it('lets an admin make a member a content editor, who writes entries and media but not the model, until removed', async () => {
      const bob = await addMember(t.app, 'club', 'bob');
      const member = new UiClient(t.app, host);
      await member.login('bob', bob.password);
      assert.equal((await member.get('/admin/content')).statusCode, 403);

      await admin.get('/admin/content');
      const unknown = await admin.post('/admin/content-editors', { username: 'nobody' });
      assert.equal(unknown.statusCode, 422);
      assert.match(pageText(unknown.body), /nobody is not a member of this community/);
      assert.equal(
        (await admin.post('/admin/content-editors', { username: 'owner' })).statusCode,
        422,
        'an admin edits content already',
      );
      const added = await admin.post('/admin/content-editors', { username: 'Bob' });
      assert.equal(added.headers.location, '/admin/content?editor=added');
      assert.match(pageText((await admin.get('/admin/content')).body), /Content editors.*bob since/);

      const home = await member.get('/');
      assert.match(home.body, /<li><a href="\/admin\/content">Content<\/a><\/li>/, 'the header links to the editor');
      const content = await member.get('/admin/content');
      assert.equal(content.statusCode, 200);
      assert.doesNotMatch(
        content.body,
        /New content type|Edit type|Content editors|href="\/admin\/members"/,
        'the model and the rest of /admin stay with admins',
      );
      for (const path of [
        '/admin',
        '/admin/members',
        '/admin/settings',
        '/admin/structure',
        '/admin/content-types/events',
      ])
        assert.equal((await member.get(path)).statusCode, 403, path);
      await member.get('/admin/content');
      assert.equal(
        (
          await member.post('/admin/content-types', {
            name: 'Mine',
            slug: 'mine',
            rows: '1',
            f0_name: 'title',
            f0_type: 'text',
          })
        ).statusCode,
        403,
      );
      assert.equal((await member.post('/admin/content-editors', { username: 'alice' })).statusCode, 403);

      await member.get('/admin/content/events/new');
      const written = await member.post('/admin/content/events/new', {
        action: 'save',
        data_title: 'By bob',
        slug: 'by-bob',
        status: 'published',
      });
      assert.equal(written.statusCode, 303, written.body);
      assert.ok((await published('events')).includes('by-bob'));
      assert.equal((await member.get('/admin/media')).statusCode, 200);

      await admin.get('/admin/content');
      const removed = await admin.post(`/admin/content-editors/${bob.member.id}/remove`, {});
      assert.equal(removed.headers.location, '/admin/content?editor=removed');
      assert.equal((await member.get('/admin/content')).statusCode, 403);
      assert.doesNotMatch((await member.get('/')).body, /href="\/admin\/content"/);
    });

    it('serves the live Markdown preview as the Preview button renders it, to editors, with the CSRF token', async () => {
      const form = await admin.get('/admin/content/events/new');
      assert.match(form.body, /<script src="\/assets\/cms-editor\.js" defer><\/script>/);
      assert.match(
        form.body,
        /role="toolbar" aria-label="Body: formatting" hidden>/,
        'the toolbar waits for the script',
      );
      const script = await admin.get('/assets/cms-editor.js');
      assert.equal(script.statusCode, 200);
      assert.match(String(script.headers['content-type']), /^text\/javascript/);
      const live = await admin.post('/admin/content/preview', { body: '**Big** day <script>alert(1)</script>' });
      assert.equal(live.statusCode, 200);
      assert.equal(live.headers['cache-control'], 'no-store');
      assert.match(live.body, /<strong>Big<\/strong> day/);
      assert.doesNotMatch(live.body, /<script>alert/);
      const roundTrip = await admin.post('/admin/content/events/new', {
        action: 'preview',
        data_title: 'Same',
        data_body: '**Big** day <script>alert(1)</script>',
        status: 'draft',
      });
      assert.ok(
        roundTrip.body.includes(
          `<div class="body" data-preview aria-labelledby="field-body-preview-label" role="region" aria-live="polite">${live.body}</div>`,
        ),
      );
      assert.equal((await admin.post('/admin/content/preview', { _csrf: 'forged', body: 'x' })).statusCode, 403);
      const carol = await addMember(t.app, 'club', 'carol');
      const member = new UiClient(t.app, host);
      await member.login('carol', carol.password);
      await member.get('/');
      assert.equal((await member.post('/admin/content/preview', { body: 'x' })).statusCode, 403);
    });

    it('picks a relation by searching the related entries by title, without script, and names the choice', async () => {
      const made = await admin.post('/admin/content-types', {
        name: 'Talks',
        slug: 'talks',
        rows: '2',
        f0_name: 'title',
        f0_type: 'text',
        f1_name: 'event',
        f1_type: 'relation',
        f1_relation: 'events',
      });
      assert.equal(made.statusCode, 303, made.body);
      const blank = await admin.get('/admin/content/talks/new');
      assert.match(blank.body, /<legend>Event<\/legend>/);
      assert.match(blank.body, /<input type="radio" id="field-event-none" name="data_event" value="" checked>/);
      assert.match(blank.body, /<input type="search" id="field-event-find" name="find_event" value=""/);

      const found = await admin.post('/admin/content/talks/new', {
        action: 'find',
        data_title: 'Keynote',
        find_event: 'AUNC',
        status: 'draft',
      });
      assert.equal(found.statusCode, 200);
      const launch = /<input type="radio" id="field-event-result-0" name="data_event" value="([a-z0-9]+)">/.exec(
        found.body,
      );
      assert.ok(launch, 'the search offers the entry titled Launch');
      assert.match(pageText(found.body), /None Launch [a-z0-9]+ Search Events by title/, 'only the match');
      assert.match(found.body, /value="Keynote"/, 'the typed values stay in the form');
      assert.match(found.body, /name="find_event" value="AUNC"/);
      const none = await admin.post('/admin/content/talks/new', { action: 'find', find_event: 'zzz', status: 'draft' });
      assert.match(pageText(none.body), /No Events entry has "zzz" in its title/);

      const missing = await admin.post('/admin/content/talks/new', {
        action: 'save',
        data_title: 'Keynote',
        data_event: 'no-such-id',
        status: 'draft',
      });
      assert.equal(missing.statusCode, 422);
      assert.match(pageText(missing.body), /no-such-id \(no such Events entry\)/);
      assert.match(pageText(missing.body), /Event no events entry &quot;no-such-id&quot;/);

      const saved = await admin.post('/admin/content/talks/new', {
        action: 'save',
        data_title: 'Keynote',
        data_event: launch[1]!,
        slug: 'keynote',
        status: 'published',
      });
      assert.equal(saved.statusCode, 303, saved.body);
      const edit = await admin.get(saved.headers.location!);
      assert.match(
        edit.body,
        new RegExp(
          `<input type="radio" id="field-event-chosen" name="data_event" value="${launch[1]}" checked> <span>Launch `,
        ),
        'the chosen entry is shown by its title',
      );
      const served = json<{ data: { event: string } }>(
        await cmsApi(t.app, 'club', read, { method: 'GET', path: '/entries/talks/keynote' }),
      );
      assert.equal(served.data.event, launch[1]);
    });

    it('picks a forum topic by searching its title, as the member sees the forum', async () => {
      const post = (path: string, payload: unknown) =>
        cmsApi(t.app, 'club', write, { method: 'POST', path, payload: payload as Record<string, unknown> });
      assert.equal((await post('/entries/forums', { slug: 'town', data: { name: 'Town' } })).statusCode, 201);
      const topic = json<{ id: string }>(
        await post('/entries/topics', { data: { forum_id: 'town', title: 'Harbour repairs', body: 'Who helps?' } }),
      ).id;
      const made = await admin.post('/admin/content-types', {
        name: 'Notes',
        slug: 'notes',
        rows: '2',
        f0_name: 'title',
        f0_type: 'text',
        f1_name: 'discussion',
        f1_type: 'relation',
        f1_relation: 'topics',
      });
      assert.equal(made.statusCode, 303, made.body);
      await admin.get('/admin/content/notes/new');
      const found = await admin.post('/admin/content/notes/new', {
        action: 'find',
        find_discussion: 'harbour',
        status: 'draft',
      });
      assert.equal(found.statusCode, 200, found.body);
      assert.match(
        found.body,
        new RegExp(`name="data_discussion" value="${topic}"> <span>Harbour repairs `),
        'the topic is offered by its title',
      );
    });

    it('edits a JSON list of strings as tags separated by commas, other JSON as JSON', async () => {
      const blank = await admin.get('/admin/content/articles/new');
      assert.match(blank.body, /<input type="text" id="field-tags" name="data_tags" value=""/);
      assert.match(pageText(blank.body), /Tags Tags separated by commas/);
      const saved = await admin.post('/admin/content/articles/new', {
        action: 'save',
        data_title: 'Tagged',
        data_tags: ' news,  harbour , ,',
        slug: 'tagged',
        status: 'published',
      });
      assert.equal(saved.statusCode, 303, saved.body);
      const served = async () =>
        json<{ data: { tags: unknown } }>(
          await cmsApi(t.app, 'club', read, { method: 'GET', path: '/entries/articles/tagged' }),
        ).data.tags;
      assert.deepEqual(await served(), ['news', 'harbour']);
      const edit = await admin.get(saved.headers.location!);
      assert.match(edit.body, /<input type="text" id="field-tags" name="data_tags" value="news, harbour"/);

      const version = /name="version" value="([^"]+)"/.exec(edit.body)![1]!.replace(/&quot;/g, '"');
      const asJson = await admin.post(saved.headers.location!.replace('?saved=1', ''), {
        action: 'save',
        version,
        data_title: 'Tagged',
        data_tags: '{"primary": "news"}',
        slug: 'tagged',
        status: 'published',
      });
      assert.equal(asJson.statusCode, 303, asJson.body);
      assert.deepEqual(await served(), { primary: 'news' });
      const again = await admin.get(asJson.headers.location!);
      assert.match(
        again.body,
        /<textarea id="field-tags" name="data_tags"[^>]*>\{&quot;primary&quot;:&quot;news&quot;\}</,
      );
      const broken = await admin.post('/admin/content/articles/new', {
        action: 'save',
        data_title: 'Broken',
        data_tags: '[1,',
        status: 'draft',
      });
      assert.equal(broken.statusCode, 422);
      assert.match(pageText(broken.body), /Enter valid JSON/);
    });

    it('lists entries with columns from the fields, sorted by a column and filtered by enum, number and date', async () => {
      const made = await admin.post('/admin/content-types', {
        name: 'Shows',
        slug: 'shows',
        rows: '4',
        f0_name: 'title',
        f0_type: 'text',
        f1_name: 'genre',
        f1_type: 'enum',
        f1_values: 'comedy, drama',
        f2_name: 'seats',
        f2_type: 'number',
        f3_name: 'opens_on',
        f3_type: 'datetime',
      });
      assert.equal(made.statusCode, 303, made.body);
      for (const [title, genre, seats, opens] of [
        ['Farce', 'comedy', '40', '2026-03-01T20:00'],
        ['Tragedy', 'drama', '300', '2026-04-15T19:30'],
        ['Sketches', 'comedy', '120', '2026-05-20T18:00'],
      ] as const) {
        const saved = await admin.post('/admin/content/shows/new', {
          action: 'save',
          data_title: title,
          data_genre: genre,
          data_seats: seats,
          data_opens_on: opens,
          status: 'published',
        });
        assert.equal(saved.statusCode, 303, saved.body);
      }
      const titles = async (query: string) => {
        const page = await admin.get(`/admin/content/shows?${query}`);
        assert.equal(page.statusCode, 200, page.body);
        return [...page.body.matchAll(/<td><a href="\/admin\/content\/shows\/[a-z0-9]+">([^<]+)<\/a>/g)].map(
          (m) => m[1],
        );
      };
      const all = await admin.get('/admin/content/shows');
      assert.match(
        pageText(all.body),
        /Entry Genre \(sort ascending\) Seats \(sort ascending\) Opens on \(sort ascending\) State/,
      );
      assert.match(pageText(all.body), /Sketches Comedy 120 /);
      assert.deepEqual(await titles('sort=seats'), ['Farce', 'Sketches', 'Tragedy']);
      assert.deepEqual(await titles('sort=-seats'), ['Tragedy', 'Sketches', 'Farce']);
      assert.match(
        (await admin.get('/admin/content/shows?sort=-seats')).body,
        /<th scope="col" aria-sort="descending">/,
      );
      assert.deepEqual(
        await titles('sort=nonsense'),
        ['Sketches', 'Tragedy', 'Farce'],
        'an unknown sort is the default',
      );
      assert.deepEqual(await titles('sort=title&filter%5Bgenre%5D%5Beq%5D=comedy'), ['Sketches', 'Farce']);
      assert.deepEqual(await titles('sort=seats&filter%5Bseats%5D%5Bgte%5D=100'), ['Sketches', 'Tragedy']);
      assert.deepEqual(await titles('filter%5Bseats%5D%5Bgte%5D=100&filter%5Bseats%5D%5Blte%5D=200'), ['Sketches']);
      assert.deepEqual(
        await titles('sort=opens_on&filter%5Bopens_on%5D%5Bgte%5D=2026-03-01&filter%5Bopens_on%5D%5Blte%5D=2026-04-15'),
        ['Farce', 'Tragedy'],
        'a date range covers whole days',
      );
      const kept = await admin.get('/admin/content/shows?filter%5Bgenre%5D%5Beq%5D=drama&sort=seats');
      assert.match(kept.body, /<option value="drama" selected>Drama<\/option>/);
      assert.match(
        kept.body,
        /href="\/admin\/content\/shows\?status=any&amp;q=&amp;sort=-seats&amp;filter%5Bgenre%5D%5Beq%5D=drama&amp;page=1"/,
      );
    });

    it('publishes, unpublishes and deletes the selected entries, deleting only after a confirmation', async () => {
      const servedShows = async () =>
        json<Array<{ data: { title: string } }>>(
          await cmsApi(t.app, 'club', read, { method: 'GET', path: '/entries/shows?sort=title' }),
        ).map((e) => e.data.title);
      const list = await admin.get('/admin/content/shows?sort=title');
      const ids = Object.fromEntries(
        [...list.body.matchAll(/name="pick_([a-z0-9]+)" id="pick-[a-z0-9]+" aria-label="Select ([^"]+)"/g)].map((m) => [
          m[2],
          m[1],
        ]),
      );
      assert.deepEqual(Object.keys(ids).sort(), ['Farce', 'Sketches', 'Tragedy']);
      const picks = (...titles: string[]) => Object.fromEntries(titles.map((title) => [`pick_${ids[title]}`, 'on']));
      assert.equal(
        (await admin.post('/admin/content/shows/bulk', { _csrf: 'forged', action: 'unpublish', ...picks('Farce') }))
          .statusCode,
        403,
      );

      const unpublished = await admin.post('/admin/content/shows/bulk', {
        action: 'unpublish',
        ...picks('Farce', 'Sketches'),
      });
      assert.equal(unpublished.headers.location, '/admin/content/shows?done=unpublished&count=2');
      assert.deepEqual(await servedShows(), ['Tragedy']);
      assert.match(pageText((await admin.get(unpublished.headers.location!)).body), /2 entries unpublished\./);
      const published = await admin.post('/admin/content/shows/bulk', { action: 'publish', ...picks('Farce') });
      assert.equal(published.statusCode, 303);
      assert.deepEqual(await servedShows(), ['Farce', 'Tragedy']);

      const asked = await admin.post('/admin/content/shows/bulk', { action: 'delete', ...picks('Farce', 'Tragedy') });
      assert.equal(asked.statusCode, 200);
      assert.match(pageText(asked.body), /Delete 2 Shows entries\?.*Farce.*Tragedy/s);
      assert.deepEqual(await servedShows(), ['Farce', 'Tragedy'], 'nothing is deleted before the confirmation');
      const deleted = await admin.post('/admin/content/shows/bulk', {
        action: 'delete',
        confirm: 'yes',
        ...picks('Farce', 'Tragedy'),
      });
      assert.equal(deleted.headers.location, '/admin/content/shows?done=deleted&count=2');
      assert.deepEqual(await servedShows(), []);
      assert.deepEqual(
        [...(await admin.get('/admin/content/shows')).body.matchAll(/aria-label="Select ([^"]+)"/g)].map((m) => m[1]),
        ['Sketches'],
      );
    });

    it('counts a list exactly up to 1,000 entries and says "About" past that (decision 0072)', async () => {
      assert.match(pageText((await admin.get('/admin/content/events')).body), / 3 entries /, 'exact');
      await t.app.deps.database.db.execute(sql`insert into cms_entries (id, site_id, type_id, status, data)
        select 'bulk' || n, e.site_id, e.type_id, 'draft', jsonb_build_object('title', 'Bulk ' || n)
        from generate_series(1, 1100) n, (select site_id, type_id from cms_entries where slug = 'launch') e`);
      await t.app.deps.database.db.execute(sql`analyze cms_entries`);
      const about = /About (\d+) entries/.exec(pageText((await admin.get('/admin/content/events')).body));
      assert.ok(about, 'an estimated total says so');
      assert.ok(Number(about[1]) > 1000, about[0]);
    });

    const uploadMedia = async (filename: string, content: Buffer, alt = '', headers: Record<string, string> = {}) => {
      await admin.get('/admin/media');
      return admin.postMultipart(
        '/admin/media',
        [
          { name: 'alt', value: alt },
          { name: 'file', filename, content, contentType: 'image/png' },
        ],
        { headers },
      );
    };
    const mediaIdOf = async (filename: string) => {
      const page = await admin.get(`/admin/media?q=${encodeURIComponent(filename)}`);
      return new RegExp(`<li class="media-card" id="media-([a-z0-9]+)">.*?>${filename}</a>`, 's').exec(page.body)![1]!;
    };

    it('shows media as a grid with size, pixel size and alt text, and edits the alt text', async () => {
      assert.equal((await uploadMedia('dusk.png', solidPng(40, 30, [90, 60, 160]), 'Harbour at dusk')).statusCode, 303);
      const page = await admin.get('/admin/media');
      assert.equal(page.statusCode, 200);
      const id = await mediaIdOf('dusk.png');
      assert.match(
        page.body,
        new RegExp(
          `<img src="/media/${id}" alt="Harbour at dusk" width="40" height="30" loading="lazy" decoding="async">`,
        ),
      );
      assert.match(pageText(page.body), /dusk\.png 1 KiB · 40 × 30 px · image\/png/);
      const forged = await admin.post(`/admin/media/${id}/alt`, { alt: 'Nope' }, { csrf: 'forged' });
      assert.equal(forged.statusCode, 403);
      const saved = await admin.post(`/admin/media/${id}/alt`, { alt: 'Boats at dusk' });
      assert.equal(saved.statusCode, 303);
      assert.equal(saved.headers.location, `/admin/media?done=alt#media-${id}`);
      const after = await admin.get('/admin/media?done=alt');
      assert.match(after.body, new RegExp(`id="alt-${id}" name="alt" value="Boats at dusk"`));
      assert.match(pageText(after.body), /Alt text saved\./);
      const found = await admin.get('/admin/media?q=boats');
      assert.match(pageText(found.body), /1 file with "boats"/, 'the search reads alt text too');
      const tooLong = await admin.post(`/admin/media/${id}/alt`, { alt: 'x'.repeat(501) });
      assert.equal(tooLong.statusCode, 400);
    });

    it('deletes media only after its page names the entries that use it, and asks first', async () => {
      assert.equal((await uploadMedia('flyer.png', solidPng(8, 8, [10, 10, 10]))).statusCode, 303);
      const id = await mediaIdOf('flyer.png');
      const used = await admin.post('/admin/content/events/new', {
        action: 'save',
        data_title: 'Flyer night',
        data_poster: `/media/${id}`,
        status: 'draft',
      });
      assert.equal(used.statusCode, 303, used.body);
      const entryPath = used.headers.location!.replace('?saved=1', '');
      const asked = await admin.get(`/admin/media/${id}/delete`);
      assert.equal(asked.statusCode, 200);
      assert.match(
        pageText(asked.body),
        /flyer\.png cannot be deleted: this entry uses it\. Change it first\. Flyer night Events/,
      );
      assert.match(asked.body, new RegExp(`<a href="${entryPath}">Flyer night</a>`));
      assert.doesNotMatch(asked.body, /<button type="submit" class="danger">/);
      const refused = await admin.post(`/admin/media/${id}/delete`, {});
      assert.equal(refused.statusCode, 409);
      assert.match(pageText(refused.body), /this entry uses it/);

      const changed = await admin.post(entryPath, {
        action: 'save',
        data_title: 'Flyer night',
        data_poster: '',
        status: 'draft',
        version: /name="version" value="([^"]+)"/.exec((await admin.get(entryPath)).body)![1]!.replace(/&quot;/g, '"'),
      });
      assert.equal(changed.statusCode, 303, changed.body);
      const free = await admin.get(`/admin/media/${id}/delete`);
      assert.match(pageText(free.body), /No entry uses flyer\.png\./);
      const gone = await admin.post(`/admin/media/${id}/delete`, {});
      assert.equal(gone.statusCode, 303);
      assert.equal(gone.headers.location, '/admin/media?done=deleted');
      assert.equal((await admin.get(`/media/${id}`)).statusCode, 404);
      assert.equal((await admin.get(`/admin/media/${id}/delete`)).statusCode, 404);
    });

    it("answers the Markdown editor's uploads as JSON: the media's url, or a problem", async () => {
      const asJson = { accept: 'application/json' };
      const created = await uploadMedia('pasted.png', PNG, '', asJson);
      assert.equal(created.statusCode, 201, created.body);
      const media = json<{ url: string; filename: string; width: number }>(created);
      assert.match(media.url, /^\/media\/[a-z0-9]+$/);
      assert.deepEqual([media.filename, media.width], ['pasted.png', 1]);
      const refused = await uploadMedia('pasted.png', Buffer.from('<script>x</script>'), '', asJson);
      assert.equal(refused.statusCode, 415);
      assert.match(String(refused.headers['content-type']), /^application\/problem\+json/);
      assert.equal(json(refused).code, 'media_type_refused');
      const forged = await admin.postMultipart(
        '/admin/media',
        [
          { name: '_csrf', value: 'forged' },
          { name: 'file', filename: 'x.png', content: PNG, contentType: 'image/png' },
        ],
        { csrf: false, headers: asJson },
      );
      assert.equal(forged.statusCode, 403);
    });

    it("keeps each editor's columns for a type's list, and filters by a related entry's title", async () => {
      const chosen = await admin.post('/admin/content/shows/columns', { col_opens_on: 'on', col_seats: 'on' });
      assert.equal(chosen.statusCode, 303, chosen.body);
      const list = pageText((await admin.get('/admin/content/shows')).body);
      assert.match(list, /Entry Seats \(sort ascending\) Opens on \(sort ascending\) State/);
      assert.doesNotMatch(list, /Genre \(sort/);
      assert.equal((await admin.post('/admin/content/shows/columns', { action: 'reset' })).statusCode, 303);
      assert.match(
        pageText((await admin.get('/admin/content/shows')).body),
        /Entry Genre \(sort ascending\) Seats \(sort ascending\) Opens on \(sort ascending\) State/,
      );

      const made = await admin.post('/admin/content-types', {
        name: 'Reviews',
        slug: 'reviews',
        rows: '2',
        f0_name: 'headline',
        f0_type: 'text',
        f1_name: 'show',
        f1_type: 'relation',
        f1_relation: 'shows',
      });
      assert.equal(made.statusCode, 303, made.body);
      const tragic = await admin.post('/admin/content/shows/new', {
        action: 'save',
        data_title: 'Tragic night',
        data_genre: 'drama',
        status: 'draft',
      });
      assert.equal(tragic.statusCode, 303, tragic.body);
      const shows = json<Array<{ id: string; data: { title: string } }>>(
        await cmsApi(t.app, 'club', write, { method: 'GET', path: '/entries/shows?status=any' }),
      );
      const showId = (title: string) => shows.find((s) => s.data.title === title)!.id;
      for (const [headline, show] of [
        ['Laughed all night', 'Sketches'],
        ['Cried twice', 'Tragic night'],
      ] as const) {
        const saved = await admin.post('/admin/content/reviews/new', {
          action: 'save',
          data_headline: headline,
          data_show: showId(show),
          status: 'draft',
        });
        assert.equal(saved.statusCode, 303, saved.body);
      }
      const titles = async (query: string) =>
        [
          ...(await admin.get(`/admin/content/reviews?${query}`)).body.matchAll(
            /<td><a href="\/admin\/content\/reviews\/[a-z0-9]+">([^<]+)<\/a>/g,
          ),
        ].map((m) => m[1]);
      assert.deepEqual(await titles('related%5Bshow%5D=sketch'), ['Laughed all night']);
      assert.deepEqual(await titles('related%5Bshow%5D=TRAG'), ['Cried twice']);
      const none = await admin.get('/admin/content/reviews?related%5Bshow%5D=opera');
      assert.match(pageText(none.body), /No Show entry has "opera" in its title\. 0 entries/);
      assert.match(none.body, /id="filter-show" name="related\[show\]" value="opera"/);
    });
  });
}
