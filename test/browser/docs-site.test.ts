// A built docs site in a real browser, served by Blume's static edge: the sidebar folds and links,
// breadcrumbs, tabs, search from the keyboard, the code copy button clear of the code on a phone,
// and axe finding no serious or critical violation at desktop and phone width, light and dark.
import assert from 'node:assert/strict';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { buildDocsSite } from '../../src/deploy/build/docs-site.js';
import { buildTestApp, signIn, type TestApp } from '../helpers/app.js';
import { siteArchive } from '../helpers/archives.js';
import {
  assertNoSeriousAxeViolations,
  assertNoSidewaysScroll,
  launchChromium,
  screenshot,
  skipWithoutChromium,
} from '../helpers/browser.js';
import { createStaticSite, deployApi, deployRelease } from '../helpers/deploy.js';

const fixture = fileURLToPath(new URL('../fixtures/docs-site/', import.meta.url));

/** Every file under `folder`, by its path relative to it. */
async function filesOf(folder: string): Promise<Record<string, Buffer>> {
  const files: Record<string, Buffer> = {};
  for (const entry of await readdir(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    files[path.relative(folder, full)] = await readFile(full);
  }
  return files;
}

describe('a docs site in a browser', { skip: skipWithoutChromium }, () => {
  let t: TestApp;
  let browser: Browser;
  let scratch: string;
  let site: string;

  before(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'blume-docs-browser-'));
    const source = path.join(scratch, 'docs');
    await cp(fixture, source, { recursive: true });
    const config = JSON.parse(await readFile(path.join(source, 'blume.json'), 'utf8')) as Record<string, unknown>;
    await writeFile(path.join(source, 'blume.json'), JSON.stringify({ ...config, tabs: true }));
    await writeFile(
      path.join(source, 'guide', 'flow.md'),
      '# Flow\n\n```mermaid\ngraph LR\n  A[Write] --> B[Deploy]\n```\n\nThe sum $a+b$ is\n\n$$\n\\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}\n$$\n',
    );
    await buildDocsSite(source, path.join(scratch, 'out'));
    t = await buildTestApp({ database: 'pglite' });
    const token = await createStaticSite(t.app, await signIn(t.app, 'writer'), 'handbook');
    const release = await deployRelease(
      t.app,
      token,
      'handbook',
      await siteArchive(await filesOf(path.join(scratch, 'out'))),
    );
    await deployApi(t.app, token, 'POST', '/api/deploy/handbook/promote', { release });
    const origin = await t.app.listen({ host: '127.0.0.1', port: 0 });
    site = `http://handbook.blume.test:${new URL(origin).port}`;
    browser = await launchChromium({ resolveToLocalhost: ['*.blume.test'], secureOrigins: [site] });
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it('folds sections beside their links, shows breadcrumbs and tabs, and passes axe at desktop width', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme });
      const page = await context.newPage();
      await page.goto(`${site}/reference/api/endpoints/`);
      const crumbs = page.getByRole('navigation', { name: 'Breadcrumb' });
      assert.deepEqual(await crumbs.getByRole('link').allTextContents(), ['Welcome to Acme', 'Reference', 'Api']);
      const tabs = page.getByRole('navigation', { name: 'Sections' });
      assert.equal(await tabs.locator('[aria-current="true"]').textContent(), 'Reference');
      // The section's link navigates; its fold opens and closes without navigating.
      const sidebar = page.getByRole('navigation', { name: 'Documentation' });
      const guide = sidebar.locator('li.nav-section', { has: page.locator('> a[href="/guide/"]') });
      assert.equal(await guide.locator('details').getAttribute('open'), null);
      await guide.locator('summary').click();
      assert.equal(await guide.locator('details').getAttribute('open'), '');
      assert.equal(new URL(page.url()).pathname, '/reference/api/endpoints/');
      await assertNoSeriousAxeViolations(page);
      await screenshot(page, `docs-site-desktop-${colorScheme}`);
      await context.close();
    }
  });

  it('draws Mermaid diagrams in place of their source', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${site}/guide/flow/`);
    const diagram = page.locator('.doc .diagram svg');
    await diagram.waitFor();
    assert.deepEqual(await diagram.locator('.nodeLabel').allTextContents(), ['Write', 'Deploy']);
    assert.equal(await page.locator('code.language-mermaid').count(), 0);
    // Display math: centred in the text column, at least as large as the text around it.
    const formula = await page.locator('.math-display math').evaluate((math) => {
      const box = math.querySelector('mrow')!.getBoundingClientRect();
      const doc = math.closest('.doc')!;
      const column = doc.getBoundingClientRect();
      const size = parseFloat(getComputedStyle(math).fontSize) / parseFloat(getComputedStyle(doc).fontSize);
      return { left: box.left - column.left, right: column.right - box.right, size };
    });
    assert.ok(formula.left > 100 && Math.abs(formula.left - formula.right) < 20, `centred: ${JSON.stringify(formula)}`);
    assert.ok(formula.size >= 1, `sized like the text: ${JSON.stringify(formula)}`);
    await assertNoSeriousAxeViolations(page);
    await screenshot(page, 'docs-site-diagram');
    await context.close();
  });

  it('keeps the copy button clear of the code and passes axe at phone width', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
    const page = await context.newPage();
    await page.goto(`${site}/guide/configure/`);
    await assertNoSidewaysScroll(page);
    const code = page.locator('pre.code').first();
    const button = code.locator('.copy-button');
    await button.waitFor();
    const [buttonBox, firstLine] = await Promise.all([
      button.boundingBox(),
      code.locator('code').evaluate((element) => {
        const range = document.createRange();
        range.setStart(element.firstChild!, 0);
        range.setEnd(element.firstChild!, 1);
        return range.getBoundingClientRect().top;
      }),
    ]);
    assert.ok(buttonBox!.y + buttonBox!.height <= firstLine, 'the copy button sits above the first line of code');
    await assertNoSeriousAxeViolations(page);
    await screenshot(page, 'docs-site-phone');
    await context.close();
  });
});
