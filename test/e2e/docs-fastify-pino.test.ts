// The docs builder on real-world docs: fastify's and pino's own docs folders (shipped in their npm
// packages, read from node_modules, never copied into the repository), plus one page of our own
// with tabs. Checked as a reader would in Chromium: no HTML tags shown as text, callouts and tabs
// rendered, a word from deep in a long page found by search and linking to its section, the
// results panel and the menu at 390 px, and code colours at 4.5:1 contrast.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { brotliCompressSync } from 'node:zlib';
import type { Browser, BrowserContext } from 'playwright-core';
import { buildDocsSite, type DocsBuildResult } from '../../src/deploy/build/docs-site.js';
import { launchChromium, screenshot, skipWithoutChromium } from '../helpers/browser.js';
import { writeFastifyPinoDocs } from '../helpers/fastify-pino-docs.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css',
  '.js': 'text/javascript',
  '.json': 'application/json',
  '.xml': 'application/xml',
  '.txt': 'text/plain',
};

/** Serves a built site and counts the brotli bytes of every answer, as a compressing server sends. */
function serve(root: string, transferred: { bytes: number }): Promise<Server> {
  const server = createServer((request, response) => {
    let rel = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
    if (rel.endsWith('/')) rel += 'index.html';
    const file = path.join(root, path.normalize(rel));
    readFile(file).then(
      (body) => {
        transferred.bytes += brotliCompressSync(body).length;
        response.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
        response.end(body);
      },
      () => {
        response.writeHead(404);
        response.end();
      },
    );
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const PROSE_TEXT = `(() => {
  const copy = document.querySelector('article').cloneNode(true);
  copy.querySelectorAll('pre, code').forEach((el) => el.remove());
  return copy.textContent;
})()`;

/** Lowest contrast of highlighted code against its block's background (WCAG 2 relative luminance). */
const CONTRAST_CHECK = `(() => {
  const rgb = (css) => (css.match(/[\\d.]+/g) || []).slice(0, 3).map(Number);
  const lum = (c) => {
    const [r, g, b] = c.map((v) => { const s = v / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const ratio = (a, b) => { const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x); return (hi + 0.05) / (lo + 0.05); };
  let min = { ratio: 99, cls: '' };
  document.querySelectorAll('pre.code [class^="hljs-"]').forEach((el) => {
    const r = ratio(rgb(getComputedStyle(el).color), rgb(getComputedStyle(el.closest('pre')).backgroundColor));
    if (r < min.ratio) min = { ratio: r, cls: el.className };
  });
  return min;
})()`;

describe('docs build of the fastify and pino docs', { skip: skipWithoutChromium }, () => {
  let scratch: string;
  let output: string;
  let result: DocsBuildResult;
  let server: Server;
  let origin: string;
  let browser: Browser;
  const transferred = { bytes: 0 };

  before(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'blume-docs-fp-'));
    const input = path.join(scratch, 'in');
    output = path.join(scratch, 'out');
    await writeFastifyPinoDocs(input);
    await writeFile(
      path.join(input, 'install.md'),
      [
        '# Install',
        '',
        '=== "npm"',
        '',
        '    ```bash',
        '    npm install fastify pino',
        '    ```',
        '',
        '=== "yarn"',
        '',
        '    ```bash',
        '    yarn add fastify pino',
        '    ```',
        '',
        'Again:',
        '',
        '=== "npm"',
        '    npm again',
        '',
        '=== "yarn"',
        '    yarn again',
        '',
      ].join('\n'),
    );
    result = await buildDocsSite(input, output, { siteUrl: 'https://docs.test' });
    server = await serve(output, transferred);
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });
  /** Pages in contexts that wait long: the machine running the tests may be busy. */
  const patient = async (options: Parameters<Browser['newContext']>[0] = {}): Promise<BrowserContext> => {
    const context = await browser.newContext(options);
    context.setDefaultTimeout(120_000);
    return context;
  };
  after(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    await rm(scratch, { recursive: true, force: true });
  });

  it('shows no HTML tags as text on any page and keeps one H1 per page', async () => {
    assert.ok(result.pages >= 55, `built ${result.pages} pages`);
    const page = await (await patient()).newPage();
    for (const url of [
      '/fastify/Reference/Server/',
      '/fastify/Reference/Routes/',
      '/fastify/Guides/Getting-Started/',
      '/docs/api/',
      '/docs/transports/',
    ]) {
      await page.goto(origin + url);
      // Prose only: code examples may show tags on purpose.
      const text = (await page.evaluate(PROSE_TEXT)) as string;
      assert.doesNotMatch(text, /<\/?(a|h1|div|details|sup|b|p|br|img)\b[^>]*>/i, `${url} shows a tag as text`);
      assert.equal(await page.locator('h1').count(), 1, `${url} has one H1`);
      const description = (await page.locator('meta[name=description]').getAttribute('content')) ?? '';
      assert.doesNotMatch(description, /<\/?[a-z][a-z0-9]*\b[^>]*>/i, `${url} has a tag in its description`);
    }
    await page.context().close();
  });

  it('renders the GitHub alert and tabs that switch without and sync with JavaScript', async () => {
    const page = await (await patient()).newPage();
    // The packages hold one GitHub alert; find the page it is on.
    const files = (await readdir(output, { recursive: true })).filter((f) => f.endsWith('.html'));
    const pages = await Promise.all(
      files.map(async (f) => ({ f, html: await readFile(path.join(output, f), 'utf8') })),
    );
    const withAlert = pages.find((p) => p.html.includes('class="callout callout-'));
    assert.ok(withAlert, 'a page renders a callout');
    await page.goto(`${origin}/${withAlert.f.replace(/index\.html$/, '')}`);
    assert.ok(await page.locator('.callout .callout-title').first().isVisible());

    await page.goto(`${origin}/install/`);
    const panels = page.locator('.tab-panel');
    assert.equal(await panels.nth(0).isVisible(), true);
    assert.equal(await panels.nth(1).isVisible(), false);
    await page.locator('label.tab-label', { hasText: 'yarn' }).first().click();
    assert.equal(await panels.nth(1).isVisible(), true);
    assert.equal(await panels.nth(3).isVisible(), true, 'the second group follows the label');
    await screenshot(page, 'docs-tabs');

    const noScript = await patient({ javaScriptEnabled: false });
    const plain = await noScript.newPage();
    await plain.goto(`${origin}/install/`);
    await plain.locator('label.tab-label', { hasText: 'yarn' }).first().click();
    assert.equal(await plain.locator('.tab-panel').nth(1).isVisible(), true, 'tabs switch without JavaScript');
    await noScript.close();
    await page.context().close();
  });

  it('finds a word from deep in a long page, links to its section, and loads little', async () => {
    const context = await patient({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
    const page = await context.newPage();
    await page.goto(`${origin}/docs/api/`);
    transferred.bytes = 0;
    await page.locator('#search-input').fill('econnreset');
    const first = page.locator('#search-results a').first();
    await first.waitFor();
    const href = (await first.getAttribute('href')) ?? '';
    assert.match(href, /^\/fastify\/Reference\/Server\/#[\w-]+$/);
    assert.ok(transferred.bytes < 100_000, `first search transferred ${transferred.bytes} bytes`);
    const box = await page.locator('#search-results').boundingBox();
    assert.ok(
      box !== null && box.x >= 0 && box.x + box.width <= 390,
      `results panel fits 390 px: ${JSON.stringify(box)}`,
    );
    await screenshot(page, 'docs-search-390');
    await first.click();
    await page.waitForURL(/\/fastify\/Reference\/Server\/#/);
    const id = decodeURIComponent(new URL(page.url()).hash.slice(1));
    assert.ok((await page.locator(`[id="${id}"]`).count()) === 1, 'the section exists');
    await context.close();
  });

  it('on a phone: menu closes on Escape and outside tap, hidden links leave the tab order, copy button and contents show', async () => {
    const context = await patient({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
    const page = await context.newPage();
    await page.goto(`${origin}/fastify/Reference/Server/`);
    const navLink = page.locator('#sidebar a').first();
    assert.equal(await navLink.isVisible(), false);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    assert.equal(
      await page.evaluate(() => document.activeElement?.closest('#sidebar') === null),
      true,
      'closed menu links are not focusable',
    );
    await page.locator('#menu-button').click();
    await navLink.waitFor({ state: 'visible' });
    await page.keyboard.press('Escape');
    await navLink.waitFor({ state: 'hidden' });
    await page.locator('#menu-button').click();
    await navLink.waitFor({ state: 'visible' });
    await page.mouse.click(380, 600);
    await navLink.waitFor({ state: 'hidden' });
    assert.equal(await page.locator('.toc-inline').isVisible(), true, 'On this page shows below 1200 px');
    const pre = page.locator('pre.code[data-lang]').first();
    const copy = pre.locator('.copy-button');
    assert.equal(await copy.evaluate((b) => getComputedStyle(b).opacity), '1', 'copy button visible on touch');
    const label = await pre.evaluate((el) => {
      const after = getComputedStyle(el, '::after');
      return { right: parseFloat(after.right), width: el.getBoundingClientRect().width };
    });
    const button = (await copy.boundingBox())!;
    const preBox = (await pre.boundingBox())!;
    assert.ok(
      preBox.x + preBox.width - label.right <= button.x || label.right >= preBox.x + preBox.width - button.x,
      'the language label ends left of the copy button',
    );
    await screenshot(page, 'docs-phone');
    await context.close();
  });

  it('code colours reach 4.5:1 contrast in the light theme', async () => {
    const page = await (await patient()).newPage();
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(`${origin}/fastify/Reference/Server/`);
    // A string, so the test compiler adds no helpers the page does not have.
    const worst = (await page.evaluate(CONTRAST_CHECK)) as { ratio: number; cls: string };
    assert.ok(worst.ratio >= 4.5, `${worst.cls} has contrast ${worst.ratio.toFixed(2)}`);
    await page.context().close();
  });
});
