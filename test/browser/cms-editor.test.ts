// The CMS editor in a real browser (Debian chromium driven by playwright-core) against a listening
// single-instance server: the first admin writes an article with the generated form (tags separated
// by commas), previews its Markdown live and through the server, saves a draft, uploads a picture in the media library, picks it
// as the cover and publishes; the Content API then serves the entry. Every editor page fits a 390 px
// phone. A relation is picked by searching the related entries by title, at both widths; axe finds
// no serious or critical violation on the entry forms.
// Screenshots are kept in test-artifacts/browser/.
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

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

describe('CMS editor in a browser', { skip: skipWithoutChromium }, () => {
  let town: BrowserTown;
  let t: TestApp;
  let browser: Browser;
  let origin: string;
  let logIn: (page: Page) => Promise<void>;
  let picture: string;

  before(async () => {
    town = await startBrowserTown('business');
    ({ t, browser, origin, logIn } = town);
    picture = path.join(await mkdtemp(path.join(tmpdir(), 'blume-editor-')), 'harbour.png');
    await writeFile(picture, PNG);
  });
  after(() => town?.close());

  it('writes, previews, illustrates and publishes an article', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await logIn(page);
    await page.getByRole('link', { name: 'Admin' }).click();
    await page.getByRole('link', { name: 'Content', exact: true }).click();
    await page.getByRole('link', { name: 'Media library' }).click();
    await page.getByLabel('File').setInputFiles(picture);
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.waitForURL(/\/admin\/media#media-[a-z0-9]+$/);
    assert.ok(await page.getByRole('link', { name: 'harbour.png', exact: true }).isVisible());
    await screenshot(page, 'cms-media-library');

    await page.goto(`${origin}/admin/content/articles/new`);
    await page.getByLabel('Title (required)').fill('Harbour festival');
    // The toolbar marks up the text and the preview beside the box follows the typing.
    await page.getByLabel('Body', { exact: true }).fill('Boats ');
    await page.getByRole('toolbar', { name: 'Body: formatting' }).getByRole('button', { name: 'Bold' }).click();
    assert.equal(await page.getByLabel('Body', { exact: true }).inputValue(), 'Boats **bold text**');
    await page.locator('[data-preview] strong', { hasText: 'bold text' }).waitFor();
    await page.getByLabel('Body', { exact: true }).fill('Boats, **music** and food.');
    await page.locator('[data-preview] strong', { hasText: 'music' }).waitFor();
    await screenshot(page, 'cms-entry-live-preview');
    await page.getByLabel('Tags').fill('festival, music');
    await page.getByRole('button', { name: 'Preview' }).click();
    assert.equal(
      await page.locator('[data-preview] strong').textContent(),
      'music',
      'the round trip fills the pane too',
    );
    assert.equal(await page.getByLabel('Title (required)').inputValue(), 'Harbour festival');
    await screenshot(page, 'cms-entry-preview');
    await assertNoSeriousAxeViolations(page);

    await page.getByLabel('Slug').fill('harbour-festival');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/admin\/content\/articles\/[a-z0-9]+\?saved=1$/);
    assert.ok(await page.getByText('Saved.').isVisible());

    await page.getByLabel('Cover image', { exact: true }).selectOption({ label: 'harbour.png' });
    await page.getByLabel('Status').selectOption('published');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\?saved=1$/);
    await screenshot(page, 'cms-entry-published');

    const { token: key } = await mintCredential(t.app.deps.database.db, {
      kind: 'api_key',
      name: 'site',
      siteId: 'town',
      scopes: ['cms-read'],
    });
    const served = await fetch(`${origin}/api/cms/v1/entries/articles/harbour-festival`, {
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(served.status, 200);
    const entry = (await served.json()) as {
      status: string;
      data: { title: string; cover_image: string; tags: string[] };
    };
    assert.equal(entry.status, 'published');
    assert.deepEqual(entry.data.tags, ['festival', 'music']);
    assert.equal(entry.data.title, 'Harbour festival');
    const cover = await fetch(`${origin}${entry.data.cover_image}`);
    assert.equal(cover.headers.get('content-type'), 'image/png');
    assert.deepEqual(Buffer.from(await cover.arrayBuffer()), PNG);

    await page.goto(`${origin}/admin/content/articles`);
    await page.getByRole('link', { name: /^Author \(sort ascending\)/ }).click();
    await page.waitForURL(/sort=author/);
    assert.equal(await page.getByRole('columnheader', { name: /Author/ }).getAttribute('aria-sort'), 'ascending');
    await assertNoSeriousAxeViolations(page);
    await screenshot(page, 'cms-entries-sorted');
    await context.close();
  });

  for (const [width, height, name] of [
    [1280, 900, 'desktop'],
    [390, 844, 'phone'],
  ] as const)
    it(`picks a related article by searching its title, then deletes the entry from the list (${name})`, async () => {
      const context = await browser.newContext({ viewport: { width, height } });
      const page = await context.newPage();
      await logIn(page);
      await page.goto(`${origin}/admin/content`);
      await page.getByLabel('Name', { exact: true }).fill(`Talks ${name}`);
      await page.getByLabel('Slug', { exact: true }).fill(`talks-${name}`);
      await page.getByLabel('Field 1 name').fill('title');
      await page.getByLabel('Field 2 name').fill('article');
      await page.getByLabel('Field 2 type').selectOption('relation');
      await page.getByText('Field 2 choices and rules').click();
      await page.getByLabel('Field 2 related type (relation), its slug').fill('articles');
      await page.getByRole('button', { name: 'Create type' }).click();
      await page.waitForURL(`${origin}/admin/content/talks-${name}`);

      await page.goto(`${origin}/admin/content/talks-${name}/new`);
      await page.getByLabel('Title', { exact: true }).fill('Sea shanties');
      await page.getByLabel('Search Articles by title').fill('harb');
      await page.getByRole('button', { name: 'Search Articles' }).click();
      const found = page.getByRole('radio', { name: /^Harbour festival/ });
      await found.waitFor();
      assert.equal(await page.getByLabel('Title', { exact: true }).inputValue(), 'Sea shanties');
      assert.ok(await page.getByRole('radio', { name: 'None' }).isChecked());
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth));
      await assertNoSeriousAxeViolations(page);
      await screenshot(page, `cms-relation-search-${name}`);

      await found.check();
      await page.getByRole('button', { name: 'Save' }).click();
      await page.waitForURL(/\?saved=1$/);
      const chosen = page.getByRole('radio', { name: /^Harbour festival/ });
      assert.ok(await chosen.isChecked(), 'the chosen article is shown by its title');
      await assertNoSeriousAxeViolations(page);

      // Unpublished, then deleted after the confirmation, from the list.
      await page.goto(`${origin}/admin/content/talks-${name}`);
      await page.getByLabel('Select Sea shanties').check();
      await page.getByRole('button', { name: 'Delete…' }).click();
      await page.getByRole('heading', { name: `Delete 1 Talks ${name} entry?` }).waitFor();
      await assertNoSeriousAxeViolations(page);
      await page.getByRole('button', { name: 'Delete', exact: true }).click();
      await page.waitForURL(/done=deleted&count=1$/);
      assert.ok(await page.getByText('1 entry deleted.').isVisible());
      assert.equal(await page.getByLabel('Select Sea shanties').count(), 0);
      await context.close();
    });

  it('fits every editor page on a 390 px phone', async () => {
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
    });
    const page = await context.newPage();
    await logIn(page);
    await page.goto(`${origin}/admin/content`);
    await page.getByLabel('Name', { exact: true }).fill('Events');
    await page.getByLabel('Slug', { exact: true }).fill('events');
    await page.getByLabel('Field 1 name').fill('title');
    await page.getByLabel('Field 2 name').fill('starts');
    await page.getByLabel('Field 2 type').selectOption('datetime');
    await page.getByRole('button', { name: 'Create type' }).click();
    await page.waitForURL(`${origin}/admin/content/events`);
    for (const [url, name] of [
      ['/admin/content', 'cms-types-phone'],
      ['/admin/content/articles', 'cms-entries-phone'],
      ['/admin/content/events?filter%5Bstarts%5D%5Bgte%5D=2026-01-01', 'cms-entries-filtered-phone'],
      ['/admin/content/articles/new', 'cms-entry-form-phone'],
      ['/admin/content-types/events', 'cms-type-editor-phone'],
      ['/admin/media', 'cms-media-phone'],
    ] as const) {
      await page.goto(`${origin}${url}`);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 390, `${url} is ${width}px wide`);
      if (url.startsWith('/admin/content/')) await assertNoSeriousAxeViolations(page);
      await screenshot(page, name);
    }
    await context.close();
  });
});
