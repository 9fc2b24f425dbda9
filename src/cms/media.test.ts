// Media of the Content API: uploads checked by their bytes, stored in the blob store, served by the
// site with headers that keep browsers from running them, referenced by `media` fields, and kept
// while entries reference them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { multipartBody } from '../../test/helpers/archives.js';
import { cmsApi, mintApiKey } from '../../test/factories/cms.js';
import { communityHost, makeCommunity } from '../../test/factories/forum.js';
import { buildTestApp, json, signIn, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { ONE_PIXEL_PNG, solidPng } from '../../test/helpers/images.js';
import { MAX_MEDIA_BYTES } from './media.js';

const PNG = ONE_PIXEL_PNG;

interface Media {
  id: string;
  url: string;
  filename: string;
  content_type: string;
  size: number;
  alt: string;
  width: number | null;
  height: number | null;
}

for (const database of testDatabases) {
  describe(`Content API media [${database}]`, () => {
    let t: TestApp;
    let write: string;
    let read: string;

    before(async () => {
      t = await buildTestApp({ database });
      const owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'blog');
      await makeCommunity(t.app, owner, 'other');
      write = await mintApiKey(t.app, owner, 'blog', ['cms-write']);
      read = await mintApiKey(t.app, owner, 'blog', ['cms-read']);
    });
    after(() => t.close());

    const upload = (key: string, content: Buffer, filename: string, type: string, field = 'file') => {
      const body = multipartBody(field, content, filename, type);
      return cmsApi(t.app, 'blog', key, {
        method: 'POST',
        path: '/media',
        payload: body.payload,
        headers: body.headers,
      });
    };
    const api = (key: string, method: string, path: string, payload?: object) =>
      cmsApi(t.app, 'blog', key, { method: method as 'GET', path, ...(payload ? { payload } : {}) });
    const serve = (site: string, path: string, headers: Record<string, string> = {}) =>
      t.app.inject({ method: 'GET', url: path, headers: { host: communityHost(site), ...headers } });

    it('stores an upload and serves its bytes at a stable URL on the site', async () => {
      const created = await upload(write, PNG, 'My Photo.png', 'image/png');
      assert.equal(created.statusCode, 201, created.body);
      const media = json<Media>(created);
      assert.deepEqual(
        [media.url, media.filename, media.content_type, media.size],
        [`/media/${media.id}`, 'My-Photo.png', 'image/png', PNG.length],
      );
      const served = await serve('blog', media.url);
      assert.equal(served.statusCode, 200);
      assert.deepEqual(served.rawPayload, PNG);
      assert.equal(served.headers['content-type'], 'image/png');
      assert.equal(served.headers['x-content-type-options'], 'nosniff');
      assert.match(String(served.headers['content-security-policy']), /sandbox/);
      assert.equal((await serve('blog', media.url, { 'if-none-match': String(served.headers.etag) })).statusCode, 304);
      assert.equal((await serve('other', media.url)).statusCode, 404, 'media belong to their site');
      assert.deepEqual(
        json<Media[]>(await api(read, 'GET', '/media')).map((m) => m.id),
        [media.id],
      );
    });

    it('refuses files whose bytes are not an accepted type, and changes nothing', async () => {
      const cases: Array<[string, Buffer, string, string, number, string]> = [
        [
          'a script named .png',
          Buffer.from('<script>alert(1)</script>'),
          'evil.png',
          'image/png',
          415,
          'media_type_refused',
        ],
        [
          'an SVG with script',
          Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
          'logo.svg',
          'image/svg+xml',
          415,
          'media_type_refused',
        ],
        ['a PNG named .jpg', PNG, 'photo.jpg', 'image/jpeg', 415, 'media_type_refused'],
        ['a PNG declared as HTML', PNG, 'photo.png', 'text/html', 415, 'media_type_refused'],
        [
          'a file over the limit',
          Buffer.concat([PNG, Buffer.alloc(MAX_MEDIA_BYTES)]),
          'big.png',
          'image/png',
          413,
          'media_too_large',
        ],
      ];
      for (const [name, content, filename, type, status, code] of cases) {
        const response = await upload(write, content, filename, type);
        assert.equal(response.statusCode, status, `${name}: ${response.body}`);
        assert.equal(json(response).code, code, name);
      }
      assert.equal(json(await upload(write, PNG, 'a.png', 'image/png', 'other')).code, 'media_missing');
      assert.equal((await upload(read, PNG, 'a.png', 'image/png')).statusCode, 403);
      assert.equal(json<Media[]>(await api(read, 'GET', '/media')).length, 1);
    });

    it('lets media fields reference uploads and keeps media entries still use', async () => {
      const media = json<Media>(await upload(write, PNG, 'cover.png', 'image/png'));
      const missing = await api(write, 'POST', '/entries/articles', {
        data: { title: 'Bad', cover_image: '/media/nope' },
      });
      assert.equal(missing.statusCode, 422);
      assert.equal(json(missing).code, 'invalid_field_value');
      const entry = json<{ id: string; data: { cover_image: string } }>(
        await api(write, 'POST', '/entries/articles', {
          slug: 'a',
          status: 'published',
          data: { title: 'A', cover_image: media.url },
        }),
      );
      assert.equal(entry.data.cover_image, media.url);
      const inUse = await api(write, 'DELETE', `/media/${media.id}`);
      assert.equal(inUse.statusCode, 409);
      assert.equal(json(inUse).code, 'media_in_use');
      assert.equal((await api(write, 'DELETE', `/entries/articles/${entry.id}`)).statusCode, 204);
      assert.equal((await serve('blog', media.url)).statusCode, 200, 'deleting the entry leaves the media');
      assert.equal((await api(write, 'DELETE', `/media/${media.id}`)).statusCode, 204);
      assert.equal((await serve('blog', media.url)).statusCode, 404);
      assert.equal(json(await api(read, 'GET', `/media/${media.id}`)).code, 'media_not_found');
    });

    it('reads the pixel size from the bytes and keeps alt text that PATCH changes', async () => {
      const image = json<Media>(await upload(write, solidPng(40, 30, [200, 80, 20]), 'sunset.png', 'image/png'));
      assert.deepEqual([image.width, image.height, image.alt], [40, 30, '']);
      const pdf = json<Media>(await upload(write, Buffer.from('%PDF-1.4\n%%EOF\n'), 'menu.pdf', 'application/pdf'));
      assert.deepEqual([pdf.width, pdf.height], [null, null], 'a PDF has no pixel size');

      const changed = await api(write, 'PATCH', `/media/${image.id}`, { alt: '  Sun over the harbour  ' });
      assert.equal(changed.statusCode, 200, changed.body);
      assert.equal(json<Media>(changed).alt, 'Sun over the harbour');
      assert.equal(json<Media>(await api(read, 'GET', `/media/${image.id}`)).alt, 'Sun over the harbour');
      const listed = json<Media[]>(await api(read, 'GET', '/media')).find((m) => m.id === image.id);
      assert.equal(listed?.alt, 'Sun over the harbour');

      const tooLong = await api(write, 'PATCH', `/media/${image.id}`, { alt: 'x'.repeat(501) });
      assert.equal(tooLong.statusCode, 400);
      assert.equal(json(tooLong).code, 'validation_failed');
      assert.equal((await api(write, 'PATCH', `/media/${image.id}`, { alt: 'a', size: 1 })).statusCode, 400);
      assert.equal((await api(read, 'PATCH', `/media/${image.id}`, { alt: 'no' })).statusCode, 403);
      assert.equal(json(await api(write, 'PATCH', '/media/nope', { alt: 'x' })).code, 'media_not_found');
      assert.equal(json<Media>(await api(read, 'GET', `/media/${image.id}`)).alt, 'Sun over the harbour');
      assert.equal(json<Media>(await api(write, 'PATCH', `/media/${image.id}`, { alt: '' })).alt, '');
    });
  });
}
