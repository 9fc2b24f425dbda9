// The console in a real browser against a listening server: sign up, create a site (a refused id is
// explained in words), change the password, log out everywhere else, delete the site with its id typed,
// log out and back in. Then the same pages at phone width (390 px) without sideways scrolling, and a
// keyboard-only pass creating a site. Screenshots are kept in test-artifacts/browser/.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { assertNoSidewaysScroll, launchChromium, screenshot, skipWithoutChromium, tabTo } from '../helpers/browser.js';

describe('console in a browser', { skip: skipWithoutChromium }, () => {
  let t: TestApp;
  let browser: Browser;
  let origin: string;

  before(async () => {
    t = await buildTestApp({ database: 'pglite', env: { BLUME_RATE_LOGIN_PER_MINUTE: '100' } });
    origin = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('signs up, creates and deletes a site, changes the password and manages sessions', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${origin}/`);
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    await screenshot(page, 'console-login');
    await page.getByRole('link', { name: 'Sign up' }).first().click();
    await page.getByLabel('Username').fill('dana');
    await page.getByLabel('E-mail').fill('dana@example.test');
    await page.getByLabel('Password').fill('a long enough secret');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(`${origin}/`);
    await page.getByText('You have no sites yet.').waitFor();
    await screenshot(page, 'console-sites-empty');

    await page.getByRole('link', { name: 'Create your first site' }).click();
    await page.getByLabel('Site id').fill('admin');
    await page.getByRole('button', { name: 'Create site' }).click();
    await page.getByRole('alert').getByText('"admin" is reserved').waitFor();
    assert.equal(await page.getByLabel('Site id').inputValue(), 'admin', 'the refused form keeps what was typed');
    await screenshot(page, 'console-site-id-refused');
    await page.getByLabel('Site id').fill('dana-docs');
    await page.getByRole('button', { name: 'Create site' }).click();
    await page.waitForURL(`${origin}/sites/dana-docs`);
    await page.getByRole('link', { name: 'Sites' }).click();
    await page.getByRole('link', { name: 'dana-docs', exact: true }).waitFor();
    await screenshot(page, 'console-sites');

    // A second browser signs in; "log out everywhere else" ends it, not this one.
    const other = await browser.newContext();
    const otherPage = await other.newPage();
    await otherPage.goto(`${origin}/login`);
    await otherPage.getByLabel('Username or e-mail').fill('dana@example.test');
    await otherPage.getByLabel('Password').fill('a long enough secret');
    await otherPage.getByRole('button', { name: 'Log in' }).click();
    await otherPage.getByRole('heading', { name: 'Sites' }).waitFor();
    await page.getByRole('link', { name: 'dana', exact: true }).click();
    assert.equal(await page.locator('tbody tr').count(), 2);
    await screenshot(page, 'console-account');
    await page.getByRole('button', { name: 'Log out everywhere else' }).click();
    await page.getByText('Your other sessions ended.').waitFor();
    assert.equal(await page.locator('tbody tr').count(), 1);
    await otherPage.goto(`${origin}/account`);
    await otherPage.getByRole('heading', { name: 'Log in' }).waitFor();
    await other.close();

    await page.getByLabel('Current password').fill('not the password');
    await page.getByLabel('New password').fill('another long secret');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('alert').getByText('The current password is wrong.').waitFor();
    await page.getByLabel('Current password').fill('a long enough secret');
    await page.getByLabel('New password').fill('another long secret');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Your password was changed').waitFor();

    await page.goto(`${origin}/sites/dana-docs`);
    await page.getByRole('tab', { name: 'Danger zone' }).click();
    await page.getByLabel('Type the site id, dana-docs, to confirm').fill('dana-doc');
    await page.getByRole('button', { name: 'Delete dana-docs' }).click();
    await page.getByRole('alert').getByText('nothing was deleted').waitFor();
    await page.getByLabel('Type the site id, dana-docs, to confirm').fill('dana-docs');
    await page.getByRole('button', { name: 'Delete dana-docs' }).click();
    await page.getByText('Site dana-docs was deleted.').waitFor();
    await page.getByText('You have no sites yet.').waitFor();

    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    await page.getByLabel('Username or e-mail').fill('dana');
    await page.getByLabel('Password').fill('another long secret');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Sites' }).waitFor();
    await context.close();
  });

  it('fits a 390 px phone and creates a site with the keyboard alone', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(`${origin}/signup`);
    await assertNoSidewaysScroll(page);
    await page.getByLabel('Username').fill('erin');
    await page.getByLabel('E-mail').fill('erin@example.test');
    await page.getByLabel('Password').fill('a long enough secret');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Sites' }).waitFor();
    await assertNoSidewaysScroll(page);
    await screenshot(page, 'console-phone-sites');

    // Keyboard only: Tab to "New site", Enter, type the id, Tab to the button, Enter.
    await tabTo(page, 'New site');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'New site' }).waitFor();
    await assertNoSidewaysScroll(page);
    await page.getByLabel('Site id').focus();
    await page.keyboard.type('erin-blog');
    await tabTo(page, 'Create site');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${origin}/sites/erin-blog`);
    await assertNoSidewaysScroll(page);
    await screenshot(page, 'console-phone-site');
    await context.close();
  });
});
