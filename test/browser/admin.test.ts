// The admin area in a real browser (Debian chromium driven by playwright-core) against a listening
// single-instance server: the first admin (made by `create-admin`) logs in, follows the checklist to
// create a category and a forum, turns on anonymous Forum API reads with CORS for one origin, applies
// the settings, and a guest page on that origin reads the Forum API; a moderator gets 403 pages.
// Every admin page is then used at phone width (390 px) without sideways scrolling. Screenshots are
// kept in test-artifacts/browser/.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { runOperation } from '../../src/cli/operations.js';
import { createMember } from '../../src/forum/members.js';
import { buildTownInstance, operationsOf, type TestApp } from '../helpers/app.js';
import { launchChromium, screenshot, skipWithoutChromium } from '../helpers/browser.js';

const skip = skipWithoutChromium;

describe('forum admin area in a browser', { skip }, () => {
  let t: TestApp;
  let browser: Browser;
  let origin: string;
  /** A page on another origin, the one the admin lets read the Forum API. */
  let app: Server;
  let appOrigin: string;
  const password = 'first-admin-password';

  const shot = screenshot;

  async function logIn(context: BrowserContext, login: string, secret: string): Promise<Page> {
    const page = await context.newPage();
    await page.goto(`${origin}/login`);
    await page.getByLabel('Username or e-mail').fill(login);
    await page.getByLabel('Password').fill(secret);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`${origin}/`);
    return page;
  }

  before(async () => {
    t = await buildTownInstance('business');
    const db = t.app.deps.database.db;
    const ops = operationsOf(t.app, 'town');
    await runOperation(ops, 'create-admin', { username: 'mayor', email: 'mayor@town.test', password });
    await createMember(db, 'town', { username: 'deputy', email: 'deputy@town.test', password, role: 'moderator' });
    origin = await t.app.listen({ host: '127.0.0.1', port: 0 });
    app = createServer((_request, response) =>
      response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Town app</title><p>Town app'),
    );
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    appOrigin = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await new Promise((resolve) => app?.close(resolve));
    await t?.close();
  });

  const guestRead = async () => {
    const guest = await browser.newPage();
    await guest.goto(`${appOrigin}/`);
    const result = await guest.evaluate(async (url) => {
      try {
        const response = await fetch(url);
        return { status: response.status, body: await response.text() };
      } catch (error) {
        return { status: 0, body: String(error) };
      }
    }, `${origin}/api/forum/v1/forums`);
    await guest.close();
    return result;
  };

  it('takes a fresh admin from the checklist to a forum a guest on another origin reads through the API', async () => {
    const before = await guestRead();
    assert.equal(before.status, 0, 'without CORS the browser refuses the cross-origin read');

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await logIn(context, 'mayor', password);
    assert.equal(await page.getByText('There are no forums here yet.').count(), 1);
    await page.getByRole('link', { name: 'Set up the community' }).click();
    await page.waitForURL(`${origin}/admin`);
    const steps = page.locator('ul.checklist > li');
    assert.equal(await steps.count(), 6);
    // Only "invite moderators" is done: the deputy moderates already.
    assert.deepEqual(await page.locator('ul.checklist > li.done a').allTextContents(), ['Invite moderators']);
    for (const health of ['/up/', '/up/databases', '/up/ready'])
      assert.equal(await page.getByRole('link', { name: health, exact: true }).count(), 1);
    await shot(page, 'admin-01-checklist');

    await page.getByRole('link', { name: 'Create the first category' }).click();
    const newCategory = page.locator('#new-category');
    await newCategory.getByLabel('Name').fill('Town hall');
    await newCategory.getByLabel('Slug').fill('town-hall');
    await newCategory.getByLabel('Description').fill('Everything about the town.');
    await newCategory.getByRole('button', { name: 'Create category' }).click();
    await page.waitForURL(`${origin}/admin/structure`);
    const newForum = page.locator('#new-forum');
    await newForum.getByLabel('Name').fill('General');
    await newForum.getByLabel('Slug').fill('general');
    await newForum.getByLabel('Category').selectOption({ label: 'Town hall' });
    await newForum.getByLabel('Description').fill('Say hello to your neighbours.');
    // The page is /admin/structure already: wait for the answer's page load, not for the URL.
    const created = page.waitForEvent('load');
    await newForum.getByRole('button', { name: 'Create forum' }).click();
    await created;
    assert.equal(page.url(), `${origin}/admin/structure`);
    assert.equal(await page.getByRole('link', { name: 'General', exact: true }).count(), 1);
    await shot(page, 'admin-02-structure');

    await page.getByRole('navigation', { name: 'Admin sections' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByLabel('FORUM_TITLE').fill('Town square');
    await page.getByLabel('FORUM_API_PUBLIC_READ').selectOption('true');
    await page.getByLabel('API_CORS_ORIGINS').fill(appOrigin);
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.waitForURL(`${origin}/admin/settings?saved=1`);
    assert.equal(await page.locator('section.pending tbody tr').count(), 3);
    await shot(page, 'admin-03-settings-pending');
    assert.equal((await guestRead()).status, 0, 'saved settings wait for the restart');

    // Apply with the keyboard alone: tab to the button, press Enter.
    let focused = '';
    for (let i = 0; i < 40 && focused !== 'Apply and restart'; i++) {
      await page.keyboard.press('Tab');
      focused = await page.evaluate(() => (document.activeElement as HTMLElement | null)?.innerText ?? '');
    }
    assert.equal(focused, 'Apply and restart');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/admin\/settings\?applied=1&changed=3$/);
    assert.equal(await page.getByText('Applied on every node (generation 1): 3 settings changed.').count(), 1);
    await shot(page, 'admin-04-settings-applied');

    const read = await guestRead();
    assert.equal(read.status, 200, read.body);
    assert.deepEqual(
      (JSON.parse(read.body) as Array<{ slug: string }>).map((forum) => forum.slug),
      ['general'],
    );

    await page.getByRole('navigation', { name: 'Admin sections' }).getByRole('link', { name: 'Overview' }).click();
    assert.equal(await page.locator('ul.checklist > li.done').count(), 4);
    assert.equal(await page.title(), 'Admin · Town square');
    await shot(page, 'admin-05-checklist-after');
    await context.close();
  });

  it('answers a moderator with 403 pages', async () => {
    const context = await browser.newContext();
    const page = await logIn(context, 'deputy', password);
    assert.equal(await page.getByRole('link', { name: 'Admin', exact: true }).count(), 0);
    for (const url of ['/admin', '/admin/settings', '/admin/members']) {
      const response = await page.goto(`${origin}${url}`);
      assert.equal(response?.status(), 403, url);
      assert.equal(await page.getByText('Only admins of this community may do this.').count(), 1);
    }
    await shot(page, 'admin-06-moderator-403');
    await context.close();
  });

  it('fits every admin page on a 390 px phone', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
    const page = await logIn(context, 'mayor', password);
    for (const [url, name] of [
      ['/admin', 'admin-07-phone-overview'],
      ['/admin/structure', 'admin-08-phone-structure'],
      ['/admin/members', 'admin-09-phone-members'],
      ['/admin/settings', 'admin-10-phone-settings'],
    ] as const) {
      await page.goto(`${origin}${url}`);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 390, `${url} is ${width}px wide`);
      await shot(page, name);
    }
    await page.goto(`${origin}/admin/members`);
    const add = page.locator('#add-member');
    await add.locator('summary').click();
    await add.getByLabel('Username').fill('clerk');
    await add.getByLabel('E-mail').fill('clerk@town.test');
    await add.getByLabel('Role').selectOption('moderator');
    await add.getByLabel('Password').fill('clerk-password-1');
    await add.getByRole('button', { name: 'Add member' }).click();
    await page.waitForURL(/done=added/);
    assert.equal(await page.getByText('clerk is a member now.').count(), 1);
    await shot(page, 'admin-11-phone-member-added');
    await context.close();
  });
});
