// The console's admin pages in a real browser against a listening server: a platform admin logs in,
// follows the Admin link, changes a site's plan, mints a purchase key (which the purchase API then
// accepts) and revokes it after confirming, and reads the audit log. Then every admin page at phone
// width (390 px) without sideways scrolling, and a keyboard-only suspension with a visible focus ring.
// Screenshots are kept in test-artifacts/browser/.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { findSite } from '../../src/core/sites/service.js';
import { makeCommunity } from '../factories/forum.js';
import { buildTestApp, signIn, type Actor, type TestApp } from '../helpers/app.js';
import { assertNoSidewaysScroll, launchChromium, screenshot, skipWithoutChromium, tabTo } from '../helpers/browser.js';

describe('console admin pages in a browser', { skip: skipWithoutChromium }, () => {
  let t: TestApp;
  let browser: Browser;
  let origin: string;
  let root: Actor;

  before(async () => {
    t = await buildTestApp({ database: 'pglite', env: { BLUME_RATE_LOGIN_PER_MINUTE: '100' } });
    root = await signIn(t.app, 'root', { admin: true });
    const owner = await signIn(t.app, 'gwen');
    await makeCommunity(t.app, owner, 'hall', 'pro');
    await makeCommunity(t.app, null, 'annex', 'free');
    origin = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  async function logIn(context: BrowserContext): Promise<Page> {
    const page = await context.newPage();
    await page.goto(`${origin}/login`);
    await page.getByLabel('Username or e-mail').fill('root');
    await page.getByLabel('Password').fill(root.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Sites' }).waitFor();
    return page;
  }

  const plans = (token: string) =>
    fetch(`${origin}/api/purchase/v1/plans`, { headers: { authorization: `Bearer ${token}` } });

  it("changes a site's plan, mints and revokes a purchase key, and shows the audit log", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await logIn(context);
    await page.getByRole('link', { name: 'Admin', exact: true }).first().click();
    await page.getByRole('heading', { name: 'Platform administration' }).waitFor();
    await screenshot(page, 'console-admin-home');

    await page.getByRole('link', { name: 'All sites' }).first().click();
    await page.getByRole('heading', { name: 'All sites' }).waitFor();
    await page.getByLabel('Plan of hall').selectOption('business');
    await page.getByRole('button', { name: 'Change plan of hall' }).click();
    await page.getByRole('status').getByText('Site hall is now on the business plan').waitFor();
    assert.equal(await page.getByLabel('Plan of hall').inputValue(), 'business');
    assert.equal((await findSite(t.deps.database.db, 'hall'))?.plan, 'business');
    await screenshot(page, 'console-admin-sites');

    await page.getByRole('navigation', { name: 'Admin sections' }).getByRole('link', { name: 'Purchase keys' }).click();
    await page.getByText('No purchase keys yet.').waitFor();
    await page.getByLabel('Name').fill('billing');
    await page.getByRole('button', { name: 'Create purchase key' }).click();
    await page.getByText('Copy it now: it will not be shown again.').waitFor();
    const token = await page.getByLabel('The new purchase key').inputValue();
    assert.match(token, /^pk_/);
    await screenshot(page, 'console-admin-key-minted');
    assert.equal((await plans(token)).status, 200);

    await page.goto(`${origin}/admin/purchase-keys`);
    assert.equal(await page.getByLabel('The new purchase key').count(), 0, 'the key is shown once');
    await page.getByRole('link', { name: 'Revoke billing' }).click();
    await page.getByRole('heading', { name: 'Revoke the purchase key billing?' }).waitFor();
    await screenshot(page, 'console-admin-key-revoke');
    await page.getByRole('link', { name: 'Cancel, keep the key' }).click();
    await page.getByRole('link', { name: 'Revoke billing' }).waitFor();
    assert.equal((await plans(token)).status, 200, 'canceling keeps the key');
    await page.getByRole('link', { name: 'Revoke billing' }).click();
    await page.getByRole('button', { name: 'Revoke billing' }).click();
    await page.getByText('The purchase key billing was revoked.').waitFor();
    await page.getByText('No purchase keys yet.').waitFor();
    assert.equal((await plans(token)).status, 401);

    await page.getByRole('navigation', { name: 'Admin sections' }).getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('cell', { name: 'POST /admin/sites/hall/plan' }).waitFor();
    await page.getByRole('cell', { name: 'Purchase key billing' }).first().waitFor();
    await screenshot(page, 'console-admin-audit');
    await context.close();
  });

  it('fits a 390 px phone and suspends a site with the keyboard alone', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await logIn(context);
    for (const path of ['/admin', '/admin/accounts', '/admin/sites', '/admin/purchase-keys', '/admin/audit-log']) {
      await page.goto(`${origin}${path}`);
      await assertNoSidewaysScroll(page);
    }
    await page.goto(`${origin}/admin/sites`);
    await screenshot(page, 'console-admin-phone-sites');

    await tabTo(page, 'Suspend annex', 60);
    const ring = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
    assert.equal(ring, 'solid', 'the focused button shows its focus ring');
    await page.keyboard.press('Enter');
    await page.getByRole('status').getByText('Site annex is suspended').waitFor();
    assert.equal((await findSite(t.deps.database.db, 'annex'))?.status, 'suspended');
    await assertNoSidewaysScroll(page);
    await screenshot(page, 'console-admin-phone-suspended');
    await context.close();
  });
});
