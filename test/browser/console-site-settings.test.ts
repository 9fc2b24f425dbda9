// A static site's team, environment variables and domains pages of the console in a real browser,
// at desktop and phone width with axe on each: an owner invites a developer (this server sends no
// mail, so the page shows the link to pass on), who accepts it; a secret variable is never shown
// again; a domain is added, refused twice and removed.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import {
  assertNoSeriousAxeViolations,
  assertNoSidewaysScroll,
  consolePage,
  launchChromium,
  screenshot,
  signUpOnConsole,
  skipWithoutChromium,
} from '../helpers/browser.js';

describe('console team, variables and domains in a browser', { skip: skipWithoutChromium }, () => {
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

  const checked = async (page: Page, name: string) => {
    await assertNoSeriousAxeViolations(page);
    await assertNoSidewaysScroll(page);
    await screenshot(page, name);
  };

  it('invites and accepts, keeps a secret hidden and manages a domain at 1280 px', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signUpOnConsole(page, origin, 'iris');
    await page.getByRole('link', { name: 'Create your first site' }).click();
    await page.getByLabel('Site id').fill('iris-docs');
    await page.getByRole('button', { name: 'Create site' }).click();
    await page.waitForURL(`${origin}/sites/iris-docs`);

    await page.getByRole('navigation', { name: 'Site settings' }).getByRole('link', { name: 'Team' }).click();
    await page.getByRole('heading', { name: 'Team of iris-docs' }).waitFor();
    await page.getByLabel('E-mail address').fill('jon@example.test');
    await page.getByLabel('Role').selectOption('developer');
    await page.getByRole('button', { name: 'Send the invitation' }).click();
    const link = (await page.locator('code.secret').textContent())!;
    assert.match(link, /\/invitations\/[0-9a-z]{16}\./);
    await checked(page, 'console-team');

    const jonContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const jon = await jonContext.newPage();
    await signUpOnConsole(jon, origin, 'jon');
    await jon.goto(`${origin}${new URL(link).pathname}`);
    await jon.getByRole('heading', { name: 'Join iris-docs' }).waitFor();
    await checked(jon, 'console-invitation');
    await jon.getByRole('button', { name: 'Accept the invitation' }).click();
    await jon.getByText('You joined iris-docs as developer.').waitFor();
    assert.equal(await jon.getByRole('button', { name: /^Remove/ }).count(), 0, 'a developer removes nobody');
    await jonContext.close();

    await page.reload();
    await page.getByRole('cell', { name: 'jon@example.test' }).waitFor();
    await page.getByRole('button', { name: 'Remove iris' }).click();
    await page.getByText('The last owner of a site cannot be removed').waitFor();

    await page.goto(`${origin}/sites/iris-docs/env`);
    await page.getByLabel('Name').fill('API_TOKEN');
    await page.getByLabel('Value').fill('sk-browser-secret');
    await page.getByLabel(/Secret: never shown again/).check();
    await page.getByRole('button', { name: 'Save the variable' }).click();
    await page.getByText('Saved API_TOKEN for all builds.').waitFor();
    assert.doesNotMatch(await page.content(), /sk-browser-secret/);
    await page.getByText('secret, not shown').waitFor();
    await page.getByLabel('Name').fill('PATH');
    await page.getByRole('button', { name: 'Save the variable' }).click();
    await page.getByRole('alert').filter({ hasText: 'is reserved' }).waitFor();
    await checked(page, 'console-env');

    await page.goto(`${origin}/sites/iris-docs/domains`);
    await page.getByLabel('Domain', { exact: true }).fill('docs.iris.example.com');
    await page.getByRole('button', { name: 'Add the domain' }).click();
    await page.getByText('docs.iris.example.com now serves iris-docs.').waitFor();
    await page.getByLabel('Domain', { exact: true }).fill('iris-docs.blume.test');
    await page.getByRole('button', { name: 'Add the domain' }).click();
    await page.getByRole('alert').filter({ hasText: "this platform's own hosts" }).waitFor();
    await checked(page, 'console-domains');
    await page.getByRole('button', { name: 'Remove docs.iris.example.com' }).click();
    await page.getByText('docs.iris.example.com was removed.').waitFor();
    await context.close();
  });

  it('fits a 390 px phone on each page', async () => {
    for (const path of ['/sites/iris-docs/team', '/sites/iris-docs/env', '/sites/iris-docs/domains']) {
      const { context, page } = await consolePage(browser, origin, 'iris', path, { width: 390, height: 844 });
      await checked(page, `console-phone-${path.split('/').at(-1)}`);
      await context.close();
    }
  });
});
