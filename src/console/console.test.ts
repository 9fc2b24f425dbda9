import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, portal, signIn, type Actor, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';

for (const database of testDatabases) {
  describe(`console pages [${database}]`, () => {
    let t: TestApp;
    let alice: Actor;

    before(async () => {
      t = await buildTestApp({ database });
      alice = await signIn(t.app, 'alice');
    });
    after(() => t.close());

    it('shows the login page signed out and sends pages that need an account to it', async () => {
      const home = await portal(t.app, undefined, { method: 'GET', url: '/' });
      assert.equal(home.statusCode, 200);
      assert.match(home.body, /<h1>Log in<\/h1>/);
      assert.match(String(home.headers['content-security-policy']), /default-src 'none'/);
      const account = await portal(t.app, undefined, { method: 'GET', url: '/account' });
      assert.equal(account.statusCode, 303);
      assert.equal(account.headers.location, '/login?next=%2Faccount');
    });

    it('refuses a form without its CSRF token and changes nothing', async () => {
      const response = await portal(t.app, alice, {
        method: 'POST',
        url: '/sites',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'id=forged&kind=static',
      });
      assert.equal(response.statusCode, 403);
      assert.match(response.body, /reload the page/);
      const sites = await portal(t.app, alice, { method: 'GET', url: '/api/sites' });
      assert.deepEqual(sites.json(), []);
    });

    it('escapes what it shows', async () => {
      const page = await portal(t.app, undefined, { method: 'GET', url: '/login?next=%2F%22%3E%3Cscript%3E' });
      assert.doesNotMatch(page.body, /"><script>/);
    });
  });
}
