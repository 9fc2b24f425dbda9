// The Content API end to end on both databases: a site owner defines a type, a cms-write key
// creates and publishes entries, a cms-read key lists them with filters, sort and pagination from
// another origin; type changes keep data; every bad input answers its code and changes nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cmsApi, mintApiKey } from '../../test/factories/cms.js';
import { makeCommunity } from '../../test/factories/forum.js';
import { buildTestApp, json, portal, signIn, type Actor, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';

type Entry = {
  id: string;
  type: string;
  slug: string | null;
  status: string;
  data: Record<string, unknown>;
  html?: Record<string, string>;
  published_at: string | null;
};

const BOOK_TYPE = {
  slug: 'books',
  name: 'Books',
  fields: [
    { name: 'title', type: 'text', required: true, options: { max_length: 100 } },
    { name: 'isbn', type: 'text', unique: true, options: { max_length: 20 } },
    { name: 'pages', type: 'number', options: { integer: true, min: 1 } },
    { name: 'genre', type: 'enum', options: { values: ['novel', 'poetry', 'essay'] } },
    { name: 'released', type: 'datetime' },
    { name: 'summary', type: 'markdown' },
    { name: 'in_print', type: 'boolean', default: true },
    { name: 'extra', type: 'json' },
  ],
};

for (const database of testDatabases) {
  describe(`Content API [${database}]`, () => {
    let t: TestApp;
    let owner: Actor;
    const keys: Record<'read' | 'write' | 'admin' | 'other' | 'free' | 'helpdesk', string> = {
      read: '',
      write: '',
      admin: '',
      other: '',
      free: '',
      helpdesk: '',
    };

    before(async () => {
      t = await buildTestApp({ database });
      owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'mag');
      await makeCommunity(t.app, owner, 'other');
      await makeCommunity(t.app, owner, 'cheap', 'free');
      keys.read = await mintApiKey(t.app, owner, 'mag', ['cms-read']);
      keys.write = await mintApiKey(t.app, owner, 'mag', ['cms-write']);
      keys.admin = await mintApiKey(t.app, owner, 'mag', ['admin']);
      keys.helpdesk = await mintApiKey(t.app, owner, 'mag', ['helpdesk-read']);
      keys.other = await mintApiKey(t.app, owner, 'other', ['admin']);
      keys.free = await mintApiKey(t.app, owner, 'cheap', ['admin']);
    });
    after(() => t.close());

    const api = (
      key: string | undefined,
      method: string,
      path: string,
      payload?: unknown,
      headers: Record<string, string> = {},
    ) =>
      cmsApi(t.app, 'mag', key, {
        method: method as 'GET',
        path,
        ...(payload !== undefined ? { payload: payload as object } : {}),
        headers,
      });

    it('lists the built-in types: articles and the forum views', async () => {
      const response = await api(keys.read, 'GET', '/content-types');
      assert.equal(response.statusCode, 200);
      const types = json<Array<{ slug: string; source: string }>>(response);
      assert.deepEqual(types.map((x) => `${x.slug}:${x.source}`).sort(), [
        'articles:builtin',
        'categories:forum',
        'forums:forum',
        'posts:forum',
        'topics:forum',
      ]);
    });

    it('creates a custom type as admin, refuses it to a write key', async () => {
      const refused = await api(keys.write, 'POST', '/content-types', BOOK_TYPE);
      assert.equal(refused.statusCode, 403);
      assert.equal(json(refused).code, 'scope_missing');
      const created = await api(keys.admin, 'POST', '/content-types', BOOK_TYPE);
      assert.equal(created.statusCode, 201, created.body);
      const type = json<{ slug: string; fields: Array<{ name: string; filters: string[] }> }>(created);
      assert.equal(type.slug, 'books');
      assert.deepEqual(type.fields.find((f) => f.name === 'pages')!.filters, [
        'eq',
        'ne',
        'lt',
        'lte',
        'gt',
        'gte',
        'in',
      ]);
      assert.equal((await api(keys.admin, 'POST', '/content-types', BOOK_TYPE)).json().code, 'content_type_exists');
      assert.equal((await api(keys.admin, 'POST', '/content-types', { ...BOOK_TYPE, slug: 'topics' })).statusCode, 409);
    });

    const ids: Record<string, string> = {};
    it('creates and publishes entries with a write key; read keys see only live ones', async () => {
      const books = [
        {
          slug: 'dune',
          status: 'published',
          data: {
            title: 'Dune',
            isbn: '111',
            pages: 412,
            genre: 'novel',
            released: '1965-08-01T00:00:00Z',
            summary: 'Sand *and* <script>alert(1)</script>spice',
          },
        },
        {
          slug: 'odes',
          status: 'published',
          data: { title: 'Odes', isbn: '222', pages: 90, genre: 'poetry', released: '1819-05-01T00:00:00+01:00' },
        },
        {
          slug: 'essays',
          status: 'published',
          data: {
            title: 'Essays',
            isbn: '333',
            pages: 300,
            genre: 'essay',
            released: '1580-03-01T00:00:00Z',
            extra: { translated: true },
          },
        },
        {
          slug: 'secret-draft',
          status: 'draft',
          data: { title: 'Draftmarker book', isbn: '444', pages: 10, genre: 'novel' },
        },
        {
          slug: 'future',
          status: 'published',
          published_at: '2999-01-01T00:00:00Z',
          data: { title: 'Scheduledmarker book', pages: 5, genre: 'novel' },
        },
      ];
      for (const book of books) {
        const response = await api(keys.write, 'POST', '/entries/books', book);
        assert.equal(response.statusCode, 201, response.body);
        assert.match(String(response.headers.etag), /^".+"$/);
        ids[book.slug] = json<Entry>(response).id;
      }
      const dune = json<Entry>(await api(keys.read, 'GET', '/entries/books/dune'));
      assert.equal(dune.data.in_print, true, 'the default is filled in');
      assert.equal(dune.data.released, '1965-08-01T00:00:00.000Z');
      // Rendered and sanitized as forum posts are: raw HTML is shown as text, never run.
      assert.equal(dune.html!.summary, '<p>Sand <em>and</em> &lt;script&gt;alert(1)&lt;/script&gt;spice</p>');
      assert.equal((await api(keys.read, 'GET', '/entries/books/secret-draft')).statusCode, 404);
      assert.equal((await api(keys.read, 'GET', '/entries/books/future')).statusCode, 404);
      assert.equal((await api(keys.read, 'GET', '/entries/books?status=any')).json().code, 'scope_missing');
      const all = await api(keys.write, 'GET', '/entries/books?status=any&page_size=100');
      assert.equal(json<Entry[]>(all).length, 5);
      const drafts = json<Entry[]>(await api(keys.write, 'GET', '/entries/books?status=draft'));
      assert.deepEqual(drafts.map((e) => e.slug).sort(), ['future', 'secret-draft']);
    });

    it('filters, sorts, selects fields and paginates, with CORS for an allowed origin', async () => {
      await portal(t.app, owner, {
        method: 'PUT',
        url: '/api/instances/mag/env',
        payload: { API_CORS_ORIGINS: 'https://shop.example' },
      });
      await portal(t.app, owner, { method: 'POST', url: '/api/instances/mag/restart' });
      const get = (query: string) =>
        api(keys.read, 'GET', `/entries/books?${query}`, undefined, { origin: 'https://shop.example' });
      const page1 = await get('sort=-pages&page_size=2');
      assert.equal(page1.statusCode, 200, page1.body);
      assert.equal(page1.headers['access-control-allow-origin'], 'https://shop.example');
      assert.match(String(page1.headers['access-control-expose-headers']), /X-Pagination/);
      assert.deepEqual(
        json<Entry[]>(page1).map((e) => e.slug),
        ['dune', 'essays'],
      );
      assert.deepEqual(JSON.parse(String(page1.headers['x-pagination'])), {
        total: 3,
        total_pages: 2,
        first_page: 1,
        last_page: 2,
        page: 1,
        next_page: 2,
      });
      assert.match(String(page1.headers.link), /rel="next"/);
      const slugs = async (query: string) => json<Entry[]>(await get(query)).map((e) => e.slug);
      assert.deepEqual(await slugs('filter[pages][gt]=100&sort=pages'), ['essays', 'dune']);
      assert.deepEqual(await slugs('filter[genre]=poetry'), ['odes']);
      assert.deepEqual(await slugs('filter[genre][in]=poetry,essay&sort=title'), ['essays', 'odes']);
      assert.deepEqual(await slugs('filter[title][contains]=un'), ['dune']);
      assert.deepEqual(await slugs('filter[released][lt]=1800-01-01T00:00:00Z'), ['essays']);
      assert.deepEqual(await slugs('filter[genre][ne]=novel&sort=-released'), ['odes', 'essays']);
      assert.deepEqual(await slugs('q=spice'), ['dune']);
      const picked = json<Entry[]>(await get('fields=title&filter[slug]=dune'));
      assert.deepEqual(picked[0]!.data, { title: 'Dune' });
      assert.equal(picked[0]!.html, undefined);
      const cross = await api(keys.read, 'GET', '/entries/books', undefined, { origin: 'https://evil.example' });
      assert.equal(cross.headers['access-control-allow-origin'], undefined);
      // A server's request (no Origin) gets no CORS headers, and caches still key on Origin.
      const server = await api(keys.read, 'GET', '/entries/books');
      assert.equal(server.headers['access-control-allow-origin'], undefined);
      assert.match(String(server.headers.vary), /Origin/);
    });

    it('answers every bad input with its code and changes nothing', async () => {
      const before = json<Entry[]>(await api(keys.write, 'GET', '/entries/books?status=any&page_size=100'));
      const cases: Array<[string, string, string, unknown, number, string]> = [
        ['unknown type', 'POST', '/entries/nope', { data: {} }, 404, 'content_type_not_found'],
        ['unknown field', 'POST', '/entries/books', { data: { title: 'X', colour: 'red' } }, 422, 'unknown_field'],
        ['wrong type', 'POST', '/entries/books', { data: { title: 'X', pages: 'many' } }, 422, 'invalid_field_value'],
        ['missing required', 'POST', '/entries/books', { data: { pages: 3 } }, 422, 'invalid_field_value'],
        [
          'over-long string',
          'POST',
          '/entries/books',
          { data: { title: 'x'.repeat(101) } },
          422,
          'invalid_field_value',
        ],
        [
          'enum outside',
          'POST',
          '/entries/books',
          { data: { title: 'X', genre: 'comic' } },
          422,
          'invalid_field_value',
        ],
        ['duplicate slug', 'POST', '/entries/books', { slug: 'dune', data: { title: 'X' } }, 409, 'slug_taken'],
        ['duplicate unique', 'POST', '/entries/books', { data: { title: 'X', isbn: '111' } }, 409, 'unique_violation'],
        ['bad slug', 'POST', '/entries/books', { slug: 'Not A Slug', data: { title: 'X' } }, 400, 'validation_failed'],
        ['unknown filter field', 'GET', '/entries/books?filter[colour]=red', undefined, 400, 'invalid_filter'],
        ['unknown operator', 'GET', '/entries/books?filter[pages][like]=3', undefined, 400, 'invalid_filter'],
        ['operator the field lacks', 'GET', '/entries/books?filter[genre][gt]=a', undefined, 400, 'invalid_filter'],
        ['malformed filter', 'GET', '/entries/books?filter[pages=3', undefined, 400, 'invalid_filter'],
        [
          'number filter not a number',
          'GET',
          '/entries/books?filter[pages][gt]=lots',
          undefined,
          400,
          'invalid_filter',
        ],
        ['sort unknown', 'GET', '/entries/books?sort=colour', undefined, 400, 'invalid_filter'],
        ['sort unsortable', 'GET', '/entries/books?sort=summary', undefined, 400, 'invalid_filter'],
        ['fields unknown', 'GET', '/entries/books?fields=colour', undefined, 400, 'invalid_filter'],
        ['include non-relation', 'GET', '/entries/books?include=title', undefined, 400, 'invalid_filter'],
        ['unknown parameter', 'GET', '/entries/books?colour=red', undefined, 400, 'validation_failed'],
      ];
      for (const [name, method, path, payload, status, code] of cases) {
        const response = await api(keys.write, method, path, payload);
        assert.equal(response.statusCode, status, `${name}: ${response.body}`);
        assert.match(String(response.headers['content-type']), /application\/problem\+json/, name);
        assert.equal(json(response).code, code, name);
      }
      const afterwards = json<Entry[]>(await api(keys.write, 'GET', '/entries/books?status=any&page_size=100'));
      assert.deepEqual(afterwards, before);
    });

    it('refuses keys without the scope, of another site, of a free site, and no key', async () => {
      const write = await api(keys.read, 'POST', '/entries/books', { data: { title: 'X' } });
      assert.equal(write.statusCode, 403);
      assert.equal(json(write).code, 'scope_missing');
      const helpdesk = await api(keys.helpdesk, 'GET', '/entries/books');
      assert.equal(json(helpdesk).code, 'scope_missing');
      const other = await api(keys.other, 'GET', '/entries/books');
      assert.equal(other.statusCode, 401);
      assert.equal(json(other).code, 'invalid_token');
      assert.match(String(other.headers['www-authenticate']), /Bearer/);
      const none = await api(undefined, 'GET', '/entries/books');
      assert.equal(none.statusCode, 401);
      assert.equal(json(none).code, 'authentication_required');
      const free = await cmsApi(t.app, 'cheap', keys.free, { method: 'GET', path: '/entries/articles' });
      assert.equal(free.statusCode, 403);
      assert.equal(json(free).code, 'plan_required');
      const globals = await api(keys.write, 'GET', '/globals/api');
      assert.equal(json(globals).code, 'scope_missing');
    });

    it('updates with If-Match, 412 on a stale ETag, and deletes', async () => {
      const read = await api(keys.write, 'GET', '/entries/books/odes');
      const etag = String(read.headers.etag);
      const entry = json<Entry>(read);
      const changed = await api(
        keys.write,
        'PUT',
        `/entries/books/${entry.id}`,
        { status: 'published', data: { ...entry.data, pages: 95 } },
        { 'if-match': etag },
      );
      assert.equal(changed.statusCode, 200, changed.body);
      assert.notEqual(changed.headers.etag, etag);
      assert.equal(json<Entry>(changed).published_at, entry.published_at, 'republishing keeps the first publish time');
      const stale = await api(
        keys.write,
        'PUT',
        `/entries/books/${entry.id}`,
        { data: { ...entry.data, pages: 1 } },
        { 'if-match': etag },
      );
      assert.equal(stale.statusCode, 412);
      assert.equal(json(stale).code, 'precondition_failed');
      assert.equal(json<Entry>(await api(keys.read, 'GET', '/entries/books/odes')).data.pages, 95);
      const staleDelete = await api(keys.write, 'DELETE', '/entries/books/odes', undefined, { 'if-match': etag });
      assert.equal(staleDelete.statusCode, 412);
      const gone = await api(keys.write, 'DELETE', '/entries/books/secret-draft');
      assert.equal(gone.statusCode, 204);
      assert.equal((await api(keys.write, 'GET', '/entries/books/secret-draft?status=any')).statusCode, 404);
    });

    it('changes a type without losing data: removed fields are kept and come back; lossy changes are 409', async () => {
      const fields = BOOK_TYPE.fields.filter((f) => f.name !== 'extra');
      const removed = await api(keys.admin, 'PUT', '/content-types/books', { name: 'Books', fields });
      assert.equal(removed.statusCode, 200, removed.body);
      assert.deepEqual(
        json<{ removed_fields: Array<{ name: string }> }>(removed).removed_fields.map((f) => f.name),
        ['extra'],
      );
      const essays = json<Entry>(await api(keys.read, 'GET', '/entries/books/essays'));
      assert.equal(essays.data.extra, undefined);
      // A full replace of the data keeps the removed field's stored value.
      const put = await api(keys.write, 'PUT', `/entries/books/${essays.id}`, {
        data: { ...essays.data, title: 'Essays I' },
      });
      assert.equal(put.statusCode, 200, put.body);
      const back = await api(keys.admin, 'PUT', '/content-types/books', { name: 'Books', fields: BOOK_TYPE.fields });
      assert.deepEqual(json<{ removed_fields: unknown[] }>(back).removed_fields, []);
      assert.deepEqual(json<Entry>(await api(keys.read, 'GET', '/entries/books/essays')).data.extra, {
        translated: true,
      });

      const toNumber = BOOK_TYPE.fields.map((f) => (f.name === 'title' ? { name: 'title', type: 'number' } : f));
      const lossy = await api(keys.admin, 'PUT', '/content-types/books', { name: 'Books', fields: toNumber });
      assert.equal(lossy.statusCode, 409);
      assert.equal(json(lossy).code, 'lossy_type_change');
      const shorter = BOOK_TYPE.fields.map((f) => (f.name === 'title' ? { ...f, options: { max_length: 3 } } : f));
      assert.equal(
        json(await api(keys.admin, 'PUT', '/content-types/books', { name: 'Books', fields: shorter })).code,
        'lossy_type_change',
      );
      assert.equal(json<Entry>(await api(keys.read, 'GET', '/entries/books/dune')).data.title, 'Dune');

      // Lossless: numbers become text, and filters on the field now compare text.
      const pagesAsText = BOOK_TYPE.fields.map((f) => (f.name === 'pages' ? { name: 'pages', type: 'text' } : f));
      assert.equal(
        (await api(keys.admin, 'PUT', '/content-types/books', { name: 'Books', fields: pagesAsText })).statusCode,
        200,
      );
      assert.equal(json<Entry>(await api(keys.read, 'GET', '/entries/books/dune')).data.pages, '412');
      assert.deepEqual(
        json<Entry[]>(await api(keys.read, 'GET', '/entries/books?filter[pages]=412')).map((e) => e.slug),
        ['dune'],
      );
      assert.equal(
        (await api(keys.admin, 'PUT', '/content-types/books', { name: 'Books', fields: BOOK_TYPE.fields })).statusCode,
        200,
      );
      assert.equal(json<Entry>(await api(keys.read, 'GET', '/entries/books/dune')).data.pages, 412);

      assert.equal(
        json(await api(keys.admin, 'PUT', '/content-types/articles', { name: 'A', fields: [] })).code,
        'builtin_type',
      );
      assert.equal(json(await api(keys.admin, 'DELETE', '/content-types/articles')).code, 'builtin_type');
    });

    it('relates entries, refuses a relation to a missing entry, and includes one level', async () => {
      const created = await api(keys.admin, 'POST', '/content-types', {
        slug: 'reviews',
        name: 'Reviews',
        fields: [
          { name: 'book', type: 'relation', required: true, options: { type: 'books' } },
          { name: 'stars', type: 'number', options: { min: 1, max: 5 } },
        ],
      });
      assert.equal(created.statusCode, 201, created.body);
      const missing = await api(keys.write, 'POST', '/entries/reviews', {
        status: 'published',
        data: { book: 'nope', stars: 4 },
      });
      assert.equal(missing.statusCode, 422);
      assert.equal(json(missing).code, 'relation_not_found');
      assert.equal(
        (await api(keys.write, 'POST', '/entries/reviews', { status: 'published', data: { book: ids.dune, stars: 5 } }))
          .statusCode,
        201,
      );
      assert.equal(
        (
          await api(keys.write, 'POST', '/entries/reviews', {
            status: 'published',
            data: { book: ids.future, stars: 2 },
          })
        ).statusCode,
        201,
      );
      const listed = json<Entry[]>(await api(keys.read, 'GET', '/entries/reviews?include=book&sort=-stars'));
      assert.equal((listed[0]!.data.book as Entry).data.title, 'Dune');
      assert.equal(listed[1]!.data.book, null, 'a scheduled entry is not included for a read key');
      assert.doesNotMatch(JSON.stringify(listed), /Scheduledmarker/);
    });

    it('describes the custom types in the OpenAPI document for callers who may read the model', async () => {
      type Doc = {
        paths: Record<string, unknown>;
        components: { schemas: Record<string, { properties: { data: { properties: Record<string, unknown> } } }> };
      };
      const withKey = json<Doc>(await api(keys.read, 'GET', '/openapi.json'));
      assert.ok(withKey.paths['/api/cms/v1/entries/reviews/{id}']);
      assert.deepEqual(Object.keys(withKey.components.schemas['entry-reviews']!.properties.data.properties), [
        'book',
        'stars',
      ]);
      assert.ok(withKey.components.schemas['entry-articles']);
      const anonymous = json<Doc>(await api(undefined, 'GET', '/openapi.json'));
      assert.equal(anonymous.paths['/api/cms/v1/entries/reviews'], undefined);
      assert.equal(
        json<Doc>(await api(keys.other, 'GET', '/openapi.json')).paths['/api/cms/v1/entries/reviews'],
        undefined,
      );
    });

    it('reads a settings group as admin with secrets masked, and as the owner session', async () => {
      await portal(t.app, owner, {
        method: 'PUT',
        url: '/api/instances/mag/env',
        payload: { API_CORS_ORIGINS: 'https://shop.example', AI_API_KEY: 'sk-very-secret', AI_MODEL: 'm1' },
      });
      await portal(t.app, owner, { method: 'POST', url: '/api/instances/mag/restart' });
      const ai = await api(keys.admin, 'GET', '/globals/ai');
      assert.equal(ai.statusCode, 200, ai.body);
      assert.deepEqual(json(ai), { slug: 'ai', values: { AI_API_KEY: '********', AI_MODEL: 'm1' } });
      assert.equal(json(await api(keys.admin, 'GET', '/globals/nope')).code, 'global_not_found');
      const session = await cmsApi(t.app, 'mag', undefined, {
        method: 'GET',
        path: '/globals/api',
        headers: { cookie: owner.cookie },
      });
      assert.equal(session.statusCode, 200, session.body);
      const stranger = await signIn(t.app, 'stranger');
      const refused = await cmsApi(t.app, 'mag', undefined, {
        method: 'GET',
        path: '/globals/api',
        headers: { cookie: stranger.cookie },
      });
      assert.equal(refused.statusCode, 401);
    });

    it('deletes a custom type with its entries', async () => {
      assert.equal((await api(keys.admin, 'DELETE', '/content-types/reviews')).statusCode, 204);
      assert.equal(json(await api(keys.read, 'GET', '/entries/reviews')).code, 'content_type_not_found');
    });
  });
}
