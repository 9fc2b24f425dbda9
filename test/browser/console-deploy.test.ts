// The console's deploy flow in a real browser against a listening server: a new user signs up,
// creates a static site, drags files in (with a progress bar), uploads a folder with its sub-folders,
// opens the protected preview with the password the page reveals, promotes, rolls back, mints and
// revokes a deploy token; builds Markdown while the page follows the log and connects a repository.
// Then the same page at phone width, and promote and rollback with the keyboard alone. Screenshots
// are kept in test-artifacts/browser/.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import {
  assertNoSidewaysScroll,
  consolePage,
  launchChromium,
  screenshot,
  signUpOnConsole,
  skipWithoutChromium,
  tabTo,
} from '../helpers/browser.js';
import { testDatabases } from '../helpers/databases.js';

for (const database of testDatabases) {
  describe(`console deploy flow in a browser [${database}]`, { skip: skipWithoutChromium }, () => {
    let t: TestApp;
    let browser: Browser;
    let origin: string;
    let folder: string;

    before(async () => {
      t = await buildTestApp({ database, env: { BLUME_RATE_LOGIN_PER_MINUTE: '100' } });
      origin = await t.app.listen({ host: '127.0.0.1', port: 0 });
      browser = await launchChromium({ resolveToLocalhost: ['*.blume.test'] });
      folder = await mkdtemp(path.join(tmpdir(), 'blume-console-folder-'));
      await mkdir(path.join(folder, 'site', 'about'), { recursive: true });
      await writeFile(path.join(folder, 'site', 'index.html'), '<h1>Folder home</h1>');
      await writeFile(path.join(folder, 'site', 'about', 'index.html'), '<h1>Folder about</h1>');
      await mkdir(path.join(folder, 'docs'));
      await writeFile(path.join(folder, 'docs', 'index.md'), '# Handbook\n\nWelcome.\n');
      await writeFile(path.join(folder, 'docs', 'setup.md'), '# Setup\n\nInstall it.\n');
      await t.app.deploy.builds.start();
    });
    after(async () => {
      await browser?.close();
      await t?.close();
      await rm(folder, { recursive: true, force: true });
    });

    /** The release id the page's notice names after an upload. */
    async function uploadedRelease(page: Page): Promise<string> {
      const text = await page.getByRole('status').filter({ hasText: 'was uploaded' }).textContent();
      return /Release ([a-z0-9]+) was uploaded/.exec(text ?? '')![1]!;
    }

    it('signs up, uploads by drag and drop and by folder, previews, promotes, rolls back and manages tokens', async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      const progress: number[] = [];
      await context.exposeFunction('noteProgress', (value: number) => progress.push(value));
      await signUpOnConsole(page, origin, 'frida');
      await page.getByRole('link', { name: 'Create your first site' }).click();
      await page.getByLabel('Site id').fill('frida');
      await page.getByRole('button', { name: 'Create site' }).click();
      await page.waitForURL(`${origin}/sites/frida`);
      await page.getByText('No releases yet.').waitFor();
      await screenshot(page, `${database}-console-static-empty`);
      // The empty releases tab links to the upload form, which opens its tab.
      await page.getByRole('link', { name: 'Upload a folder or an archive' }).click();
      await page.getByRole('tab', { name: 'Upload', selected: true }).waitFor();

      // Drag files onto the drop zone; a 3 MiB file makes the progress bar move.
      await page.evaluate(() => {
        const bar = document.querySelector('progress')!;
        new MutationObserver(() =>
          (window as unknown as { noteProgress(v: number): void }).noteProgress(bar.value),
        ).observe(bar, { attributes: true, attributeFilter: ['value'] });
      });
      const transfer = await page.evaluateHandle(() => {
        const data = new DataTransfer();
        data.items.add(new File(['<h1>Dropped home</h1>'], 'index.html', { type: 'text/html' }));
        data.items.add(new File([new Uint8Array(3 * 1024 * 1024).fill(97)], 'big.txt', { type: 'text/plain' }));
        return data;
      });
      await page.dispatchEvent('[data-drop]', 'drop', { dataTransfer: transfer });
      await page.getByText('2 files ready').waitFor();
      await screenshot(page, `${database}-console-static-dropped`);
      await page.getByRole('button', { name: 'Upload', exact: true }).click();
      await page.waitForURL(/done=uploaded/);
      const dropped = await uploadedRelease(page);
      assert.ok(progress.length > 0 && progress.at(-1) === 100, `the progress bar moved to 100: ${progress.join(',')}`);

      // A folder from the picker keeps its sub-folders; its lone top folder is the site root.
      await page.getByRole('tab', { name: 'Upload' }).click();
      await page.getByLabel('A folder').setInputFiles(path.join(folder, 'site'));
      await page.getByRole('button', { name: 'Upload', exact: true }).click();
      await page.waitForURL(
        (url) => url.searchParams.get('release') !== dropped && url.searchParams.get('done') === 'uploaded',
      );
      const fromFolder = await uploadedRelease(page);
      await screenshot(page, `${database}-console-static-releases`);

      // The protected preview, opened with the password the page reveals.
      await page.getByRole('link', { name: 'Show the preview password' }).click();
      const password = (await page.locator('#preview-password').textContent())!;
      const previewHref = (await page
        .getByRole('link', { name: `Preview ${fromFolder}`, exact: true })
        .getAttribute('href'))!;
      const visitor = await browser.newContext({ httpCredentials: { username: 'preview', password } });
      const preview = await visitor.newPage();
      await preview.goto(`${previewHref}/about/`);
      await preview.getByRole('heading', { name: 'Folder about' }).waitFor();
      const stranger = await t.app.inject({ method: 'GET', url: '/', headers: { host: new URL(previewHref).host } });
      assert.equal(stranger.statusCode, 401, 'the preview asks for the password');

      // Promote the folder's release, then the dropped one, then roll back.
      for (const release of [fromFolder, dropped]) {
        await page.goto(`${origin}/sites/frida`);
        await page.getByRole('link', { name: `Promote ${release}` }).click();
        await page.getByRole('heading', { name: `Promote ${release}?` }).waitFor();
        await screenshot(page, `${database}-console-static-confirm`);
        await page.getByRole('button', { name: `Promote ${release}` }).click();
        await page.getByText(`Release ${release} is live.`).waitFor();
      }
      const live = await visitor.newPage();
      await live.goto(`http://frida.blume.test:${new URL(origin).port}/`);
      await live.getByRole('heading', { name: 'Dropped home' }).waitFor();
      await page.getByRole('link', { name: `Roll back to ${fromFolder}` }).click();
      await page.getByRole('button', { name: `Roll back to ${fromFolder}` }).click();
      await page.getByText(`release ${fromFolder} is live again`).waitFor();
      await live.reload();
      await live.getByRole('heading', { name: 'Folder home' }).waitFor();

      // Mint a token (shown once, with a copy button), use it, revoke it.
      await page.getByRole('tab', { name: 'Deploy tokens' }).click();
      await page.getByLabel('Token name').fill('laptop');
      await page.getByRole('button', { name: 'Mint a deploy token' }).click();
      const token = (await page.locator('#new-token').textContent())!;
      assert.match(token, /^dpl_/);
      await page.getByRole('button', { name: 'Copy' }).waitFor();
      await screenshot(page, `${database}-console-static-token`);
      const use = await fetch(`${origin}/api/deploy/token`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(use.status, 200);
      await page.goto(`${origin}/sites/frida`);
      assert.equal(await page.locator('#new-token').count(), 0, 'the token is not shown again');
      await page.getByRole('tab', { name: 'Deploy tokens' }).click();
      await page.getByRole('button', { name: 'Revoke laptop' }).click();
      await page.getByText('The deploy token was revoked').waitFor();
      assert.equal(
        (await fetch(`${origin}/api/deploy/token`, { headers: { authorization: `Bearer ${token}` } })).status,
        401,
      );
      await visitor.close();
      await context.close();
    });

    it('builds a folder of Markdown while the page follows the log, and connects a repository', async () => {
      const { context, page } = await consolePage(browser, origin, 'frida', '/sites/frida#upload-h');
      await page.getByLabel('Markdown to build as a docs site').check();
      await page.getByLabel('A folder').setInputFiles(path.join(folder, 'docs'));
      await page.getByRole('button', { name: 'Upload', exact: true }).click();
      await page.waitForURL(/\/sites\/frida\/builds\/[a-z0-9]+$/);
      // The page reloads itself until the build ends; no click is needed to see the outcome.
      await page.locator('[data-build-state]', { hasText: 'succeeded' }).waitFor({ timeout: 60_000 });
      assert.match((await page.getByLabel('Build log').textContent())!, /found 2 Markdown files/);
      await screenshot(page, `${database}-console-static-build`);
      await page.getByRole('link', { name: 'preview it' }).waitFor();

      await page.goto(`${origin}/sites/frida`);
      await page.getByRole('tab', { name: 'Repository' }).click();
      await page.getByRole('textbox', { name: 'Repository', exact: true }).fill('frida/handbook');
      await page.getByLabel('The folder holds').selectOption('markdown');
      await page.getByRole('button', { name: 'Connect' }).click();
      assert.match((await page.locator('#webhook-secret').textContent())!, /^[0-9a-f]{64}$/);
      await page.getByText('/api/deploy/frida/github/webhook').first().waitFor();
      await page.goto(`${origin}/sites/frida`);
      assert.equal(await page.locator('#webhook-secret').count(), 0, 'the secret is shown once');
      await page.getByRole('tab', { name: 'Repository' }).click();
      await page.getByRole('button', { name: 'Disconnect the repository' }).click();
      await page.getByText('The repository was disconnected').waitFor();
      await context.close();
    });

    it('fits a 390 px phone and promotes and rolls back with the keyboard alone', async () => {
      const { context, page } = await consolePage(browser, origin, 'frida', '/sites/frida', {
        width: 390,
        height: 844,
      });
      await assertNoSidewaysScroll(page);
      await screenshot(page, `${database}-console-phone-static-site`);

      const live = (await page.locator('.summary div', { hasText: 'Production' }).locator('code').textContent())!;
      const promote = await tabTo(page, /^Promote [a-z0-9]+$/, 80);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: `${promote}?` }).waitFor();
      await assertNoSidewaysScroll(page);
      await tabTo(page, promote, 80);
      await page.keyboard.press('Enter');
      await page.getByText(/is live\.$/).waitFor();
      assert.notEqual(
        await page.locator('.summary div', { hasText: 'Production' }).locator('code').textContent(),
        live,
      );
      await tabTo(page, `Roll back to ${live}`, 80);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: `Roll back to ${live}?` }).waitFor();
      await tabTo(page, `Roll back to ${live}`, 80);
      await page.keyboard.press('Enter');
      await page.getByText(`release ${live} is live again`).waitFor();
      await screenshot(page, `${database}-console-phone-static-rolled-back`);
      await context.close();
    });
  });
}
