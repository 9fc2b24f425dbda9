import assert from 'node:assert/strict';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, json, signIn, type TestApp } from '../../test/helpers/app.js';
import { siteArchive } from '../../test/helpers/archives.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { createStaticSite, deployApi, deployRelease, edge } from '../../test/helpers/deploy.js';
import { parseRange } from './edge.js';

const HOST = 'web.blume.test';
const page = (title: string) =>
  `<!doctype html><title>${title}</title>${'<p>Lorem ipsum dolor sit amet.</p>'.repeat(40)}`;
const script = 'export function add(a, b) { return a + b; }\n'.repeat(100);

for (const database of testDatabases) {
  describe(`static edge [${database}]`, () => {
    let t: TestApp;

    before(async () => {
      t = await buildTestApp({ database });
      const alice = await signIn(t.app, 'alice');
      const token = await createStaticSite(t.app, alice, 'web');
      const release = await deployRelease(
        t.app,
        token,
        'web',
        await siteArchive({
          'index.html': page('home'),
          'about.html': page('about'),
          'docs/index.html': page('docs'),
          'docs/404.html': 'docs not found',
          '404.html': 'site not found',
          'assets/app.3f9a1c2b.js': script,
          'data/bytes.bin': Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
          'style.css': 'body{color:red}',
          'config.yaml': 'a: 1\n',
          'ci.yml': 'b: 2\n',
          _headers: '/assets/*\n  X-Asset: yes\n/*\n  X-Frame-Options: DENY\n',
          _redirects:
            '/old /about 301\n/go/* https://example.test/:splat 302\n/app/* /index.html 200\n/about /docs/ 302\n/gone /index.html 410\n',
        }),
      );
      await deployApi(t.app, token, 'POST', '/api/deploy/web/promote', { release });
    });
    after(() => t.close());

    it('serves index.html for the root and folders, and content types', async () => {
      const root = await edge(t.app, HOST, '/');
      assert.equal(root.statusCode, 200);
      assert.equal(root.body, page('home'));
      assert.equal(root.headers['content-type'], 'text/html; charset=utf-8');
      assert.equal(root.headers['cache-control'], 'public, max-age=0, must-revalidate');
      assert.equal((await edge(t.app, HOST, '/docs/')).body, page('docs'));
      const css = await edge(t.app, HOST, '/style.css');
      assert.equal(css.headers['content-type'], 'text/css; charset=utf-8');
      assert.equal(css.headers['x-content-type-options'], 'nosniff');
      for (const file of ['/config.yaml', '/ci.yml'])
        assert.equal((await edge(t.app, HOST, file)).headers['content-type'], 'text/yaml; charset=utf-8', file);
    });

    it('redirects a folder without its slash and serves name.html for a clean URL', async () => {
      const folder = await edge(t.app, HOST, '/docs?x=1');
      assert.equal(folder.statusCode, 301);
      assert.equal(folder.headers.location, '/docs/?x=1');
      assert.equal((await edge(t.app, HOST, '/index')).body, page('home'));
    });

    it('serves the nearest 404.html with status 404', async () => {
      const nested = await edge(t.app, HOST, '/docs/missing/page');
      assert.equal(nested.statusCode, 404);
      assert.equal(nested.body, 'docs not found');
      const top = await edge(t.app, HOST, '/nothing-here');
      assert.equal(top.statusCode, 404);
      assert.equal(top.body, 'site not found');
    });

    it('answers ETag revalidation with 304 and HEAD without a body', async () => {
      const first = await edge(t.app, HOST, '/style.css');
      const etag = String(first.headers.etag);
      assert.match(etag, /^"[0-9a-f]{32}"$/);
      const again = await edge(t.app, HOST, '/style.css', { 'if-none-match': etag });
      assert.equal(again.statusCode, 304);
      assert.equal(again.body, '');
      assert.equal((await edge(t.app, HOST, '/style.css', { 'if-none-match': `W/${etag}, "other"` })).statusCode, 304);
      const head = await edge(t.app, HOST, '/style.css', {}, 'HEAD');
      assert.equal(head.statusCode, 200);
      assert.equal(head.body, '');
      assert.equal(head.headers['content-length'], String('body{color:red}'.length));
      assert.equal(head.headers.etag, etag);
    });

    it('serves byte ranges, and 416 for an unsatisfiable one', async () => {
      const part = await edge(t.app, HOST, '/data/bytes.bin', { range: 'bytes=10-19' });
      assert.equal(part.statusCode, 206);
      assert.equal(part.headers['content-range'], 'bytes 10-19/256');
      assert.deepEqual(
        [...part.rawPayload],
        Array.from({ length: 10 }, (_, i) => i + 10),
      );
      const suffix = await edge(t.app, HOST, '/data/bytes.bin', { range: 'bytes=-6' });
      assert.deepEqual([...suffix.rawPayload], [250, 251, 252, 253, 254, 255]);
      const open = await edge(t.app, HOST, '/data/bytes.bin', { range: 'bytes=250-' });
      assert.equal(open.rawPayload.length, 6);
      const bad = await edge(t.app, HOST, '/data/bytes.bin', { range: 'bytes=300-400' });
      assert.equal(bad.statusCode, 416);
      assert.equal(bad.headers['content-range'], 'bytes */256');
      const stale = await edge(t.app, HOST, '/data/bytes.bin', { range: 'bytes=0-1', 'if-range': '"stale"' });
      assert.equal(stale.statusCode, 200);
      assert.equal(stale.rawPayload.length, 256);
    });

    it('parses range headers', () => {
      assert.deepEqual(parseRange('bytes=0-0', 10), { start: 0, end: 0 });
      assert.deepEqual(parseRange('bytes=5-100', 10), { start: 5, end: 9 });
      assert.deepEqual(parseRange('bytes=-100', 10), { start: 0, end: 9 });
      assert.equal(parseRange('bytes=0-1,4-5', 10), undefined);
      assert.equal(parseRange('items=0-1', 10), undefined);
      assert.equal(parseRange('bytes=9-3', 10), 'unsatisfiable');
    });

    it('serves precompressed brotli and gzip variants by Accept-Encoding', async () => {
      const br = await edge(t.app, HOST, '/assets/app.3f9a1c2b.js', { 'accept-encoding': 'gzip, deflate, br' });
      assert.equal(br.headers['content-encoding'], 'br');
      assert.equal(br.headers.vary, 'Accept-Encoding');
      assert.equal(brotliDecompressSync(br.rawPayload).toString(), script);
      assert.match(String(br.headers.etag), /-br"$/);
      assert.equal(Number(br.headers['content-length']), br.rawPayload.length);
      const gz = await edge(t.app, HOST, '/assets/app.3f9a1c2b.js', { 'accept-encoding': 'gzip' });
      assert.equal(gz.headers['content-encoding'], 'gzip');
      assert.equal(gunzipSync(gz.rawPayload).toString(), script);
      const refusedBr = await edge(t.app, HOST, '/assets/app.3f9a1c2b.js', { 'accept-encoding': 'br;q=0, gzip' });
      assert.equal(refusedBr.headers['content-encoding'], 'gzip');
      const plain = await edge(t.app, HOST, '/assets/app.3f9a1c2b.js');
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.equal(plain.body, script);
      // Tiny files are not worth a variant.
      assert.equal(
        (await edge(t.app, HOST, '/style.css', { 'accept-encoding': 'br' })).headers['content-encoding'],
        undefined,
      );
    });

    it('marks fingerprinted assets immutable and applies _headers', async () => {
      const asset = await edge(t.app, HOST, '/assets/app.3f9a1c2b.js');
      assert.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable');
      assert.equal(asset.headers['x-asset'], 'yes');
      assert.equal(asset.headers['x-frame-options'], 'DENY');
      assert.equal((await edge(t.app, HOST, '/')).headers['x-asset'], undefined);
    });

    it('applies _redirects: redirects, splats, rewrites, 410, and files shadowing rules', async () => {
      const old = await edge(t.app, HOST, '/old');
      assert.equal(old.statusCode, 301);
      assert.equal(old.headers.location, '/about');
      const out = await edge(t.app, HOST, '/go/a/b');
      assert.equal(out.statusCode, 302);
      assert.equal(out.headers.location, 'https://example.test/a/b');
      const rewrite = await edge(t.app, HOST, '/app/settings/profile');
      assert.equal(rewrite.statusCode, 200);
      assert.equal(rewrite.body, page('home'));
      const gone = await edge(t.app, HOST, '/gone');
      assert.equal(gone.statusCode, 410);
      // about.html exists, so the unforced "/about /docs/ 302" rule does not apply.
      const shadowed = await edge(t.app, HOST, '/about');
      assert.equal(shadowed.statusCode, 200);
      assert.equal(shadowed.body, page('about'));
      // The rule files themselves are not served.
      assert.equal((await edge(t.app, HOST, '/_redirects')).statusCode, 404);
    });

    it('answers unknown hosts and unknown methods without reaching the edge', async () => {
      const unknown = await edge(t.app, 'nope.blume.test', '/');
      assert.equal(unknown.statusCode, 404);
      assert.equal(json(unknown).code, 'site_not_found');
      for (const method of ['POST', 'PUT', 'DELETE', 'PATCH'] as const) {
        const refused = await edge(t.app, HOST, '/', {}, method);
        assert.equal(refused.statusCode, 405, method);
        assert.equal(refused.headers.allow, 'GET, HEAD');
        assert.equal(json(refused).code, 'method_not_allowed');
      }
      // An unknown site stays unknown, whatever the method.
      assert.equal(json(await edge(t.app, 'nope.blume.test', '/', {}, 'POST')).code, 'site_not_found');
    });
  });
}
