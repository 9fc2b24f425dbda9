import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { count, eq } from 'drizzle-orm';
import { buildTestApp, json, portal, signIn, type Actor, type TestApp } from '../../test/helpers/app.js';
import { siteArchive, tarball } from '../../test/helpers/archives.js';
import { createStaticSite, upload } from '../../test/helpers/deploy.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { releaseFiles, releases } from './tables.js';

async function blobKeys(t: TestApp): Promise<string[]> {
  const keys: string[] = [];
  for await (const key of t.deps.blobs.list('sha256/')) keys.push(key);
  return keys.sort();
}

async function releaseCount(t: TestApp, site: string): Promise<number> {
  const [row] = await t.deps.database.db.select({ n: count() }).from(releases).where(eq(releases.siteId, site));
  return row!.n;
}

for (const database of testDatabases) {
  describe(`deploy ingest [${database}]`, () => {
    let t: TestApp;
    let alice: Actor;
    let token: string;

    before(async () => {
      t = await buildTestApp({ database });
      alice = await signIn(t.app, 'alice');
      token = await createStaticSite(t.app, alice, 'docs');
    });
    after(() => t.close());

    it('ingests a tar.gz into a release with content-addressed, deduplicated blobs', async () => {
      const page = '<!doctype html><title>Home</title>' + '<p>hello world</p>'.repeat(100);
      const archive = await siteArchive({
        'index.html': page,
        'copy.html': page,
        'assets/app.3f9a1c2b.js': 'console.log(1);'.repeat(50),
        'logo.png': Buffer.alloc(300, 7),
      });
      const response = await upload(t.app, token, 'docs', archive);
      assert.equal(response.statusCode, 201, response.body);
      const release = json(response);
      assert.match(String(release.id), /^[a-z0-9]{12}$/);
      assert.equal(release.site, 'docs');
      assert.equal(release.source, 'archive');
      assert.equal(release.file_count, 4);
      assert.equal(release.size, page.length * 2 + 'console.log(1);'.length * 50 + 300);
      assert.equal(release.new_blobs, 3);
      assert.equal(release.promotable, true);
      assert.equal(release.build_id, null);
      assert.equal(release.git, null);
      assert.equal(release.preview_url, `http://r-${String(release.id)}--docs.blume.test`);
      const keys = await blobKeys(t);
      // Three distinct contents; HTML and JS also get gzip and brotli variants, the PNG does not.
      assert.equal(keys.filter((key) => /^sha256\/[0-9a-f]{2}\/[0-9a-f]{64}$/.test(key)).length, 3);
      assert.equal(keys.filter((key) => key.endsWith('.gz')).length, 2);
      assert.equal(keys.filter((key) => key.endsWith('.br')).length, 2);

      const again = await upload(t.app, token, 'docs', archive);
      assert.equal(again.statusCode, 201);
      assert.equal(json(again).new_blobs, 0);
      assert.ok(String(json(again).id) > String(release.id), 'release ids sort by time');
      assert.deepEqual(await blobKeys(t), keys);
    });

    it('streams an archive far larger than the JSON body limit', async () => {
      const big = randomBytes(3 * 1024 * 1024);
      const response = await upload(t.app, token, 'docs', await siteArchive({ 'index.html': 'x', 'video.mp4': big }));
      assert.equal(response.statusCode, 201, response.body);
      assert.equal(json(response).size, big.length + 1);
    });

    it('unwraps a lone top folder', async () => {
      const archive = gzipSync(
        await tarball([
          { name: 'public/', type: 'directory' },
          { name: 'public/index.html', content: 'x' },
          { name: 'public/a/b.txt', content: 'y' },
        ]),
      );
      const response = await upload(t.app, token, 'docs', archive);
      assert.equal(response.statusCode, 201, response.body);
      const files = await t.deps.database.db
        .select({ path: releaseFiles.path })
        .from(releaseFiles)
        .where(eq(releaseFiles.releaseId, String(json(response).id)));
      assert.deepEqual(files.map((f) => f.path).sort(), ['a/b.txt', 'index.html']);
    });

    it('accepts ./-prefixed entries', async () => {
      const response = await upload(
        t.app,
        token,
        'docs',
        gzipSync(
          await tarball([
            { name: './', type: 'directory' },
            { name: './index.html', content: 'x' },
          ]),
        ),
      );
      assert.equal(response.statusCode, 201, response.body);
    });

    describe('hostile archives: each refused with its own code, nothing stored', () => {
      const cases: {
        name: string;
        archive: () => Promise<Buffer>;
        status: number;
        code: string;
        limits?: Partial<typeof t.app.deploy.limits>;
      }[] = [
        {
          name: 'symlink',
          archive: () =>
            siteArchive({ 'index.html': 'x' }, [{ name: 'evil', type: 'symlink', linkname: '/etc/passwd' }]),
          status: 422,
          code: 'archive_symlink',
        },
        {
          name: 'hard link',
          archive: () => siteArchive({ 'index.html': 'x' }, [{ name: 'evil', type: 'link', linkname: 'index.html' }]),
          status: 422,
          code: 'archive_hardlink',
        },
        {
          name: 'character device',
          archive: () => siteArchive({ 'index.html': 'x' }, [{ name: 'null', type: 'character-device' }]),
          status: 422,
          code: 'archive_device',
        },
        {
          name: 'block device',
          archive: () => siteArchive({ 'index.html': 'x' }, [{ name: 'sda', type: 'block-device' }]),
          status: 422,
          code: 'archive_device',
        },
        {
          name: 'fifo',
          archive: () => siteArchive({ 'index.html': 'x' }, [{ name: 'pipe', type: 'fifo' }]),
          status: 422,
          code: 'archive_fifo',
        },
        {
          name: 'absolute path',
          archive: () => siteArchive({ 'index.html': 'x', '/etc/cron.d/evil': 'x' }),
          status: 422,
          code: 'archive_absolute_path',
        },
        {
          name: '.. segment',
          archive: () => siteArchive({ 'index.html': 'x', 'a/../../evil': 'x' }),
          status: 422,
          code: 'archive_path_traversal',
        },
        {
          name: 'backslash',
          archive: () => siteArchive({ 'index.html': 'x', 'a\\..\\evil': 'x' }),
          status: 422,
          code: 'archive_backslash_path',
        },
        {
          name: 'duplicate path',
          archive: () => siteArchive({ 'index.html': 'x' }, [{ name: './index.html', content: 'y' }]),
          status: 422,
          code: 'archive_duplicate_path',
        },
        {
          name: 'file and folder at one path',
          archive: () => siteArchive({ a: 'x', 'a/b': 'y' }),
          status: 422,
          code: 'archive_path_conflict',
        },
        {
          name: 'non-UTF-8 name',
          archive: async () => {
            const tarBytes = await tarball([
              { name: 'index.html', content: 'x' },
              { name: 'cafX.html', content: 'y' },
            ]);
            // Turn the "X" into a lone latin1 byte (e9), which is not UTF-8, and fix the header checksum.
            const at = tarBytes.indexOf('cafX.html');
            const header = tarBytes.subarray(at - (at % 512), at - (at % 512) + 512);
            tarBytes[at + 3] = 0xe9;
            header.fill(0x20, 148, 156);
            let sum = 0;
            for (const byte of header) sum += byte;
            header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
            return gzipSync(tarBytes);
          },
          status: 422,
          code: 'archive_non_utf8_path',
        },
        {
          name: 'control character',
          archive: () => siteArchive({ 'index.html': 'x', 'a\nb': 'y' }),
          status: 422,
          code: 'archive_invalid_path',
        },
        {
          name: 'empty archive',
          archive: async () => gzipSync(await tarball([{ name: 'dir/', type: 'directory' }])),
          status: 422,
          code: 'archive_empty',
        },
        {
          name: 'not gzip',
          archive: async () => Buffer.from('this is not a gzip stream at all'),
          status: 400,
          code: 'archive_corrupt',
        },
        {
          name: 'truncated gzip',
          archive: async () =>
            (await siteArchive({ 'index.html': 'x'.repeat(5000), 'b.html': 'y'.repeat(3000) })).subarray(0, 40),
          status: 400,
          code: 'archive_corrupt',
        },
        {
          name: 'gzip of garbage (not tar)',
          archive: async () => gzipSync(Buffer.alloc(2048, 0x41)),
          status: 400,
          code: 'archive_corrupt',
        },
        {
          name: 'truncated tar inside valid gzip',
          archive: async () =>
            gzipSync((await tarball([{ name: 'index.html', content: 'x'.repeat(4000) }])).subarray(0, 1500)),
          status: 400,
          code: 'archive_corrupt',
        },
        {
          name: 'too many files',
          archive: () => siteArchive({ a: '1', b: '2', c: '3', d: '4' }),
          status: 422,
          code: 'archive_too_many_files',
          limits: { files: 3 },
        },
        {
          name: 'too large compressed',
          archive: () => siteArchive({ 'index.html': randomBytes(20000) }),
          status: 413,
          code: 'archive_too_large',
          limits: { compressedBytes: 4096 },
        },
        {
          name: 'gzip bomb (too large uncompressed)',
          archive: () => siteArchive({ 'index.html': 'x', 'big.txt': Buffer.alloc(300_000) }),
          status: 413,
          code: 'archive_uncompressed_too_large',
          limits: { uncompressedBytes: 100_000 },
        },
        {
          name: 'bad _redirects rule',
          archive: () => siteArchive({ 'index.html': 'x', _redirects: '# ok\n/a /b 301\n/c\n' }),
          status: 422,
          code: 'invalid_redirects_file',
        },
        {
          name: 'bad _headers rule',
          archive: () => siteArchive({ 'index.html': 'x', _headers: '/*\n  X-Frame-Options DENY\n' }),
          status: 422,
          code: 'invalid_headers_file',
        },
        {
          name: '_headers value past Latin-1',
          archive: () => siteArchive({ 'index.html': 'x', _headers: '/*\n  X-Note: a \u2192 b\n' }),
          status: 422,
          code: 'invalid_headers_file',
        },
        // Framing, hop-by-hop and the edge's own headers (#13 item 2): a Trailer rule made Node's writeHead throw.
        ...[
          'Trailer',
          'Keep-Alive',
          'Upgrade',
          'Date',
          'TE',
          'Proxy-Connection',
          'Transfer-Encoding',
          'Connection',
          'Content-Length',
          'content-encoding',
          'ETag',
          'Set-Cookie',
        ].map((header) => ({
          name: `_headers rule for ${header}`,
          archive: () => siteArchive({ 'index.html': 'x', _headers: `/*\n  X-Fine: yes\n  ${header}: x\n` }),
          status: 422,
          code: 'headers_file_reserved_header',
        })),
      ];

      for (const testCase of cases) {
        it(`refuses ${testCase.name} with ${testCase.code}`, async () => {
          const blobsBefore = await blobKeys(t);
          const releasesBefore = await releaseCount(t, 'docs');
          const saved = { ...t.app.deploy.limits };
          Object.assign(t.app.deploy.limits, testCase.limits ?? {});
          try {
            // Fresh content each time, so a blob left behind would show.
            const response = await upload(t.app, token, 'docs', await testCase.archive());
            assert.equal(response.statusCode, testCase.status, response.body);
            assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
            assert.equal(json(response).code, testCase.code);
          } finally {
            Object.assign(t.app.deploy.limits, saved);
          }
          assert.equal(await releaseCount(t, 'docs'), releasesBefore);
          assert.deepEqual(await blobKeys(t), blobsBefore);
          // Nor a scratch folder: a refused upload removes what it spooled.
          assert.deepEqual(await readdir(t.app.deploy.tmpDir).catch(() => []), []);
        });
      }

      it('reports the line of a bad _redirects rule', async () => {
        const response = await upload(
          t.app,
          token,
          'docs',
          await siteArchive({ 'index.html': 'x', _redirects: '# ok\n/a /b 301\n/c\n' }),
        );
        assert.equal(json(response).line, 3);
        assert.match(String(json(response).detail), /_redirects line 3/);
      });
    });

    describe('access', () => {
      it('refuses a missing or invalid token with 401 and a token of another site with 403', async () => {
        const archive = await siteArchive({ 'index.html': 'x' });
        const missing = await upload(t.app, undefined, 'docs', archive);
        assert.equal(missing.statusCode, 401);
        assert.equal(json(missing).code, 'authentication_required');
        assert.ok(missing.headers['www-authenticate']);
        const invalid = await upload(t.app, `dpl_${'a'.repeat(16)}.${'b'.repeat(43)}`, 'docs', archive);
        assert.equal(invalid.statusCode, 401);
        assert.equal(json(invalid).code, 'invalid_token');
        const otherToken = await createStaticSite(t.app, alice, 'blog');
        const cross = await upload(t.app, otherToken, 'docs', archive);
        assert.equal(cross.statusCode, 403);
        assert.equal(json(cross).code, 'token_site_mismatch');
        const crossList = await portal(t.app, undefined, {
          method: 'GET',
          url: '/api/deploy/docs/releases',
          headers: { authorization: `Bearer ${otherToken}` },
        });
        assert.equal(crossList.statusCode, 403);
      });

      it('refuses an upload without the archive field', async () => {
        const response = await upload(t.app, token, 'docs', await siteArchive({ 'index.html': 'x' }), 'file');
        assert.equal(response.statusCode, 400);
        assert.equal(json(response).code, 'archive_missing');
      });

      it('serves the deploy OpenAPI document', async () => {
        const response = await portal(t.app, undefined, { method: 'GET', url: '/api/deploy/openapi.json' });
        assert.equal(response.statusCode, 200);
        const doc = json<{ paths: Record<string, unknown> }>(response);
        assert.ok(doc.paths['/api/deploy/{id}']);
        assert.ok(doc.paths['/api/deploy/{id}/promote']);
        assert.equal(doc.paths['/api/sites'], undefined);
      });
    });
  });
}
