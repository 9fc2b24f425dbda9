import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addMember, forumApi, makeCommunity } from '../../test/factories/forum.js';
import {
  buildTestApp,
  json,
  portal,
  PORTAL_HOST,
  signIn,
  startSecondNode,
  type Actor,
  type TestApp,
} from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { pageText, UiClient } from '../../test/helpers/forum-ui.js';
import { users } from '../core/accounts/tables.js';
import { listCredentials } from '../core/credentials/service.js';
import { createSite, findSite } from '../core/sites/service.js';
import { newId } from '../lib/ids.js';

const ADMIN_PAGES = ['/admin', '/admin/accounts', '/admin/sites', '/admin/purchase-keys', '/admin/audit-log'];
const redis = Boolean(process.env.TEST_REDIS_URL);

/** A console client logged in as `actor` (made by `signIn`). */
async function consoleAs(t: TestApp, actor: Actor): Promise<UiClient> {
  const ui = new UiClient(t.app, PORTAL_HOST);
  const login = await ui.login(actor.user.username, actor.password);
  assert.equal(login.statusCode, 303, login.body);
  return ui;
}

for (const database of testDatabases) {
  describe(`console admin pages [${database}]`, () => {
    let t: TestApp;
    let root: Actor;
    let admin: UiClient;
    let plain: UiClient;

    before(async () => {
      t = await buildTestApp({ database, env: { BLUME_RATE_LOGIN_PER_MINUTE: '100' } });
      root = await signIn(t.app, 'root', { admin: true });
      admin = await consoleAs(t, root);
      plain = await consoleAs(t, await signIn(t.app, 'plain'));
    });
    after(() => t.close());

    it('sends signed-out visitors to log in, answers 403 in words to others, and links only admins to it', async () => {
      for (const path of ADMIN_PAGES) {
        const signedOut = await portal(t.app, undefined, { method: 'GET', url: path });
        assert.equal(signedOut.statusCode, 303, path);
        assert.equal(signedOut.headers.location, `/login?next=${encodeURIComponent(path)}`);
        const refused = await plain.get(path);
        assert.equal(refused.statusCode, 403, path);
        assert.match(String(refused.headers['content-type']), /^text\/html/);
        assert.match(refused.body, /The admin pages are for platform administrators, and your account is not one\./);
        assert.equal((await admin.get(path)).statusCode, 200, path);
      }
      assert.doesNotMatch((await plain.get('/')).body, /href="\/admin"/);
      assert.match((await admin.get('/')).body, /<a href="\/admin">Admin<\/a>/);

      // A member's own valid form token does not open the admin forms.
      await makeCommunity(t.app, null, 'bystander', 'pro');
      await plain.get('/');
      assert.equal((await plain.post('/admin/sites/bystander/plan', { plan: 'free' })).statusCode, 403);
      assert.equal((await plain.post('/admin/sites/bystander/suspend', {})).statusCode, 403);
      assert.equal((await plain.post('/admin/purchase-keys', { name: 'sneaky' })).statusCode, 403);
      const site = await findSite(t.deps.database.db, 'bystander');
      assert.equal(site?.plan, 'pro');
      assert.equal(site?.status, 'active');
      assert.deepEqual(await listCredentials(t.deps.database.db, { kind: 'purchase_key' }), []);
    });

    it('lists accounts with whether they administer and how many sites they own, 25 a page', async () => {
      const db = t.deps.database.db;
      await createSite(db, root.user, { id: 'root-one', kind: 'static' });
      await createSite(db, root.user, { id: 'root-two', kind: 'community' });
      // Enough accounts for a second page; none of them logs in, so the hash is never checked.
      await db.insert(users).values(
        Array.from({ length: 30 }, (_, i) => ({
          id: newId(),
          username: `filler${i}`,
          email: `filler${i}@example.test`,
          passwordHash: 'unused',
        })),
      );
      const first = await admin.get('/admin/accounts');
      assert.equal((first.body.match(/<tr><td>/g) ?? []).length, 25);
      assert.match(first.body, /Page 1 of 2/);
      assert.match(first.body, /<a rel="next" href="\/admin\/accounts\?page=2">/);
      // Newest first: the two oldest accounts close the second page.
      const second = await admin.get('/admin/accounts?page=2');
      assert.equal((second.body.match(/<tr><td>/g) ?? []).length, 32 - 25);
      assert.match(
        pageText(second.body),
        /plain plain@example\.test \S+ \S+ UTC No 0 root root@example\.test \S+ \S+ UTC Yes 2 /,
      );
      const beyond = await admin.get('/admin/accounts?page=9');
      assert.match(beyond.body, /There is nothing on page 9\. <a href="\/admin\/accounts">Go to the first page<\/a>/);
    });

    it('changes plans that gate from the next request, suspends and resumes, and refuses in words', async () => {
      await makeCommunity(t.app, null, 'hall', 'pro');
      const reader = await addMember(t.app, 'hall', 'rex');
      const forums = () => forumApi(t.app, 'hall', reader.token, { method: 'GET', path: '/forums' });
      assert.equal((await forums()).statusCode, 200);

      const page = await admin.get('/admin/sites');
      assert.match(
        page.body,
        /<label for="plan-hall">Plan<span class="sr-only"> of hall<\/span><\/label><select id="plan-hall" name="plan"><option value="free">free<\/option><option value="pro" selected>pro<\/option><option value="business">business<\/option><\/select>/,
      );
      const downgraded = await admin.post('/admin/sites/hall/plan', { plan: 'free' });
      assert.equal(downgraded.statusCode, 303, downgraded.body);
      assert.equal(downgraded.headers.location, '/admin/sites?done=plan&site=hall&plan=free');
      assert.equal(json(await forums()).code, 'plan_required');
      assert.match(
        (await admin.get(String(downgraded.headers.location))).body,
        /Site hall is now on the free plan, from its next request on\./,
      );

      const unknown = await admin.post('/admin/sites/hall/plan', { plan: 'gold' });
      assert.equal(unknown.statusCode, 422);
      assert.match(
        unknown.body,
        /Site hall was not changed: No plan &quot;gold&quot;; the plans are free, pro, business\./,
      );
      assert.equal((await findSite(t.deps.database.db, 'hall'))?.plan, 'free');

      assert.equal((await admin.post('/admin/sites/hall/plan', { plan: 'business' })).statusCode, 303);
      assert.equal((await forums()).statusCode, 200);
      await admin.get('/admin/sites');
      assert.equal((await admin.post('/admin/sites/hall/suspend', {})).statusCode, 303);
      assert.equal(json(await forums()).code, 'site_suspended');
      assert.match((await admin.get('/admin/sites')).body, /<button type="submit">Resume hall<\/button>/);
      assert.equal((await admin.post('/admin/sites/hall/resume', {})).statusCode, 303);
      assert.equal((await forums()).statusCode, 200);

      const missing = await admin.post('/admin/sites/nowhere/plan', { plan: 'pro' });
      assert.equal(missing.statusCode, 404);
      assert.match(missing.body, /Site nowhere was not changed: No workspace &quot;nowhere&quot;\./);
    });

    it('refuses a form without its CSRF token or from another site and changes nothing', async () => {
      await makeCommunity(t.app, null, 'guarded', 'pro');
      await admin.get('/admin/sites');
      const noToken = await admin.post('/admin/sites/guarded/plan', { plan: 'free' }, { csrf: false });
      assert.equal(noToken.statusCode, 403);
      assert.match(noToken.body, /reload the page and try again/);
      const foreign = await admin.post('/admin/sites/guarded/suspend', {}, { origin: 'http://evil.example' });
      assert.equal(foreign.statusCode, 403);
      const stolen = await admin.post('/admin/purchase-keys', { name: 'forged' }, { csrf: 'not-the-token' });
      assert.equal(stolen.statusCode, 403);
      const site = await findSite(t.deps.database.db, 'guarded');
      assert.equal(site?.plan, 'pro');
      assert.equal(site?.status, 'active');
      assert.ok(
        (await listCredentials(t.deps.database.db, { kind: 'purchase_key' })).every((key) => key.name !== 'forged'),
      );
    });

    it('mints a purchase key shown once that the purchase API accepts until it is revoked', async () => {
      const plans = (token: string) =>
        portal(t.app, undefined, {
          method: 'GET',
          url: '/api/purchase/v1/plans',
          headers: { authorization: `Bearer ${token}` },
        });
      const empty = await admin.get('/admin/purchase-keys');
      assert.match(empty.body, /No purchase keys yet\. Create one below/);
      const blank = await admin.post('/admin/purchase-keys', { name: '  ' });
      assert.equal(blank.statusCode, 400);
      assert.match(blank.body, /Give the key a name/);

      const minted = await admin.post('/admin/purchase-keys', { name: 'billing' });
      assert.equal(minted.statusCode, 201, minted.body);
      assert.match(minted.body, /Purchase key billing was created\. Copy it now: it will not be shown again\./);
      const token = /id="new-key" readonly value="(pk_[^"]+)"/.exec(minted.body)?.[1];
      assert.ok(token, 'the page shows the new key');
      assert.equal((await plans(token)).statusCode, 200);

      const listed = await admin.get('/admin/purchase-keys');
      assert.doesNotMatch(listed.body, new RegExp(token.split('.')[1]!), 'the secret is shown once');
      assert.match(
        pageText(listed.body),
        /billing \d{4}-\d\d-\d\d \d\d:\d\d UTC \d{4}-\d\d-\d\d \d\d:\d\d UTC Revoke billing/,
        'last used after the call',
      );

      const id = /href="\/admin\/purchase-keys\/([^/"]+)\/revoke"/.exec(listed.body)![1]!;
      const confirm = await admin.get(`/admin/purchase-keys/${id}/revoke`);
      assert.match(confirm.body, /<h1>Revoke the purchase key billing\?<\/h1>/);
      assert.equal((await plans(token)).statusCode, 200, 'asking for the confirmation revokes nothing');
      const revoked = await admin.post(`/admin/purchase-keys/${id}/revoke`, {});
      assert.equal(revoked.statusCode, 303);
      assert.equal(revoked.headers.location, '/admin/purchase-keys?revoked=billing');
      assert.equal(json(await plans(token)).code, 'invalid_token');
      assert.match(
        (await admin.get('/admin/purchase-keys?revoked=billing')).body,
        /The purchase key billing was revoked\./,
      );
      assert.equal((await admin.get(`/admin/purchase-keys/${id}/revoke`)).statusCode, 404);
    });

    it("records the admin's changes beside the purchase API's calls in the audit log, newest first, 25 a page", async () => {
      const log = json<
        Array<{
          account_id: string | null;
          credential_id: string | null;
          method: string;
          path: string;
          target: string | null;
          status: number;
        }>
      >(await portal(t.app, root, { method: 'GET', url: '/api/admin/audit-log?page_size=100' }));
      const mine = log.filter((e) => e.account_id === root.user.id);
      assert.ok(
        mine.some(
          (e) =>
            e.path === '/admin/sites/hall/plan' && e.target === 'hall' && e.status === 303 && e.credential_id === null,
        ),
      );
      assert.ok(
        mine.some((e) => e.path === '/admin/sites/hall/plan' && e.status === 422),
        'refusals are recorded too',
      );
      assert.ok(
        mine.some((e) => e.path === '/admin/sites/guarded/plan' && e.status === 403),
        'so are refused forms',
      );
      assert.ok(mine.some((e) => e.path === '/admin/purchase-keys' && e.status === 201));
      assert.ok(
        log.some((e) => e.path === '/api/purchase/v1/plans' && e.credential_id !== null && e.account_id === null),
      );
      assert.ok(
        !log.some((e) => e.path === '/admin/purchase-keys' && e.account_id !== root.user.id),
        "a non-admin's refused posts are not recorded",
      );

      const first = await admin.get('/admin/audit-log');
      const rows = [...first.body.matchAll(/<tr><td><time datetime="([^"]+)"/g)].map((m) => m[1]!);
      assert.equal(rows.length, Math.min(25, log.length));
      assert.deepEqual([...rows].sort().reverse(), rows, 'newest first');
      assert.match(pageText(first.body), /root POST \/admin\/purchase-keys\/\S+\/revoke Done \(303\)/);
      assert.match(pageText(first.body), /Purchase key billing GET \/api\/purchase\/v1\/plans Done \(200\)/);
      assert.match(pageText(first.body), /root POST \/admin\/sites\/hall\/plan hall Refused \(422\)/);
      if (log.length > 25) assert.match((await admin.get('/admin/audit-log?page=2')).body, /Page 2 of/);
    });

    it('pages through every site, newest first', async () => {
      const db = t.deps.database.db;
      for (let i = 0; i < 26; i++)
        await createSite(db, null, { id: `bulk-${String(i).padStart(2, '0')}`, kind: 'static' });
      const first = await admin.get('/admin/sites');
      const ids = [...first.body.matchAll(/<li><h2><a href="\/sites\/([^"]+)">/g)].map((m) => m[1]);
      assert.equal(ids.length, 25);
      assert.equal(ids[0], 'bulk-25');
      assert.match(first.body, /Owner: none/);
      const second = await admin.get('/admin/sites?page=2');
      assert.match(second.body, /<a href="\/sites\/hall">hall<\/a>/);
      assert.match(second.body, /Owner: root@example\.test/);
      assert.match(second.body, /<input type="hidden" name="page" value="2">/);
      // A change made from page 2 comes back to page 2.
      const moved = await admin.post('/admin/sites/hall/plan', { plan: 'pro', page: '2' });
      assert.equal(moved.headers.location, '/admin/sites?page=2&done=plan&site=hall&plan=pro');
    });
  });

  describe(
    `console admin pages on two nodes [${database}]`,
    { skip: redis ? false : 'cross-node invalidation needs TEST_REDIS_URL' },
    () => {
      let t: TestApp;
      let other: Awaited<ReturnType<typeof startSecondNode>>;

      before(async () => {
        t = await buildTestApp({ database, cache: 'redis' });
        other = await startSecondNode(t);
      });
      after(async () => {
        await other.close();
        await t.close();
      });

      it('gates a plan change and a suspension at the next request on the other node', async () => {
        const admin = await consoleAs(t, await signIn(t.app, 'root', { admin: true }));
        await makeCommunity(t.app, null, 'hall', 'pro');
        const reader = await addMember(t.app, 'hall', 'rex');
        const forums = () => forumApi(other.app, 'hall', reader.token, { method: 'GET', path: '/forums' });
        assert.equal((await forums()).statusCode, 200);
        await admin.get('/admin/sites');
        assert.equal((await admin.post('/admin/sites/hall/plan', { plan: 'free' })).statusCode, 303);
        assert.equal(json(await forums()).code, 'plan_required');
        assert.equal((await admin.post('/admin/sites/hall/plan', { plan: 'pro' })).statusCode, 303);
        assert.equal((await forums()).statusCode, 200);
        assert.equal((await admin.post('/admin/sites/hall/suspend', {})).statusCode, 303);
        assert.equal(json(await forums()).code, 'site_suspended');
      });
    },
  );
}
