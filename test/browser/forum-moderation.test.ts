// The moderators' pages in a real browser, at desktop and at phone width, on both databases: a
// moderator opens the warn / suspend form of a flag and of a profile, approves a held first post,
// reads the moderation log; the warned member sees the banner and its avatar shows on the topic.
// Every page is checked for sideways scrolling. Screenshots are kept in test-artifacts/browser/.
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { SiteRow } from '../../src/core/sites/tables.js';
import { flagPost } from '../../src/forum/flags.js';
import { holdReply } from '../../src/forum/held-posts.js';
import { createMember, viewerFor } from '../../src/forum/members.js';
import { createCategory, createForum } from '../../src/forum/structure.js';
import type { ForumMemberRow } from '../../src/forum/tables.js';
import { createPost, createTopic } from '../../src/forum/topics.js';
import type { TestApp } from '../helpers/app.js';
import { assertNoSidewaysScroll, screenshot, skipWithoutChromium, logInOnForm } from '../helpers/browser.js';
import { testDatabases } from '../helpers/databases.js';
import { memberPassword, startForumStage, WIDTHS, type ForumStage } from '../helpers/forum-browser.js';

for (const database of testDatabases) {
  describe(`forum moderation pages in a browser [${database}]`, { skip: skipWithoutChromium }, () => {
    let stage: ForumStage;
    let t: TestApp;
    let browser: Browser;
    let origin: string;
    let site: SiteRow;
    let alice: ForumMemberRow;
    let topicId: string;
    const password = memberPassword;

    before(async () => {
      stage = await startForumStage(database);
      ({ t, site, origin, browser } = stage);
      const db = t.app.deps.database.db;
      const make = (username: string, role: ForumMemberRow['role'] = 'member', trustLevel = 1) =>
        createMember(db, site.id, {
          username,
          email: `${username}@example.test`,
          password: password(username),
          role,
          trustLevel,
        });
      const [a, spammer, , newbie] = await Promise.all([
        make('alice'),
        make('spammer'),
        make('mod', 'moderator'),
        make('newbie', 'member', 0),
      ]);
      alice = a;
      const category = await createCategory(db, site.id, { name: 'Community', slug: 'community' });
      const general = await createForum(db, site.id, { name: 'General', slug: 'general', category_id: category.id });
      const { topic } = await createTopic(db, site, viewerFor(site, alice), {
        forumId: general.id,
        title: 'Garden club',
        body: 'What are you planting this spring?',
      });
      topicId = topic.topic.id;
      for (const i of [1, 2]) {
        const spam = await createPost(db, site, viewerFor(site, spammer), topicId, {
          body: `Cheap watches at https://spam.example, offer ${i} with a rather long line of text that must wrap on a phone`,
        });
        await flagPost(db, site.id, viewerFor(site, alice), spam.post.id, {
          reason: 'spam',
          note: 'Selling things again and again',
        });
      }
      await holdReply(db, site.id, viewerFor(site, newbie), topicId, {
        body: 'Hello, my first post, see [my blog](https://newbie.example)',
      });
    });
    after(() => stage?.close());

    async function logIn(context: BrowserContext, name: string): Promise<Page> {
      const page = await context.newPage();
      await logInOnForm(page, origin, name, password(name));
      return page;
    }

    async function shot(page: Page, width: string, step: string): Promise<void> {
      await assertNoSidewaysScroll(page);
      await screenshot(page, `${database}-forum-moderation-${width}-${step}`);
    }

    for (const [index, { name: width, viewport }] of WIDTHS.entries()) {
      it(`lets a moderator warn, suspend and approve, and a member see it, at ${width} width`, async () => {
        const staff = await browser.newContext({ viewport });
        const mod = await logIn(staff, 'mod');
        await mod.goto(`${origin}/mod/flags`);
        const card = mod.locator('li.card').first();
        await card.getByText('Hide and warn or suspend the author…').click();
        await shot(mod, width, 'flag-sanction-form');
        await card.getByLabel('Reason (the member reads it)').fill(`Please stop advertising (${width}).`);
        await card.getByRole('button', { name: 'Send' }).click();
        await mod.getByText('The post was hidden and its author warned.').waitFor();

        if (index === 0) {
          await mod.goto(`${origin}/held`);
          await mod.getByText('Hello, my first post, see my blog').waitFor();
          await shot(mod, width, 'held');
          await mod.getByRole('button', { name: 'Approve' }).click();
          await mod.getByText('The post is published.').waitFor();
        }

        await mod.goto(`${origin}/u/spammer`);
        await mod.getByText('Warn or suspend…').click();
        await shot(mod, width, 'profile-standing');
        await mod.goto(`${origin}/mod/log`);
        await mod
          .getByText(/mod warned spammer/)
          .first()
          .waitFor();
        await shot(mod, width, 'log');

        const member = await browser.newContext({ viewport });
        const page = await logIn(member, 'spammer');
        await page.getByText('A moderator warned you').first().waitFor();
        await shot(page, width, 'warning-banner');
        await page.goto(`${origin}/t/${topicId}`);
        await page.locator('header .avatar').first().waitFor();
        await shot(page, width, 'topic-avatars');
        await staff.close();
        await member.close();
      });
    }
  });
}
