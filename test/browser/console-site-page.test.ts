// A site's page in a real browser, light and dark, at 1280 and 390 px: the summary and the tabs
// (keyboard included), releases that say how they were made, their cards on a phone with Promote
// and Stage in view, a shared preview link opened by a stranger without the password, the build
// page's Promote button, and a community site's grouped settings. axe runs on each page.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { buildTestApp, json, type TestApp } from '../helpers/app.js';
import { siteArchive, tarball } from '../helpers/archives.js';
import {
  assertNoSeriousAxeViolations,
  assertNoSidewaysScroll,
  CONSOLE_PASSWORD,
  consolePage,
  launchChromium,
  screenshot,
  signUpOnConsole,
  skipWithoutChromium,
} from '../helpers/browser.js';
import { testDatabases } from '../helpers/databases.js';
import { deployRelease, uploadSource } from '../helpers/deploy.js';

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

/** The page's background is dark (or light) as the colour scheme asks. */
async function assertScheme(page: Page, scheme: 'light' | 'dark'): Promise<void> {
  const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const [r, g, b] = background.match(/\d+/g)!.map(Number) as [number, number, number];
  const light = (r + g + b) / 3 > 128;
  assert.equal(light, scheme === 'light', `${scheme} background, got ${background}`);
}

for (const database of testDatabases) {
  describe(`console site page in a browser [${database}]`, { skip: skipWithoutChromium }, () => {
    let t: TestApp;
    let browser: Browser;
    let origin: string;
    let token: string;
    let uploaded: string;
    let built: { id: string; build_id: string };

    before(async () => {
      t = await buildTestApp({ database, env: { BLUME_RATE_LOGIN_PER_MINUTE: '100' } });
      origin = await t.app.listen({ host: '127.0.0.1', port: 0 });
      browser = await launchChromium({ resolveToLocalhost: ['*.blume.test'] });
      await t.app.deploy.builds.start();
      const context = await browser.newContext({ viewport: DESKTOP });
      const page = await context.newPage();
      await signUpOnConsole(page, origin, 'gale');
      await page.goto(`${origin}/sites/new`);
      await page.getByLabel('Site id').fill('gale');
      await page.getByRole('button', { name: 'Create site' }).click();
      await page.waitForURL(`${origin}/sites/gale`);
      await page.getByRole('tab', { name: 'Deploy tokens' }).click();
      await page.getByLabel('Token name').fill('ci');
      await page.getByRole('button', { name: 'Mint a deploy token' }).click();
      token = (await page.locator('#new-token').textContent())!;
      await page.goto(`${origin}/sites/new`);
      await page.getByLabel('Site id').fill('gale-club');
      await page.getByLabel('Kind').selectOption('community');
      await page.getByRole('button', { name: 'Create site' }).click();
      await page.waitForURL(`${origin}/sites/gale-club`);
      await context.close();
      uploaded = await deployRelease(t.app, token, 'gale', await siteArchive({ 'index.html': '<h1>Shared page</h1>' }));
      const response = await uploadSource(
        t.app,
        token,
        'gale',
        await tarball([{ name: 'index.md', content: '# Built page\n\nFrom Markdown.\n' }]),
      );
      assert.equal(response.statusCode, 201, response.body);
      built = json(response);
    });
    after(async () => {
      await browser?.close();
      await t?.close();
    });

    it('shows a summary and tabs that follow the keyboard, with releases that say how they were made', async () => {
      const { context, page } = await consolePage(browser, origin, 'gale', '/sites/gale');
      const summary = page.locator('dl.summary');
      await summary.getByText('nothing live yet').waitFor();
      await summary.locator('code', { hasText: built.id }).waitFor();
      const releasesTab = page.getByRole('tab', { name: 'Releases' });
      assert.equal(await releasesTab.getAttribute('aria-selected'), 'true');
      assert.equal(await page.locator('#upload').isVisible(), false, 'other tabs are hidden');
      await releasesTab.focus();
      await page.keyboard.press('ArrowRight');
      assert.equal(await page.getByRole('tab', { name: 'Builds', selected: true }).count(), 1);
      assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Builds');
      await page.keyboard.press('End');
      await page.getByRole('tab', { name: 'Danger zone', selected: true }).waitFor();
      await page.getByRole('button', { name: 'Delete gale' }).waitFor();
      await page.keyboard.press('ArrowRight');
      await page.getByRole('tab', { name: 'Releases', selected: true }).waitFor();

      const rows = page.locator('table.cards-on-phone tbody tr');
      const uploadRow = rows.filter({ hasText: uploaded });
      await uploadRow.getByText('Uploaded').waitFor();
      await uploadRow.getByText('by deploy token "ci"').waitFor();
      const buildRow = rows.filter({ hasText: built.id });
      await buildRow.getByText('Built from Markdown').waitFor();
      await buildRow.getByText(/built in [\d.]+ s/).waitFor();
      await assertNoSeriousAxeViolations(page);
      await screenshot(page, `${database}-console-site-tabs`);

      // Without JavaScript the tabs are in-page links and every section shows.
      const plain = await browser.newContext({ viewport: DESKTOP, javaScriptEnabled: false });
      const cookies = await context.cookies();
      await plain.addCookies(cookies);
      const still = await plain.newPage();
      await still.goto(`${origin}/sites/gale`);
      assert.equal(await still.getByRole('tab').count(), 0);
      assert.ok(await still.getByRole('button', { name: 'Upload', exact: true }).isVisible());
      assert.equal(await still.getByRole('link', { name: 'Upload', exact: true }).getAttribute('href'), '#upload-h');
      await plain.close();
      await context.close();
    });

    it('shares a preview link a stranger opens without the password until a new password, and promotes from the build page', async () => {
      const { context, page } = await consolePage(browser, origin, 'gale', '/sites/gale');
      await page.getByLabel('Release', { exact: true }).selectOption(uploaded);
      await page.getByLabel('Works for').selectOption({ label: '1 hour' });
      await page.getByRole('button', { name: 'Make a preview link' }).click();
      const link = (await page.locator('#preview-link').textContent())!;
      assert.match(link, new RegExp(`^http://r-${uploaded}--gale\\.blume\\.test(:\\d+)?/\\?preview_token=`));
      await assertNoSeriousAxeViolations(page);
      const stranger = await browser.newContext();
      const visit = await stranger.newPage();
      await visit.goto(link);
      await visit.getByRole('heading', { name: 'Shared page' }).waitFor();
      assert.equal(new URL(visit.url()).search, '', 'the token leaves the address');
      await visit.reload();
      await visit.getByRole('heading', { name: 'Shared page' }).waitFor();

      // A new preview password stops the link, and the stranger's cookie from it, at once.
      await page.getByRole('button', { name: 'Change the preview password' }).click();
      await page.getByText('The preview password changed').waitFor();
      assert.match((await page.locator('#preview-password').textContent())!, /^[A-Za-z0-9]{24}$/);
      await assertNoSeriousAxeViolations(page);
      // Chromium, asked for a password it does not have, ends the navigation.
      await assert.rejects(visit.reload(), /ERR_INVALID_AUTH_CREDENTIALS/);
      await assert.rejects(visit.goto(link), /ERR_INVALID_AUTH_CREDENTIALS/);
      await stranger.close();

      await page.goto(`${origin}/sites/gale/builds/${built.build_id}`);
      await assertNoSeriousAxeViolations(page);
      await page.getByRole('button', { name: `Promote ${built.id}` }).click();
      await page.getByText(`Release ${built.id} is live.`).waitFor();
      await page.locator('dl.summary').getByText(built.id).first().waitFor();
      await context.close();
    });

    for (const scheme of ['light', 'dark'] as const) {
      it(`turns releases into cards on a 390 px phone, ${scheme}`, async () => {
        const context = await browser.newContext({ viewport: PHONE, colorScheme: scheme });
        const { page } = await consoleIn(context);
        await page.goto(`${origin}/sites/gale`);
        await assertScheme(page, scheme);
        await assertNoSidewaysScroll(page);
        const card = page.locator('table.cards-on-phone tbody tr').filter({ hasText: uploaded });
        for (const name of [`Promote ${uploaded}`, `Stage ${uploaded}`]) {
          const box = (await card.getByRole('link', { name }).boundingBox())!;
          assert.ok(box.x >= 0 && box.x + box.width <= PHONE.width, `${name} is in view: ${JSON.stringify(box)}`);
        }
        await assertNoSeriousAxeViolations(page);
        await screenshot(page, `${database}-console-phone-cards-${scheme}`);
        await context.close();
      });

      it(`passes axe on every console page at both widths, ${scheme}`, async () => {
        for (const viewport of [DESKTOP, PHONE]) {
          const context = await browser.newContext({ viewport, colorScheme: scheme });
          const { page } = await consoleIn(context);
          for (const path of [
            '/',
            '/sites/new',
            '/account',
            '/sites/gale',
            `/sites/gale/builds/${built.build_id}`,
            `/sites/gale/releases/${uploaded}/stage`,
            '/sites/gale-club',
          ]) {
            await page.goto(`${origin}${path}`);
            await assertScheme(page, scheme);
            await assertNoSidewaysScroll(page);
            await assertNoSeriousAxeViolations(page);
          }
          await context.close();
        }
      });
    }

    it("groups a community site's settings with readable labels", async () => {
      const { context, page } = await consolePage(browser, origin, 'gale', '/sites/gale-club#settings-h');
      await page.getByRole('tab', { name: 'Settings', selected: true }).waitFor();
      const mail = page.getByRole('group', { name: 'Mail' });
      await mail.getByLabel('SMTP server').waitFor();
      await mail.getByText('MAIL_SERVER').waitFor();
      const legends = await page.locator('form.settings legend').allTextContents();
      assert.deepEqual(legends.slice(0, 2), ['Community', 'Trust and spam']);
      await page.getByLabel('Community title').fill('Gale club');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.getByText('The settings were saved').waitFor();
      await page.getByRole('tab', { name: 'Settings', selected: true }).waitFor();
      await screenshot(page, `${database}-console-community-settings`);
      await context.close();
    });

    /** Logs in on a context made with its own viewport and colour scheme. */
    async function consoleIn(context: Awaited<ReturnType<Browser['newContext']>>): Promise<{ page: Page }> {
      const page = await context.newPage();
      await page.goto(`${origin}/login`);
      await page.getByLabel('Username or e-mail').fill('gale');
      await page.getByLabel('Password').fill(CONSOLE_PASSWORD);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('heading', { name: 'Sites' }).waitFor();
      return { page };
    }
  });
}
