// Forum uploads: typed by their bytes, images stored without metadata or trailing payloads, served
// by the instance (images inline, files as downloads, never runnable), deleted by their uploader or
// moderators; bad files are refused with a clear code and store nothing.
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
} from '../../test/factories/forum.js';
import { multipartBody } from '../../test/helpers/archives.js';
import { buildTestApp, json, signIn, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { MAX_UPLOAD_BYTES } from './uploads.js';
import { pngChunk } from '../../test/helpers/images.js';

const SECRET = 'GPS 48.8584N 2.2945E';
const TRAILER = '<script>alert(1)</script>';

/** A 3x2 RGB PNG with a tEXt chunk holding SECRET, and a script after IEND. */
function photoPng(): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(3, 0);
  header.writeUInt32BE(2, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const rows = Buffer.concat([
    Buffer.from([0, 255, 0, 0, 0, 255, 0, 0, 0, 255]),
    Buffer.from([0, 9, 9, 9, 99, 99, 99, 199, 199, 199]),
  ]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('tEXt', Buffer.from(`Location\0${SECRET}`)),
    pngChunk('IDAT', deflateSync(rows)),
    pngChunk('IEND', Buffer.alloc(0)),
    Buffer.from(TRAILER),
  ]);
}

/** JPEG structure: SOI, an Exif APP1 holding SECRET, a 4x3 frame header, one scan, EOI, a script. */
function photoJpeg(): Buffer {
  const segment = (marker: number, data: Buffer): Buffer => {
    const head = Buffer.from([0xff, marker, 0, 0]);
    head.writeUInt16BE(data.length + 2, 2);
    return Buffer.concat([head, data]);
  };
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    segment(0xe0, Buffer.from('JFIF\0\x01\x01\0\0\x01\0\x01\0\0', 'latin1')),
    segment(0xe1, Buffer.from(`Exif\0\0${SECRET}`)),
    segment(0xc0, Buffer.from([8, 0, 3, 0, 4, 1, 1, 0x11, 0])),
    segment(0xda, Buffer.from([1, 1, 0, 0, 0x3f, 0])),
    Buffer.from([0x12, 0xff, 0x00, 0x34, 0xff, 0xd0, 0x56]),
    Buffer.from([0xff, 0xd9]),
    Buffer.from(TRAILER),
  ]);
}

interface Upload {
  id: string;
  url: string;
  markdown: string;
  filename: string;
  content_type: string;
  kind: string;
  size: number;
  width: number | null;
  height: number | null;
}

for (const database of testDatabases) {
  describe(`forum uploads [${database}]`, () => {
    let t: TestApp;
    let admin: string;
    let ann: ForumActor;
    let bob: ForumActor;

    before(async () => {
      t = await buildTestApp({ database, env: { BLUME_RATE_LOGIN_PER_MINUTE: '1000' } });
      const owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'files');
      admin = await mintForumToken(t.app, 'files', 'owner', owner.password);
      ann = await addMember(t.app, 'files', 'ann');
      bob = await addMember(t.app, 'files', 'bob');
      assert.equal(
        (
          await forumApi(t.app, 'files', admin, {
            method: 'POST',
            path: '/forums',
            payload: { name: 'General', slug: 'general' },
          })
        ).statusCode,
        201,
      );
    });
    after(() => t.close());

    const upload = (token: string | undefined, content: Buffer, filename: string, type: string, field = 'file') => {
      const body = multipartBody(field, content, filename, type);
      return forumApi(t.app, 'files', token, {
        method: 'POST',
        path: '/uploads',
        payload: body.payload,
        headers: body.headers,
      });
    };
    const serve = (site: string, path: string, headers: Record<string, string> = {}) =>
      t.app.inject({ method: 'GET', url: path, headers: { host: communityHost(site), ...headers } });

    it('stores images without their metadata or trailing bytes, and serves them inline and inert', async () => {
      for (const [bytes, name, type, size] of [
        [photoPng(), 'Holiday Photo.png', 'image/png', [3, 2]],
        [photoJpeg(), 'camera.jpg', 'image/jpeg', [4, 3]],
      ] as const) {
        const created = await upload(ann.token, bytes, name, type);
        assert.equal(created.statusCode, 201, created.body);
        const file = json<Upload>(created);
        assert.equal(file.kind, 'image');
        assert.equal(file.content_type, type);
        assert.deepEqual([file.width, file.height], size);
        assert.ok(file.size < bytes.length);
        assert.equal(file.url, `/uploads/${file.id}/${file.filename}`);
        assert.equal(file.markdown, `![${file.filename}](${file.url})`);
        const served = await serve('files', file.url);
        assert.equal(served.statusCode, 200);
        assert.equal(served.headers['content-type'], type);
        assert.equal(served.rawPayload.length, file.size);
        assert.ok(!served.rawPayload.includes(SECRET), 'the metadata is gone');
        assert.ok(!served.rawPayload.includes(TRAILER), 'the trailing script is gone');
        assert.equal(served.headers['x-content-type-options'], 'nosniff');
        assert.equal(served.headers['content-security-policy'], "default-src 'none'; sandbox");
        assert.match(String(served.headers['content-disposition']), /^inline; /);
        assert.equal(
          (await serve('files', file.url, { 'if-none-match': String(served.headers.etag) })).statusCode,
          304,
        );
        assert.equal(
          (await serve('files', `/uploads/${file.id}/other-name.png`)).statusCode,
          404,
          'the URL names the file exactly',
        );
        assert.equal((await serve('other', file.url)).statusCode, 404, 'uploads belong to their community');
      }
      assert.equal(
        json<Upload>(await upload(ann.token, photoPng(), 'Holiday Photo.png', 'image/png')).filename,
        'Holiday-Photo.png',
      );
    });

    it('serves other files as downloads, and a post shows an uploaded image', async () => {
      const pdf = json<Upload>(
        await upload(
          ann.token,
          Buffer.from('%PDF-1.7\n1 0 obj\n<<>>\nendobj\n%%EOF\n'),
          'notes.pdf',
          'application/pdf',
        ),
      );
      assert.deepEqual(
        [pdf.kind, pdf.content_type, pdf.markdown],
        ['file', 'application/pdf', `[notes.pdf](${pdf.url})`],
      );
      const served = await serve('files', pdf.url);
      assert.equal(served.headers['content-disposition'], 'attachment; filename="notes.pdf"');
      const text = json<Upload>(
        await upload(ann.token, Buffer.from('<h1>not html here</h1>\n'), 'log.txt', 'text/html'),
      );
      const page = await serve('files', text.url);
      assert.equal(page.headers['content-type'], 'text/plain; charset=utf-8');
      assert.match(String(page.headers['content-disposition']), /^attachment; /);

      const image = json<Upload>(await upload(ann.token, photoPng(), 'chart.png', 'image/png'));
      const topic = await forumApi(t.app, 'files', ann.token, {
        method: 'POST',
        path: '/topics',
        payload: { forum_id: 'general', title: 'With a chart', body: `Look:\n\n${image.markdown}` },
      });
      assert.equal(topic.statusCode, 201, topic.body);
      assert.match(JSON.stringify(json(topic)), new RegExp(`<img src=\\\\"${image.url}\\\\" alt=\\\\"chart.png\\\\"`));
    });

    it('refuses disguised, unsafe, malformed, oversized and missing files, and guests, storing nothing', async () => {
      const refusals: Array<[Buffer, string, string, number, string]> = [
        [Buffer.from('<script>alert(1)</script>'), 'cat.png', 'image/png', 415, 'upload_type_refused'],
        [
          Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
          'logo.svg',
          'image/svg+xml',
          415,
          'upload_type_refused',
        ],
        [photoPng(), 'photo.png', 'image/jpeg', 415, 'upload_type_refused'],
        [photoPng(), 'photo.jpg', 'image/png', 415, 'upload_type_refused'],
        [
          Buffer.concat([
            Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
            Buffer.from('<html><script>x</script></html>'),
          ]),
          'polyglot.png',
          'image/png',
          415,
          'upload_type_refused',
        ],
        [Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), 'tool.txt', 'text/plain', 415, 'upload_type_refused'],
        [Buffer.alloc(MAX_UPLOAD_BYTES + 1, 'a'), 'big.txt', 'text/plain', 413, 'upload_too_large'],
      ];
      for (const [bytes, name, type, status, code] of refusals) {
        const refused = await upload(ann.token, bytes, name, type);
        assert.equal(refused.statusCode, status, `${name}: ${refused.body}`);
        assert.equal(json(refused).code, code, name);
      }
      const noField = await upload(ann.token, photoPng(), 'x.png', 'image/png', 'attachment');
      assert.equal(noField.statusCode, 400);
      assert.equal(json(noField).code, 'upload_missing');
      assert.equal((await upload(undefined, photoPng(), 'x.png', 'image/png')).statusCode, 401);
      const rows = await t.app.deps.database.db.execute<{ n: number }>(
        "select count(*)::int as n from forum_uploads where filename in ('cat.png', 'logo.svg', 'photo.jpg', " +
          "'polyglot.png', 'tool.txt', 'big.txt')",
      );
      assert.equal(Number((rows as unknown as { rows: Array<{ n: number }> }).rows[0]!.n), 0);
    });

    it('lets the uploader or a moderator delete an upload, nobody else; it then answers 404', async () => {
      const mine = json<Upload>(await upload(ann.token, photoPng(), 'mine.png', 'image/png'));
      const other = await forumApi(t.app, 'files', bob.token, { method: 'DELETE', path: `/uploads/${mine.id}` });
      assert.equal(other.statusCode, 403);
      assert.equal(
        (await forumApi(t.app, 'files', ann.token, { method: 'DELETE', path: `/uploads/${mine.id}` })).statusCode,
        204,
      );
      assert.equal((await serve('files', mine.url)).statusCode, 404);
      const again = await forumApi(t.app, 'files', ann.token, { method: 'DELETE', path: `/uploads/${mine.id}` });
      assert.equal(json(again).code, 'upload_not_found');
      const bobs = json<Upload>(await upload(bob.token, photoPng(), 'bobs.png', 'image/png'));
      assert.equal(
        (await forumApi(t.app, 'files', admin, { method: 'DELETE', path: `/uploads/${bobs.id}` })).statusCode,
        204,
      );
      assert.equal((await serve('files', bobs.url)).statusCode, 404);
    });
  });
}
