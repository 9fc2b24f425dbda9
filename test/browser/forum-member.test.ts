// The "Done when" of the forum's member experience, walked in a real browser at desktop and at phone
// width on both databases, with one server (and one SMTP sink) per database: a new member signs up
// through the form and confirms the address with the link the sink received, reads Latest (reached
// with the keyboard), sees what is unread and jumps to the first unread post, likes a post (the count
// shows), previews and posts a reply with an image and an @mention picked from the suggestions; the
// mentioned member gets the notification (unread count in the header) and an e-mail whose link leads
// to the reply; a flag lands in the moderators' queue, where a moderator hides the post.
// The trust ladder holds uploads back from new members, so before the walk the community's admin
// lowers its thresholds on the admin settings page (what an admin of a small community does: new
// members are trusted once they have read one topic), and applies them.
// Every page is checked for sideways scrolling; screenshots are kept in test-artifacts/browser/.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { SiteRow } from '../../src/core/sites/tables.js';
import { createMember, viewerFor } from '../../src/forum/members.js';
import { createCategory, createForum } from '../../src/forum/structure.js';
import type { ForumMemberRow } from '../../src/forum/tables.js';
import { createPost, createTopic } from '../../src/forum/topics.js';
import type { TestApp } from '../helpers/app.js';
import { assertNoSidewaysScroll, screenshot, skipWithoutChromium, tabTo, logInOnForm } from '../helpers/browser.js';
import { testDatabases } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { memberPassword, startForumStage, WIDTHS, type ForumStage } from '../helpers/forum-browser.js';
import { solidPng } from '../helpers/images.js';
import { decodedBody, type ReceivedMail, type SmtpSink } from '../helpers/smtp-sink.js';

for (const database of testDatabases) {
  describe(`forum member pages in a browser [${database}]`, { skip: skipWithoutChromium }, () => {
    let stage: ForumStage;
    let t: TestApp;
    let browser: Browser;
    let origin: string;
    let site: SiteRow;
    let sink: SmtpSink;
    let alice: ForumMemberRow;
    let spammer: ForumMemberRow;
    let topicId: string;
    const password = memberPassword;

    async function logIn(context: BrowserContext, name: string): Promise<Page> {
      const page = await context.newPage();
      await logInOnForm(page, origin, name, password(name));
      return page;
    }

    /** The phone or desktop screenshot of a step, after checking the page fits its width. */
    async function shot(page: Page, width: string, step: string): Promise<void> {
      await assertNoSidewaysScroll(page);
      await screenshot(page, `${database}-forum-member-${width}-${step}`);
    }

    /** The first mail the sink received for `to` whose text matches `text`, and the link in it matching `link`. */
    async function mailedLink(to: string, text: RegExp, link: RegExp): Promise<{ mail: ReceivedMail; url: string }> {
      const mail = await eventually(
        `a mail to ${to} saying ${String(text)}`,
        () => sink.received.find((m) => m.to.includes(to) && text.test(decodedBody(m))),
        15_000,
      );
      const url = link.exec(decodedBody(mail))?.[0];
      assert.ok(url, decodedBody(mail));
      return { mail, url };
    }

    before(async () => {
      stage = await startForumStage(database, { mail: true });
      ({ t, site, origin, browser } = stage);
      sink = stage.sink!;
      const db = t.app.deps.database.db;
      [alice, spammer] = await Promise.all([
        createMember(db, site.id, { username: 'alice', email: 'alice@example.test', password: password('alice') }),
        createMember(db, site.id, {
          username: 'spammer',
          email: 'spammer@example.test',
          password: password('spammer'),
        }),
        createMember(db, site.id, {
          username: 'mod',
          email: 'mod@example.test',
          password: password('mod'),
          role: 'moderator',
        }),
        createMember(db, site.id, {
          username: 'admin',
          email: 'admin@example.test',
          password: password('admin'),
          role: 'admin',
        }),
      ]);
      const category = await createCategory(db, site.id, { name: 'Community', slug: 'community' });
      const general = await createForum(db, site.id, { name: 'General', slug: 'general', category_id: category.id });
      await createTopic(db, site, viewerFor(site, alice), {
        forumId: general.id,
        title: 'An older topic',
        body: 'Nothing new here.',
      });
      const { topic } = await createTopic(db, site, viewerFor(site, alice), {
        forumId: general.id,
        title: 'Garden club',
        body: 'What are you planting this spring?',
      });
      topicId = topic.topic.id;

      // The admin trusts new members once they have read one topic, on the settings page.
      const adminContext = await browser.newContext({ viewport: WIDTHS[0].viewport });
      const admin = await logIn(adminContext, 'admin');
      await admin.goto(`${origin}/admin/settings`);
      await admin.getByLabel('FORUM_TRUST_MIN_POSTS').fill('0');
      await admin.getByLabel('FORUM_TRUST_MIN_TOPICS_READ').fill('1');
      await admin.getByRole('button', { name: 'Save settings' }).click();
      await admin.waitForURL(`${origin}/admin/settings?saved=1`);
      await admin.getByRole('button', { name: 'Apply and restart' }).click();
      await admin.getByText('Applied on every node (generation 1): 2 settings changed.').waitFor();
      await shot(admin, 'desktop', '00-admin-trust-settings');
      await adminContext.close();
    });
    after(() => stage?.close());

    for (const { name: width, viewport } of WIDTHS) {
      it(`signs up, reads, previews and posts an image and a mention, notifies, likes, flags and moderates at ${width} width`, async () => {
        const db = t.app.deps.database.db;
        const reader = `reader-${width}`;
        const email = `${reader}@example.test`;
        const memberContext = await browser.newContext({ viewport });
        const member = await memberContext.newPage();

        // Sign up; posting waits for the address to be confirmed with the link in the mail.
        await member.goto(`${origin}/signup`);
        await member.getByLabel('Username').fill(reader);
        await member.getByLabel('E-mail').fill(email);
        await member.getByLabel('Password').fill(password(reader));
        await member.getByRole('button', { name: 'Sign up' }).click();
        await member.waitForURL(`${origin}/`);
        await member.getByText(`Confirm your e-mail address to post: we sent a link to ${email}.`).waitFor();
        await shot(member, width, '01-signed-up');
        const confirmation = await mailedLink(
          email,
          /Please confirm your e-mail address/,
          new RegExp(`${origin}/confirm/[0-9a-z]{16}\\.[A-Za-z0-9_-]{43}`),
        );
        assert.equal(confirmation.mail.headers.get('subject'), 'Confirm your e-mail address for club');
        await member.goto(confirmation.url);
        await member.getByRole('heading', { name: 'E-mail address confirmed' }).waitFor();
        assert.equal(await member.getByText('Confirm your e-mail address to post').count(), 0);
        await shot(member, width, '02-confirmed');

        // What is posted after the member joined is new to it (older topics are not: decision 0064).
        await createPost(db, site, viewerFor(site, alice), topicId, { body: `Welcome, ${reader}.` });

        // Latest, reached from the header with the keyboard; focus is visible on the way.
        await member.goto(`${origin}/`);
        await tabTo(member, 'Latest');
        assert.equal(
          await member.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle),
          'solid',
          'focus is visible',
        );
        await member.keyboard.press('Enter');
        await member.waitForURL(`${origin}/latest`);
        const row = member.locator('tr', { hasText: 'Garden club' });
        assert.equal(await row.getByRole('link', { name: /^New/ }).count(), 1, 'a reply since joining: new');
        const when = row.locator('time').first();
        assert.match((await when.textContent())!, /now|ago/);
        assert.match((await when.getAttribute('title'))!, /^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
        await shot(member, width, '03-latest');

        // Reading the topic reads it; a new reply makes it new again, and the marker jumps to it.
        await row.getByRole('link', { name: 'Garden club', exact: true }).click();
        await member.waitForURL(new RegExp(`/t/${topicId}$`));
        const news = await createPost(db, site, viewerFor(site, alice), topicId, {
          body: `Tomatoes, for the ${width} reader.`,
        });
        await member.getByRole('link', { name: 'Latest' }).first().click();
        await member.locator('tr', { hasText: 'Garden club' }).getByRole('link', { name: /^New/ }).click();
        await member.waitForURL((url) => url.hash === `#p-${news.post.id}`);
        const unread = member.locator(`#p-${news.post.id}`);
        assert.equal(await unread.locator('.badge.new').textContent(), 'New');
        await shot(member, width, '04-first-unread');
        await member.getByRole('link', { name: 'Latest' }).first().click();
        assert.equal(
          await member.locator('tr', { hasText: 'Garden club' }).getByRole('link', { name: /^New/ }).count(),
          0,
          'read now',
        );

        // Like alice's new post: the count shows and the button is pressed.
        await member.goto(`${origin}/t/${topicId}?page=last`);
        const post = member.locator(`#p-${news.post.id}`);
        await post.getByRole('button', { name: 'Like' }).click();
        await member.waitForURL((url) => url.hash === `#p-${news.post.id}`);
        assert.equal(await member.locator(`#p-${news.post.id} .likes`).textContent(), '1 like');
        assert.equal(
          await member.locator(`#p-${news.post.id}`).getByRole('button', { name: 'Like' }).getAttribute('aria-pressed'),
          'true',
        );
        await shot(member, width, '05-liked');

        // A reply that mentions alice, picked from the suggestions, with an image uploaded into it
        // (the member has read a topic, so the ladder lets it upload), previewed as it is written.
        const box = member.getByLabel('Reply to this topic');
        await box.click();
        await box.pressSequentially('Good idea @ali');
        const suggestions = member.getByRole('listbox', { name: 'Members to mention' });
        await suggestions.waitFor();
        assert.deepEqual(await suggestions.getByRole('option').allTextContents(), ['@alice']);
        await member.keyboard.press('Enter');
        await box.pressSequentially(`— here is my **seed bed** from ${width}: `);
        const image = `bed-${width}.png`;
        await member
          .getByLabel(/Attach an image or a file/)
          .setInputFiles({ name: image, mimeType: 'image/png', buffer: solidPng(160, 90, [46, 125, 50]) });
        await member.waitForFunction(
          (name) =>
            (document.getElementById('reply-body') as HTMLTextAreaElement).value.includes(`![${name}](/uploads/`),
          image,
        );
        assert.match(
          await box.inputValue(),
          new RegExp(
            `^Good idea @alice — here is my \\*\\*seed bed\\*\\* from ${width}: \\n!\\[${image}\\]\\(/uploads/[a-z0-9]+/${image}\\)`,
          ),
        );
        const preview = member.locator('[data-preview]').last();
        await preview.locator(`img[alt="${image}"]`).waitFor();
        await preview.locator('strong', { hasText: 'seed bed' }).waitFor();
        await shot(member, width, '06-preview');
        await member.getByRole('button', { name: 'Post reply' }).click();
        await member.waitForURL(/page=last#p-/);
        const mine = member.locator('article.post').last();
        const posted = mine.locator(`img[alt="${image}"]`);
        await posted.waitFor();
        assert.match(
          (await mine.locator('.body').first().textContent())!,
          new RegExp(`Good idea @alice — here is my seed bed from ${width}`),
        );
        const served = await member.request.get(`${origin}${await posted.getAttribute('src')}`);
        assert.equal(served.status(), 200);
        assert.equal(served.headers()['content-type'], 'image/png');
        await shot(member, width, '07-posted');

        // alice: the mention mail, whose link leads to the reply; the unread count and notifications.
        const mentionMail = await mailedLink(
          'alice@example.test',
          new RegExp(`${reader} mentioned you in "Garden club"`),
          new RegExp(`${origin}/t/${topicId}\\?view=threaded#p-[0-9a-z]+`),
        );
        assert.equal(mentionMail.mail.headers.get('subject'), 'Re: Garden club');
        assert.equal(mentionMail.mail.headers.get('list-unsubscribe-post'), 'List-Unsubscribe=One-Click');
        const aliceContext = await browser.newContext({ viewport });
        const aliceHome = await logIn(aliceContext, 'alice');
        const bell = aliceHome.getByRole('link', { name: /^Notifications/ });
        assert.equal(await bell.locator('.count').textContent(), '2 unread', 'the like and the mention');
        await shot(aliceHome, width, '08-unread-count');
        await bell.click();
        const mention = aliceHome.locator('li.unread', { hasText: `${reader} mentioned you in “Garden club”` });
        assert.equal(await mention.count(), 1);
        assert.equal(
          await aliceHome.locator('li.unread', { hasText: `${reader} liked your post in “Garden club”` }).count(),
          1,
        );
        await shot(aliceHome, width, '09-notifications');
        await aliceHome.goto(mentionMail.url);
        const mentioned = aliceHome.locator(`#${new URL(mentionMail.url).hash.slice(1)}`);
        await mentioned.locator(`img[alt="${image}"]`).waitFor();
        assert.match((await mentioned.locator('.body').first().textContent())!, /Good idea @alice/);
        await shot(aliceHome, width, '10-from-the-mail');
        await aliceHome.goto(`${origin}/notifications`);
        await aliceHome.getByRole('button', { name: 'Mark all read' }).click();
        await aliceHome.getByText('You have read them all.').waitFor();
        assert.equal(
          await aliceHome
            .getByRole('link', { name: /^Notifications/ })
            .locator('.count')
            .count(),
          0,
        );
        await aliceContext.close();

        // A spam reply is flagged; the flag lands in the moderators' queue, where the post is hidden.
        const spam = await createPost(db, site, viewerFor(site, spammer), topicId, {
          body: `Cheap watches for ${width} readers!`,
        });
        await member.goto(`${origin}/t/${topicId}?page=last`);
        const spamPost = member.locator(`#p-${spam.post.id}`);
        await spamPost.locator('summary', { hasText: 'Flag' }).click();
        await spamPost.getByLabel('Spam', { exact: true }).check();
        await spamPost.getByLabel(/Note for the moderators/).fill('Selling watches.');
        await shot(member, width, '11-flag-form');
        await spamPost.getByRole('button', { name: 'Send flag' }).click();
        await member.getByText('the moderators will look at the post you flagged').waitFor();

        const modContext = await browser.newContext({ viewport });
        const moderator = await logIn(modContext, 'mod');
        await moderator.getByRole('link', { name: 'Flags' }).click();
        const card = moderator.locator('li.card', { hasText: `Cheap watches for ${width} readers!` });
        assert.match((await card.textContent())!, new RegExp(`Spam\\s*· flagged by ${reader}`));
        assert.match((await card.textContent())!, /Selling watches\./);
        await shot(moderator, width, '12-flag-queue');
        await card.getByRole('button', { name: 'Hide post' }).click();
        await moderator.getByText('The post was hidden.').waitFor();
        await moderator.getByRole('link', { name: 'Hidden', exact: true }).click();
        assert.match((await moderator.locator('li.card').first().textContent())!, /Hidden by mod/);
        await shot(moderator, width, '13-flag-record');
        await modContext.close();

        await member.goto(`${origin}/t/${topicId}?page=last`);
        assert.equal(await member.getByText(`Cheap watches for ${width} readers!`).count(), 0);
        assert.equal(await member.locator(`#p-${spam.post.id}`).textContent(), 'This post was deleted.');
        await shot(member, width, '14-hidden');
        await memberContext.close();
      });
    }
  });
}
