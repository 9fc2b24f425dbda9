// The forum's reading polish in Chromium at desktop (1280) and phone (390) width: highlighted code
// with a Copy button and tables that scroll inside the post, topic lists with forum badges, posters,
// views, likes and a New topic button, the index's newest topics per forum, grouped notifications
// and flags, profiles with their counts and latest posts, a staff header on one row, one search
// landmark; axe on every page.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { SiteRow } from '../../src/core/sites/tables.js';
import { flagPost } from '../../src/forum/flags.js';
import { setLike } from '../../src/forum/likes.js';
import { createMember, viewerFor } from '../../src/forum/members.js';
import { createCategory, createForum } from '../../src/forum/structure.js';
import { createPost, createTopic } from '../../src/forum/topics.js';
import { forumTopicViews, type ForumMemberRow } from '../../src/forum/tables.js';
import { buildTownInstance, type TestApp } from '../helpers/app.js';
import {
  assertNoSeriousAxeViolations,
  assertNoSidewaysScroll,
  launchChromium,
  logInOnForm,
  screenshot,
  skipWithoutChromium,
} from '../helpers/browser.js';
import { WIDTHS } from '../helpers/forum-browser.js';

const password = (name: string) => `${name}-password-123`;

describe('forum reading polish in a browser [pglite]', { skip: skipWithoutChromium }, () => {
  let t: TestApp;
  let browser: Browser;
  let origin: string;
  let site: SiteRow;
  let topicId: string;
  let helloId: string;
  let openingPostId: string;

  before(async () => {
    t = await buildTownInstance('business');
    const db = t.app.deps.database.db;
    site = (await t.app.deps.database.db.query.sites.findFirst())!;
    const member = async (username: string, role: 'admin' | 'member' = 'member'): Promise<ForumMemberRow> =>
      createMember(db, site.id, { username, email: `${username}@example.test`, password: password(username), role });
    const admin = await member('ada', 'admin');
    const people = await Promise.all(['bea', 'cy', 'dee'].map((name) => member(name)));
    const help = await createCategory(db, site.id, { name: 'Help', slug: 'help' });
    const questions = await createForum(db, site.id, { name: 'Questions', slug: 'questions', category_id: help.id });
    const chat = await createForum(db, site.id, { name: 'Chat', slug: 'chat' });
    const first = await createTopic(db, site, viewerFor(site, admin), {
      forumId: questions.id,
      title: 'How do I read a config file?',
      body: [
        'Like this:',
        '',
        '```ts',
        "import { readFile } from 'node:fs/promises';",
        "const config = JSON.parse(await readFile('config.json', 'utf8')); // parsed",
        '```',
        '',
        '| Setting | Default | What it does | A long column so the table is wider than a phone |',
        '|---|---|---|---|',
        '| port | 3000 | where the server listens | and more words that take room on a narrow screen |',
      ].join('\n'),
    });
    topicId = first.topic.topic.id;
    openingPostId = first.post.post.id;
    for (const person of people) {
      const viewer = viewerFor(site, person);
      await createPost(db, site, viewer, topicId, { body: `Thanks, said ${person.username}.` });
      await setLike(db, site, viewer, openingPostId, true);
      await flagPost(db, site.id, viewer, openingPostId, { reason: person.username === 'dee' ? 'spam' : 'off_topic' });
    }
    const hello = await createTopic(db, site, viewerFor(site, people[0]!), {
      forumId: chat.id,
      title: 'Hello from Bea',
      body: 'Hi all.',
    });
    helloId = hello.topic.topic.id;
    // Views written by nodes before: past a thousand, a list shows them compact.
    await db.insert(forumTopicViews).values({ topicId, siteId: site.id, views: 1234 });
    origin = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  async function staffPage(viewport: { width: number; height: number }): Promise<Page> {
    const page = await browser.newPage({ viewport });
    await logInOnForm(page, origin, 'ada', password('ada'));
    return page;
  }

  for (const { name, viewport } of WIDTHS) {
    it(`shows a post's code highlighted with a Copy button and its table scrolling inside it (${name})`, async () => {
      const context = await browser.newContext({ viewport });
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
      const page = await context.newPage();
      await page.goto(`${origin}/t/${topicId}`);
      const code = page.locator(`#p-${openingPostId} .body pre`);
      assert.equal(await code.locator('span.hljs-keyword').first().textContent(), 'import');
      assert.equal(await code.locator('span.hljs-comment').textContent(), '// parsed');
      const copy = code.getByRole('button', { name: 'Copy the code' });
      await copy.click();
      await page.getByRole('status').filter({ hasText: 'Code copied.' }).waitFor({ state: 'attached' });
      assert.match(
        await page.evaluate(() => navigator.clipboard.readText()),
        /^import \{ readFile \}.*\/\/ parsed\n$/s,
      );
      const table = page.locator(`#p-${openingPostId} .body table`);
      assert.equal(await table.evaluate((node) => getComputedStyle(node.querySelector('td')!).borderTopStyle), 'solid');
      if (name === 'phone')
        assert.ok(await table.evaluate((node) => node.scrollWidth > node.clientWidth), 'the table scrolls');
      await assertNoSidewaysScroll(page);
      await assertNoSeriousAxeViolations(page);
      await screenshot(page, `reading-topic-${name}`);
      await context.close();
    });

    it(`lists topics with forum badges, posters, views, likes and a New topic button (${name})`, async () => {
      const page = await staffPage(viewport);
      // The index: each forum with its newest topics.
      const questions = page.locator('tr', { has: page.getByRole('link', { name: 'Questions', exact: true }) });
      assert.equal(await questions.locator('ul.latest-topics a').textContent(), 'How do I read a config file?');
      await assertNoSeriousAxeViolations(page);
      await screenshot(page, `reading-index-${name}`);
      // Ada reads Bea's topic (at both widths: a view counted once), and the node writes it.
      await page.goto(`${origin}/t/${helloId}`);
      await t.app.forum.topicViews.flush();
      await page.goto(`${origin}/latest`);
      const row = page.locator('tr', { has: page.getByRole('link', { name: 'How do I read a config file?' }) });
      assert.equal(await row.locator('a.category').textContent(), 'Questions');
      assert.equal(await row.locator('.posters .sr-only').textContent(), 'Posters: ada, dee, cy, bea');
      const hello = page.locator('tr', { has: page.getByRole('link', { name: 'Hello from Bea' }) });
      if (name === 'desktop') {
        assert.deepEqual(await page.locator('table.topics thead th.num').allTextContents(), [
          'Replies',
          'Views',
          'Likes',
          'Activity',
        ]);
        assert.deepEqual((await row.locator('td.num').allTextContents()).slice(0, 3), ['3', '1.2k', '3']);
        // The seeded views, and the guest's read of the first test when it ran.
        assert.match((await row.locator('td.num abbr').getAttribute('title'))!, /^1,23[45]$/);
        assert.deepEqual((await hello.locator('td.num').allTextContents()).slice(0, 3), ['0', '1', '0']);
      } else {
        assert.match((await row.locator('.on-phone').textContent())!, /3 replies, 1\.2k views, 3 likes/);
        assert.match((await hello.locator('.on-phone').textContent())!, /0 replies, 1 view, 0 likes/);
      }
      await assertNoSidewaysScroll(page);
      await assertNoSeriousAxeViolations(page);
      await screenshot(page, `reading-latest-${name}`);
      await page.getByRole('link', { name: 'New topic' }).click();
      await page.waitForURL(`${origin}/new`);
      await page.getByRole('link', { name: 'Chat' }).click();
      await page.waitForURL(`${origin}/f/chat/new`);
      await page.close();
    });

    it(`groups likes in notifications and flags by post (${name})`, async () => {
      const page = await staffPage(viewport);
      await page.goto(`${origin}/notifications`);
      const likes = page.locator('ol.notifications li', { hasText: 'liked your post' });
      assert.equal(await likes.count(), 1);
      assert.match((await likes.textContent())!, /3 people liked your post in “How do I read a config file\?”/);
      await assertNoSeriousAxeViolations(page);
      await screenshot(page, `reading-notifications-${name}`);
      await page.goto(`${origin}/mod/flags`);
      const cards = page.locator('ul.cards > li.card');
      assert.equal(await cards.count(), 1);
      assert.equal(await cards.locator('.card-head').textContent(), 'Flagged 3 times');
      assert.deepEqual((await cards.locator('ul.flag-reasons > li > strong').allTextContents()).sort(), [
        'Off topic',
        'Off topic',
        'Spam',
      ]);
      await assertNoSidewaysScroll(page);
      await assertNoSeriousAxeViolations(page);
      await screenshot(page, `reading-flags-${name}`);
      await page.close();
    });

    it(`shows a profile's counts and latest posts (${name})`, async () => {
      const page = await staffPage(viewport);
      await page.goto(`${origin}/u/ada`);
      const stat = async (label: string) =>
        (await page
          .locator('dl.stats div', { has: page.getByText(label, { exact: true }) })
          .locator('dd')
          .textContent())!;
      assert.equal(await stat('Topics'), '1');
      assert.equal(await stat('Posts'), '1');
      assert.equal(await stat('Likes received'), '3');
      assert.equal(await stat('Likes given'), '0');
      const latest = page.locator('ol.recent-posts > li');
      assert.equal(await latest.count(), 1);
      await latest.getByRole('link', { name: 'How do I read a config file?' }).waitFor();
      assert.match((await latest.textContent())!, /Like this:.*3 likes/s);
      await assertNoSidewaysScroll(page);
      await assertNoSeriousAxeViolations(page);
      await screenshot(page, `reading-profile-${name}`);
      await page.close();
    });

    it(`fits the staff header in ${name === 'desktop' ? 'one row' : 'three short rows'}, one search landmark on /search (${name})`, async () => {
      const page = await staffPage(viewport);
      await page.goto(`${origin}/latest`);
      const tops = await page
        .locator('header.site .wrap > *')
        .evaluateAll((nodes) => nodes.map((node) => node.getBoundingClientRect().top));
      const header = (await page.locator('header.site').boundingBox())!;
      if (name === 'desktop') assert.ok(Math.max(...tops) - Math.min(...tops) < 12, `one row: ${tops.join(', ')}`);
      else assert.ok(header.height <= 140, `a compact header: ${header.height}px`);
      await assertNoSidewaysScroll(page);
      await page.goto(`${origin}/search?q=config`);
      assert.equal(await page.getByRole('search').count(), 1);
      await assertNoSeriousAxeViolations(page);
      await screenshot(page, `reading-search-${name}`);
      await page.close();
    });
  }
});
