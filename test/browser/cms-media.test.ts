// The CMS media library and lists in a real browser (Debian chromium driven by playwright-core),
// at desktop and phone width: an image is uploaded through the library's grid and its alt text set;
// an entry's media field picks it from the library's dialog and shows its thumbnail; an image pasted
// into the Markdown box is uploaded and inserted at the cursor; a list's columns are chosen and it is
// filtered by a related entry's title and by a date range. axe finds no serious or critical
// violation on any of these pages. Screenshots are kept in test-artifacts/browser/.
import assert from 'node:assert/strict';
import path from 'node:path';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { mintCredential } from '../../src/core/credentials/service.js';
import type { TestApp } from '../helpers/app.js';
import { assertNoSeriousAxeViolations, screenshot, skipWithoutChromium } from '../helpers/browser.js';
import { startBrowserTown, type BrowserTown } from '../helpers/browser-town.js';
import { solidPng } from '../helpers/images.js';

describe('CMS media library and lists in a browser', { skip: skipWithoutChromium }, () => {
  let town: BrowserTown;
  let t: TestApp;
  let browser: Browser;
  let origin: string;
  let logIn: (page: Page) => Promise<void>;
  let folder: string;
  let key: string;

  const api = async (method: string, apiPath: string, body?: object) => {
    const response = await fetch(`${origin}/api/cms/v1${apiPath}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    assert.ok(response.ok, `${method} ${apiPath}: ${response.status} ${await response.clone().text()}`);
    return (await response.json()) as { id: string; data: Record<string, unknown> };
  };

  const fitsWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

  before(async () => {
    town = await startBrowserTown('business');
    ({ t, browser, origin, logIn } = town);
    folder = await mkdtemp(path.join(tmpdir(), 'blume-media-'));
    ({ token: key } = await mintCredential(t.app.deps.database.db, {
      kind: 'api_key',
      name: 'site',
      siteId: 'town',
      scopes: ['admin'],
    }));
  });
  after(() => town?.close());

  for (const [width, height, name] of [
    [1280, 900, 'desktop'],
    [390, 844, 'phone'],
  ] as const)
    it(`uploads, describes and picks media, pastes an image, chooses columns and filters (${name})`, async () => {
      const context = await browser.newContext({ viewport: { width, height } });
      const page = await context.newPage();
      await logIn(page);
      const file = path.join(folder, `lighthouse-${name}.png`);
      await writeFile(file, solidPng(64, 48, [30, 120, 200]));

      // The library: upload with alt text, then change the alt text on the card.
      await page.goto(`${origin}/admin/media`);
      await page.getByLabel('Alt text', { exact: true }).fill(`A lighthouse (${name})`);
      await page.getByLabel('File').setInputFiles(file);
      await page.getByRole('button', { name: 'Upload', exact: true }).click();
      await page.waitForURL(/\/admin\/media#media-/);
      const thumb = page.getByRole('img', { name: `A lighthouse (${name})`, exact: true });
      await thumb.waitFor();
      assert.deepEqual(
        [await thumb.getAttribute('width'), await thumb.getAttribute('height'), await thumb.getAttribute('loading')],
        ['64', '48', 'lazy'],
      );
      assert.ok(await page.getByText('64 × 48 px').first().isVisible());
      await page.getByLabel(`Alt text of lighthouse-${name}.png`).fill(`A white lighthouse (${name})`);
      await page.getByRole('button', { name: `Save alt text of lighthouse-${name}.png` }).click();
      await page.getByText('Alt text saved.').waitFor();
      await page.getByRole('img', { name: `A white lighthouse (${name})`, exact: true }).waitFor();
      assert.ok(await fitsWidth(page), 'the grid fits the width');
      await assertNoSeriousAxeViolations(page);
      await screenshot(page, `cms-media-grid-${name}`);

      // The entry form: the cover picked from the library's dialog, an image pasted into the body.
      await page.goto(`${origin}/admin/content/articles/new`);
      await page.getByLabel('Title (required)').fill(`Lighthouse ${name}`);
      await page.getByRole('button', { name: 'Choose from the library…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Cover image: choose media' });
      await dialog.waitFor();
      await dialog.getByLabel('Search media (name or alt text)').fill(`lighthouse-${name}`);
      assert.equal(await dialog.getByRole('status').textContent(), '1 choice');
      await assertNoSeriousAxeViolations(page);
      await screenshot(page, `cms-media-dialog-${name}`);
      await dialog.getByRole('button', { name: new RegExp(`^lighthouse-${name}\\.png`) }).click();
      await dialog.waitFor({ state: 'hidden' });
      const cover = await page.getByLabel('Cover image', { exact: true }).inputValue();
      assert.match(cover, /^\/media\/[a-z0-9]+$/);
      await page.locator(`[data-media-thumb] img[src="${cover}"]`).waitFor();

      const body = page.getByLabel('Body', { exact: true });
      await body.fill('Before. After.');
      await body.evaluate((box: HTMLTextAreaElement) => box.setSelectionRange(8, 8));
      await body.evaluate(async (box: HTMLTextAreaElement) => {
        const bytes = Uint8Array.from(
          atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='),
          (c) => c.charCodeAt(0),
        );
        const transfer = new DataTransfer();
        transfer.items.add(new File([bytes], 'gulls.png', { type: 'image/png' }));
        box.dispatchEvent(new ClipboardEvent('paste', { clipboardData: transfer, bubbles: true, cancelable: true }));
      });
      await page.getByRole('status').filter({ hasText: 'Uploaded gulls.png to the media library' }).waitFor();
      assert.match(await body.inputValue(), /^Before\. !\[gulls\]\(\/media\/[a-z0-9]+\)After\.$/);
      await page.keyboard.type('Gulls on the rail');
      assert.match(await body.inputValue(), /^Before\. !\[Gulls on the rail\]\(\/media\/[a-z0-9]+\)After\.$/);
      await page.locator('[data-preview] img[alt="Gulls on the rail"]').waitFor();
      assert.ok(await fitsWidth(page), 'the form fits the width');
      await assertNoSeriousAxeViolations(page);
      await screenshot(page, `cms-media-pasted-${name}`);
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.waitForURL(/\?saved=1$/);
      await page.locator(`[data-media-thumb] img[src="${cover}"]`).waitFor();

      // A list: columns chosen, then filtered by the related article's title and by a date range.
      const slug = `talks-${name}`;
      await api('POST', '/content-types', {
        slug,
        name: `Talks ${name}`,
        fields: [
          { name: 'title', type: 'text' },
          { name: 'room', type: 'text', options: { max_length: 40 } },
          { name: 'held_on', type: 'datetime' },
          { name: 'article', type: 'relation', options: { type: 'articles' } },
        ],
      });
      const article = (await api(
        'GET',
        `/entries/articles?status=any&filter[title][eq]=${encodeURIComponent(`Lighthouse ${name}`)}`,
      )) as unknown;
      const articleId = (article as Array<{ id: string }>)[0]!.id;
      await api('POST', `/entries/${slug}`, {
        data: { title: 'Opening talk', room: 'Hall', held_on: '2026-06-01T10:00:00Z', article: articleId },
      });
      await api('POST', `/entries/${slug}`, {
        data: { title: 'Closing talk', room: 'Deck', held_on: '2026-06-20T16:00:00Z' },
      });

      await page.goto(`${origin}/admin/content/${slug}`);
      await page.getByText('Columns', { exact: true }).click();
      await page.getByLabel('Room', { exact: true }).uncheck();
      await page.getByRole('button', { name: 'Save columns' }).click();
      await page.waitForURL(`${origin}/admin/content/${slug}`);
      assert.equal(await page.getByRole('columnheader', { name: /^Room/ }).count(), 0);
      await page.getByRole('columnheader', { name: /^Held on/ }).waitFor();

      const titles = () => page.locator('table.list tbody tr td:nth-child(2) a').allTextContents();
      await page.getByLabel('Article (title has)').fill('lighthouse');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/related%5Barticle%5D=lighthouse/);
      assert.deepEqual(await titles(), ['Opening talk']);
      await assertNoSeriousAxeViolations(page);
      await screenshot(page, `cms-list-relation-filter-${name}`);

      await page.getByLabel('Article (title has)').fill('');
      await page.getByRole('group', { name: 'Held on' }).getByLabel('From').fill('2026-06-15');
      await page.getByRole('group', { name: 'Held on' }).getByLabel('To').fill('2026-06-30');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/held_on%5D%5Bgte%5D=2026-06-15/);
      assert.deepEqual(await titles(), ['Closing talk']);
      assert.ok(await fitsWidth(page), 'the list fits the width');
      await assertNoSeriousAxeViolations(page);
      await screenshot(page, `cms-list-date-filter-${name}`);
      await context.close();
    });
});
