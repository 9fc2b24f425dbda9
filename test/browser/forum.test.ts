// The forum web UI in a real browser (Debian chromium driven by playwright-core) against a real
// listening server in single-instance mode: a guest reads, a member signs up, posts and replies in
// the threaded view, a moderator locks a topic, and a guest never sees a members-only forum.
// Screenshots are kept in test-artifacts/browser/.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { createSite } from '../../src/core/sites/service.js';
import { createMember } from '../../src/forum/members.js';
import { createForum, createCategory } from '../../src/forum/structure.js';
import { createTopic } from '../../src/forum/topics.js';
import { viewerFor } from '../../src/forum/members.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { launchChromium, screenshot, skipWithoutChromium } from '../helpers/browser.js';

const skip = skipWithoutChromium;

describe('forum web UI in a browser', { skip }, () => {
  let t: TestApp;
  let browser: Browser;
  let origin: string;
  const password = 'moderator-password-1';

  const shot = screenshot;

  before(async () => {
    t = await buildTestApp({
      database: 'pglite',
      mode: 'single',
      singleSite: 'club',
      env: { BLUME_RATE_LOGIN_PER_MINUTE: '100' },
    });
    const db = t.app.deps.database.db;
    const site = await createSite(db, null, { id: 'club', kind: 'community', plan: 'business' });
    await t.app.services.epochs.announce();
    const moderator = await createMember(db, site.id, {
      username: 'mod',
      email: 'mod@example.test',
      password,
      role: 'moderator',
    });
    const category = await createCategory(db, site.id, {
      name: 'Community',
      slug: 'community',
      description: 'Talk about anything.',
    });
    const general = await createForum(db, site.id, {
      name: 'General',
      slug: 'general',
      category_id: category.id,
      description: 'Say hello.',
    });
    const inner = await createForum(db, site.id, { name: 'Inner circle', slug: 'inner', visibility: 'members' });
    const viewer = viewerFor(site, moderator);
    await createTopic(db, site, viewer, {
      forumId: general.id,
      title: 'Welcome to the club',
      body: 'Read the **rules** and be kind.\n\n- one\n- two',
    });
    await createTopic(db, site, viewer, { forumId: inner.id, title: 'Secret members topic', body: 'Members only.' });
    origin = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('lets a guest read, and never shows a members-only forum', async () => {
    const page = await browser.newPage();
    await page.goto(`${origin}/`);
    assert.equal(await page.title(), 'club');
    assert.equal(await page.getByRole('link', { name: 'General' }).count(), 1);
    assert.equal(await page.getByText('Inner circle').count(), 0);
    await shot(page, '01-guest-index');
    await page.getByRole('link', { name: 'General' }).click();
    await page.getByRole('link', { name: 'Welcome to the club' }).click();
    assert.equal(await page.locator('.post .body strong').textContent(), 'rules');
    assert.equal(await page.getByRole('link', { name: 'Log in to reply' }).count(), 1);
    await shot(page, '02-guest-topic');
    const hidden = await page.goto(`${origin}/f/inner`);
    assert.equal(hidden?.status(), 404);
    await page.goto(`${origin}/search?q=secret`);
    assert.equal(await page.getByText('Secret members topic').count(), 0);
    await page.close();
  });

  it('lets a member sign up, start a topic and reply in the threaded view; a moderator locks it', async () => {
    const member = await browser.newPage();
    await member.goto(`${origin}/signup`);
    await member.getByLabel('Username').fill('newbie');
    await member.getByLabel('E-mail').fill('newbie@example.test');
    await member.getByLabel('Password').fill('newbie-password-1');
    await shot(member, '03-signup');
    await member.getByRole('button', { name: 'Sign up' }).click();
    await member.waitForURL(`${origin}/`);
    assert.equal(await member.getByRole('link', { name: 'newbie' }).count(), 1);
    assert.equal(await member.getByText('Inner circle').count(), 1);

    await member.getByRole('link', { name: 'General' }).click();
    await member.getByRole('link', { name: 'New topic' }).click();
    await member.getByLabel('Title').fill('Hello from a browser');
    await member.getByLabel('Message').fill('First post with _emphasis_.');
    await member.getByRole('button', { name: 'Start topic' }).click();
    await member.waitForURL(/\/t\/[0-9a-z]+$/);
    const topicUrl = member.url();
    assert.equal(await member.locator('h1').textContent(), 'Hello from a browser');

    await member.getByRole('link', { name: 'Threaded' }).click();
    const opening = member.locator('ol.thread > li > article.post').first();
    await opening.locator('summary', { hasText: 'Reply' }).click();
    await opening.getByLabel('Your reply').fill('A nested answer.');
    await opening.getByRole('button', { name: 'Post reply' }).click();
    await member.waitForURL(/view=threaded/);
    assert.equal(await member.locator('ol.replies article.post > .body').textContent(), 'A nested answer.');
    await shot(member, '04-member-threaded');

    const moderator = await browser.newPage();
    await moderator.goto(`${origin}/login`);
    await moderator.getByLabel('Username or e-mail').fill('mod');
    await moderator.getByLabel('Password').fill(password);
    await moderator.getByRole('button', { name: 'Log in' }).click();
    await moderator.waitForURL(`${origin}/`);
    await moderator.goto(topicUrl);
    await moderator.getByRole('group', { name: 'Moderation' }).getByRole('button', { name: 'Lock' }).click();
    await moderator.waitForURL(topicUrl);
    assert.equal(await moderator.getByText('This topic is locked').count(), 1);
    assert.equal(await moderator.getByRole('button', { name: 'Unlock' }).count(), 1);
    await shot(moderator, '05-moderator-locked');

    await member.goto(topicUrl);
    assert.equal(await member.getByText('This topic is locked').count(), 1);
    assert.equal(await member.getByRole('button', { name: 'Post reply' }).count(), 0);
    await member.close();
    await moderator.close();
  });

  it('renders the dark scheme and a phone-sized layout', async () => {
    const context = await browser.newContext({ colorScheme: 'dark', viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(`${origin}/`);
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.equal(background, 'rgb(20, 21, 23)');
    await shot(page, '06-dark-phone-index');
    await page.getByRole('link', { name: 'General' }).click();
    await page.getByRole('link', { name: 'Welcome to the club' }).click();
    await shot(page, '07-dark-phone-topic');
    await context.close();
  });

  it('lets a member choose its notification mail and search with filters on a phone, without sideways scroll', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const fitsWidth = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
    await page.goto(`${origin}/login`);
    await page.getByLabel('Username or e-mail').fill('mod');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`${origin}/`);
    // This server sends no mail (the profile says so and links nowhere); the settings still save.
    await page.goto(`${origin}/account/notifications`);
    await page.getByLabel('Someone likes my post').selectOption('immediately');
    await page.getByLabel(/^Digest/).selectOption('daily');
    await page.getByRole('button', { name: 'Save' }).click();
    assert.equal(await page.getByText('Saved.').count(), 1);
    assert.equal(await page.getByLabel('Someone likes my post').inputValue(), 'immediately');
    assert.ok(await fitsWidth(), 'the settings page fits 390 px');
    await shot(page, '08-phone-mail-settings');
    await page.goto(`${origin}/search?q=welcome&category=community`);
    assert.equal(await page.locator('a.title mark').first().textContent(), 'Welcome');
    assert.ok(await fitsWidth(), 'the search page fits 390 px');
    await shot(page, '09-phone-search');
    await context.close();
  });
});
