import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, json, signIn, type TestApp } from '../../test/helpers/app.js';
import { siteArchive, tarball } from '../../test/helpers/archives.js';
import { testDatabases } from '../../test/helpers/databases.js';
import {
  basicAuth,
  createStaticSite,
  deployApi,
  deployRelease,
  edge,
  uploadSource,
} from '../../test/helpers/deploy.js';
import { PREVIEW_COOKIE, PREVIEW_TOKEN_PARAM, signPreviewToken } from './preview-links.js';

interface ReleaseBody {
  id: string;
  origin: string;
  created_by: string | null;
  build_duration_ms: number | null;
  size: number;
  build_id: string | null;
}

interface PreviewLinkBody {
  release: string;
  url: string;
  expires_at: string;
}

for (const database of testDatabases) {
  describe(`release details and shared preview links [${database}]`, () => {
    let t: TestApp;
    let token: string;
    let otherToken: string;
    let uploaded: string;
    let second: string;

    before(async () => {
      t = await buildTestApp({ database });
      const alice = await signIn(t.app, 'alice');
      token = await createStaticSite(t.app, alice, 'shop');
      otherToken = await createStaticSite(t.app, alice, 'blog');
      await t.app.deploy.builds.start();
      uploaded = await deployRelease(t.app, token, 'shop', await siteArchive({ 'index.html': '<h1>one</h1>' }));
      second = await deployRelease(t.app, token, 'shop', await siteArchive({ 'index.html': '<h1>two</h1>' }));
    });
    after(() => t.close());

    const releases = async () =>
      json<{ releases: ReleaseBody[]; aliases: { auth: string } }>(
        await deployApi(t.app, token, 'GET', '/api/deploy/shop/releases'),
      );

    const share = (release: string, expiresIn: number, site = 'shop', as = token) =>
      deployApi(t.app, as, 'POST', `/api/deploy/${site}/releases/${release}/preview-links`, {
        expires_in: expiresIn,
      });

    it('says how a release was made, by whom, and how long its build took', async () => {
      const built = await uploadSource(
        t.app,
        token,
        'shop',
        await tarball([{ name: 'index.md', content: '# Built\n\nFrom Markdown.\n' }]),
      );
      assert.equal(built.statusCode, 201, built.body);
      const body = await releases();
      const upload = body.releases.find((r) => r.id === uploaded)!;
      assert.equal(upload.origin, 'upload');
      assert.equal(upload.created_by, 'deploy token "ci"');
      assert.equal(upload.build_duration_ms, null);
      assert.ok(upload.size > 0);
      const build = body.releases.find((r) => r.id === json<ReleaseBody>(built).id)!;
      assert.equal(build.origin, 'build');
      assert.equal(build.created_by, 'deploy token "ci"');
      assert.ok(
        Number.isInteger(build.build_duration_ms) && build.build_duration_ms! >= 0,
        String(build.build_duration_ms),
      );
      assert.match(build.build_id ?? '', /^[a-z0-9]{16}$/);
    });

    it('makes a link that opens its release without the password, through a cookie on that host only', async () => {
      const response = await share(uploaded, 3600);
      assert.equal(response.statusCode, 201, response.body);
      const link = json<PreviewLinkBody>(response);
      assert.equal(link.release, uploaded);
      const url = new URL(link.url);
      assert.equal(url.host, `r-${uploaded}--shop.blume.test`);
      const expires = Date.parse(link.expires_at);
      assert.ok(Math.abs(expires - (Date.now() + 3600_000)) < 10_000, link.expires_at);

      const host = url.host;
      const first = await edge(t.app, host, `${url.pathname}${url.search}`);
      assert.equal(first.statusCode, 303, first.body);
      assert.equal(first.headers.location, '/');
      assert.equal(first.headers['cache-control'], 'no-store');
      const setCookie = String(first.headers['set-cookie']);
      assert.match(setCookie, new RegExp(`^${PREVIEW_COOKIE}=[^;]+; Path=/; Max-Age=(\\d+); HttpOnly; SameSite=Lax`));
      assert.doesNotMatch(setCookie, /Domain=/i, 'the cookie stays on the one preview host');
      const cookie = setCookie.split(';')[0]!;

      const page = await edge(t.app, host, '/', { cookie });
      assert.equal(page.statusCode, 200);
      assert.equal(page.body, '<h1>one</h1>');
      // Without the cookie, or with it on another release's host, the password is asked for.
      assert.equal((await edge(t.app, host, '/')).statusCode, 401);
      const elsewhere = await edge(t.app, `r-${second}--shop.blume.test`, '/', { cookie });
      assert.equal(elsewhere.statusCode, 401);
      assert.equal(json(elsewhere).code, 'preview_auth_required');
      const staged = await edge(t.app, 'stage--shop.blume.test', '/', { cookie });
      assert.equal(staged.statusCode, 401, staged.body);
      // The token opens no other release's host either.
      const foreign = await edge(t.app, `r-${second}--shop.blume.test`, `/${url.search}`);
      assert.equal(foreign.statusCode, 401, foreign.body);
      assert.equal(json(foreign).code, 'preview_link_invalid');
    });

    it('keeps the rest of the query and refuses tampered and expired links', async () => {
      const link = new URL(json<PreviewLinkBody>(await share(second, 300)).url);
      const token = link.searchParams.get(PREVIEW_TOKEN_PARAM)!;
      const kept = await edge(t.app, link.host, `/docs/?lang=en&${PREVIEW_TOKEN_PARAM}=${token}`);
      assert.equal(kept.statusCode, 303);
      assert.equal(kept.headers.location, '/docs/?lang=en');

      const [expiry, signature] = token.split('.') as [string, string];
      const later = `${Number(expiry) + 86400}.${signature}`;
      const flipped = `${expiry}.${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BA' : 'AA'}`;
      for (const bad of [later, flipped, 'garbage', `${expiry}.`]) {
        const refused = await edge(t.app, link.host, `/?${PREVIEW_TOKEN_PARAM}=${encodeURIComponent(bad)}`);
        assert.equal(refused.statusCode, 401, bad);
        assert.equal(json(refused).code, 'preview_link_invalid', bad);
        assert.equal(refused.headers['set-cookie'], undefined);
        const asCookie = await edge(t.app, link.host, '/', { cookie: `${PREVIEW_COOKIE}=${bad}` });
        assert.equal(asCookie.statusCode, 401, bad);
      }

      const { aliases } = await releases();
      const scope = { siteId: 'shop', releaseId: second, password: aliases.auth };
      const expired = signPreviewToken(t.app.deps.config.secretKey, scope, new Date(Date.now() - 1000));
      const old = await edge(t.app, link.host, `/?${PREVIEW_TOKEN_PARAM}=${expired}`);
      assert.equal(old.statusCode, 401);
      assert.equal(json(old).code, 'preview_link_expired');
      assert.match(String(old.headers['www-authenticate']), /^Basic realm=/);
      assert.equal((await edge(t.app, link.host, '/', { cookie: `${PREVIEW_COOKIE}=${expired}` })).statusCode, 401);
      // Signed with another key it is no link at all.
      const foreignKey = signPreviewToken('another key', scope, new Date(Date.now() + 60_000));
      const forged = await edge(t.app, link.host, `/?${PREVIEW_TOKEN_PARAM}=${foreignKey}`);
      assert.equal(json(forged).code, 'preview_link_invalid');
    });

    it('refuses lifetimes out of range, unknown releases and tokens of other sites', async () => {
      for (const seconds of [0, 299, 2592001]) {
        const response = await share(uploaded, seconds);
        assert.equal(response.statusCode, 400, String(seconds));
        assert.equal(json(response).code, 'validation_failed');
      }
      const unknown = await share('zzzzzzzzzzzz', 3600);
      assert.equal(unknown.statusCode, 404);
      assert.equal(json(unknown).code, 'release_not_found');
      const cross = await share(uploaded, 3600, 'shop', otherToken);
      assert.equal(cross.statusCode, 403);
      assert.equal(json(cross).code, 'token_site_mismatch');
      const otherSite = await share(uploaded, 3600, 'blog', otherToken);
      assert.equal(otherSite.statusCode, 404, 'a release of shop is not one of blog');
    });

    it('stops the old password, every link made before and their cookies with a new preview password', async () => {
      const before = (await releases()).aliases.auth;
      const link = new URL(json<PreviewLinkBody>(await share(second, 3600)).url);
      const cookie = String((await edge(t.app, link.host, `/${link.search}`)).headers['set-cookie']).split(';')[0]!;
      const basic = (password: string) => ({ authorization: basicAuth(password) });
      assert.equal((await edge(t.app, link.host, '/', { cookie })).statusCode, 200);
      assert.equal(
        (await edge(t.app, 'stage--shop.blume.test', '/', basic(before))).statusCode,
        404,
        'nothing staged, but let in',
      );

      const changed = await deployApi(t.app, token, 'POST', '/api/deploy/shop/preview-password');
      assert.equal(changed.statusCode, 200, changed.body);
      const { aliases, propagation } = json<{ aliases: { auth: string }; propagation: unknown }>(changed);
      assert.notEqual(aliases.auth, before);
      assert.match(aliases.auth, /^[A-Za-z0-9]{24}$/);
      assert.ok(propagation);
      assert.equal((await releases()).aliases.auth, aliases.auth);

      assert.equal((await edge(t.app, link.host, '/', basic(before))).statusCode, 401, 'the old password');
      assert.equal((await edge(t.app, link.host, '/', { cookie })).statusCode, 401, "an old link's cookie");
      const relinked = await edge(t.app, link.host, `/${link.search}`);
      assert.equal(relinked.statusCode, 401, 'an old link');
      assert.equal(json(relinked).code, 'preview_link_invalid');
      assert.equal((await edge(t.app, link.host, '/', basic(aliases.auth))).body, '<h1>two</h1>');
      const fresh = new URL(json<PreviewLinkBody>(await share(second, 3600)).url);
      assert.equal((await edge(t.app, fresh.host, `/${fresh.search}`)).statusCode, 303, 'a link made after it');
      const cross = await deployApi(t.app, otherToken, 'POST', '/api/deploy/shop/preview-password');
      assert.equal(cross.statusCode, 403);
      assert.equal((await releases()).aliases.auth, aliases.auth, "another site's token changes nothing");
    });
  });
}
