// A community site's page of the console in a real browser: the settings editor (typed inputs, a
// secret never shown, the pending changes and the restart that applies them, seen on the forum), and
// an API key minted with scopes (shown once, with a copy button) and revoked. Then the page at phone
// width. Screenshots are kept in test-artifacts/browser/.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import {
  assertNoSidewaysScroll,
  consolePage,
  launchChromium,
  screenshot,
  signUpOnConsole,
  skipWithoutChromium,
} from '../helpers/browser.js';

describe('console community site in a browser', { skip: skipWithoutChromium }, () => {
  let t: TestApp;
  let browser: Browser;
  let origin: string;

  before(async () => {
    t = await buildTestApp({ database: 'pglite', env: { BLUME_RATE_LOGIN_PER_MINUTE: '100' } });
    origin = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium({ resolveToLocalhost: ['*.blume.test'] });
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('edits settings, restarts to apply them, and mints and revokes an API key', async () => {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    const page = await context.newPage();
    await signUpOnConsole(page, origin, 'hana');
    await page.getByRole('link', { name: 'Create your first site' }).click();
    await page.getByLabel('Site id').fill('hana-club');
    await page.getByLabel('Kind').selectOption('community');
    await page.getByRole('button', { name: 'Create site' }).click();
    await page.waitForURL(`${origin}/sites/hana-club`);

    await page.getByRole('tab', { name: 'Settings' }).click();
    await page.getByLabel('Community title').fill("Hana's Club");
    await page.getByLabel('Open sign-up').selectOption('false');
    await page.getByLabel('SMTP password').fill('smtp-secret-value');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('The settings were saved.').waitFor();
    await page.getByRole('tab', { name: 'Settings' }).click();
    const pending = page.getByRole('status').filter({ hasText: 'Saved but not applied yet' });
    assert.match((await pending.textContent())!, /FORUM_TITLE added.*MAIL_PASSWORD added.*REGISTRATION_OPEN added/s);
    assert.equal(await page.getByLabel('SMTP password').inputValue(), '', 'the secret is never sent back');
    assert.equal(await page.getByLabel('SMTP password').getAttribute('placeholder'), 'set; type to replace');
    await screenshot(page, 'console-community-pending');
    await page.getByRole('button', { name: 'Restart to apply 3 changes' }).click();
    await page.getByText('Restarted: 3 changes applied on every node.').waitFor();

    const forum = await context.newPage();
    await page.getByRole('tab', { name: 'Open the community' }).click();
    await page.getByRole('link', { name: 'Forum', exact: true }).click();
    await page.getByText("Hana's Club").first().waitFor();
    await forum.close();
    await page.goBack();

    await page.getByRole('tab', { name: 'API keys' }).click();
    await page.getByLabel('Key name').fill('website');
    await page.getByLabel('cms-read').check();
    await page.getByRole('button', { name: 'Mint an API key' }).click();
    const key = (await page.locator('#new-key').textContent())!;
    assert.match(key, /^blu_sk_/);
    await page.getByRole('button', { name: 'Copy' }).click();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), key);
    await screenshot(page, 'console-community-key');
    await page.goto(`${origin}/sites/hana-club`);
    assert.equal(await page.locator('#new-key').count(), 0);
    await page.getByRole('tab', { name: 'API keys' }).click();
    await page.getByRole('button', { name: 'Revoke website' }).click();
    await page.getByText('The API key was revoked').waitFor();
    await context.close();
  });

  it('fits a 390 px phone', async () => {
    const { context, page } = await consolePage(browser, origin, 'hana', '/sites/hana-club', {
      width: 390,
      height: 844,
    });
    await assertNoSidewaysScroll(page);
    await screenshot(page, 'console-phone-community-site');
    await context.close();
  });
});
