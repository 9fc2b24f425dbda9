// The composer in a real browser, at desktop and phone width, on both databases. With script: a
// member types a reply, picks a member from the @mention suggestions with the keyboard, sees the
// preview update, leaves and finds the draft again, uploads an image into the text, quotes a
// selected passage of a post, and posts; the reply shows the image, the quote and whom it answers;
// editing it uses the same composer (live preview, an image uploaded into the text).
// Without script: a new topic is previewed by a server round trip, then posted. Deep threads show a
// "continue this thread" link. Every page is checked for sideways scrolling; screenshots are kept in
// test-artifacts/browser/.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { SiteRow } from '../../src/core/sites/tables.js';
import { createMember, viewerFor } from '../../src/forum/members.js';
import { createCategory, createForum } from '../../src/forum/structure.js';
import type { ForumMemberRow } from '../../src/forum/tables.js';
import { createPost, createTopic } from '../../src/forum/topics.js';
import { THREAD_DEPTH_PER_PAGE } from '../../src/forum/ui/read-views.js';
import type { TestApp } from '../helpers/app.js';
import {
  assertNoSeriousAxeViolations,
  assertNoSidewaysScroll,
  screenshot,
  skipWithoutChromium,
  logInOnForm,
} from '../helpers/browser.js';
import { testDatabases } from '../helpers/databases.js';
import { memberPassword, startForumStage, WIDTHS, type ForumStage } from '../helpers/forum-browser.js';
import { ONE_PIXEL_PNG } from '../helpers/images.js';

for (const database of testDatabases) {
  describe(`forum composer in a browser [${database}]`, { skip: skipWithoutChromium }, () => {
    let stage: ForumStage;
    let t: TestApp;
    let browser: Browser;
    let origin: string;
    let site: SiteRow;
    let alice: ForumMemberRow;
    let forumId: string;
    const writers = new Map<string, ForumMemberRow>();
    const password = memberPassword;

    before(async () => {
      stage = await startForumStage(database);
      ({ t, site, origin, browser } = stage);
      const db = t.app.deps.database.db;
      alice = await createMember(db, site.id, {
        username: 'alice',
        email: 'alice@example.test',
        password: password('alice'),
      });
      await createMember(db, site.id, { username: 'alina', email: 'alina@example.test', password: password('alina') });
      for (const { name } of WIDTHS)
        writers.set(
          name,
          await createMember(db, site.id, {
            username: `writer-${name}`,
            email: `writer-${name}@example.test`,
            password: password(`writer-${name}`),
          }),
        );
      const category = await createCategory(db, site.id, { name: 'Community', slug: 'community' });
      forumId = (await createForum(db, site.id, { name: 'General', slug: 'general', category_id: category.id })).id;
    });
    after(() => stage?.close());

    const logIn = (page: Page, name: string): Promise<void> => logInOnForm(page, origin, name, password(name));

    async function shot(page: Page, width: string, step: string): Promise<void> {
      await assertNoSidewaysScroll(page);
      await screenshot(page, `${database}-forum-composer-${width}-${step}`);
    }

    for (const { name: width, viewport } of WIDTHS) {
      it(`writes with preview, mentions, drafts, uploads and quotes at ${width} width`, async () => {
        const db = t.app.deps.database.db;
        const { topic, post: openingPost } = await createTopic(db, site, viewerFor(site, alice), {
          forumId,
          title: `Garden plans ${width}`,
          body: 'Plant the tomatoes after the last frost in May.',
        });
        const topicId = topic.topic.id;
        const writer = `writer-${width}`;
        const context = await browser.newContext({ viewport });
        const page = await context.newPage();
        await logIn(page, writer);
        await page.goto(`${origin}/t/${topicId}`);

        // @mention suggestions: a listbox the text box points into; arrows move, Enter takes.
        const box = page.getByLabel('Reply to this topic');
        await box.click();
        await box.pressSequentially('Thanks @ali');
        const list = page.getByRole('listbox', { name: 'Members to mention' });
        await list.waitFor();
        assert.deepEqual(await list.getByRole('option').allTextContents(), ['@alice', '@alina']);
        const first = await list.getByRole('option').first().getAttribute('id');
        assert.equal(await box.getAttribute('aria-activedescendant'), first);
        assert.equal(await list.getByRole('option').first().getAttribute('aria-selected'), 'true');
        await assertNoSeriousAxeViolations(page);
        await shot(page, width, '01-mentions');
        await page.keyboard.press('ArrowDown');
        await page.keyboard.press('ArrowUp');
        await page.keyboard.press('Enter');
        assert.equal(await box.inputValue(), 'Thanks @alice ');
        assert.equal(await list.isHidden(), true);

        // The live preview, through the posting sanitizer; the draft is saved with it.
        await box.pressSequentially('for the **advice** <script>x</script>');
        const pane = page.locator('[data-preview]').last();
        await pane.locator('strong', { hasText: 'advice' }).waitFor();
        assert.equal(await pane.locator('script').count(), 0);
        await page.getByText('Draft saved.').waitFor();
        await shot(page, width, '02-preview');

        // The draft comes back on the next visit.
        await page.goto(`${origin}/latest`);
        await page.goto(`${origin}/t/${topicId}`);
        assert.equal(
          await page.getByLabel('Reply to this topic').inputValue(),
          'Thanks @alice for the **advice** <script>x</script>',
        );
        await page.getByText('Draft restored.').waitFor();

        // An image chosen in the form goes up at once; its Markdown lands at the cursor.
        const restored = page.getByLabel('Reply to this topic');
        await restored.fill('Thanks @alice for the **advice**.');
        await restored.press('End');
        assert.equal(
          await page.getByRole('button', { name: 'Upload file' }).isHidden(),
          true,
          'the script uploads on choosing',
        );
        await page
          .getByLabel(/Attach an image or a file/)
          .last()
          .setInputFiles({ name: 'bed.png', mimeType: 'image/png', buffer: ONE_PIXEL_PNG });
        await page.waitForFunction(() =>
          /!\[bed\.png\]\(\/uploads\/[a-z0-9]+\/bed\.png\)/.test(
            (document.getElementById('reply-body') as HTMLTextAreaElement).value,
          ),
        );
        await pane.locator('img[alt="bed.png"]').waitFor();
        await shot(page, width, '03-uploaded');

        // Selecting a passage of alice's post offers "Quote", which puts it into the reply box.
        const opening = page.locator(`#p-${openingPost.post.id}`);
        await opening.locator('.body p').evaluate((paragraph) => {
          const text = paragraph.firstChild!;
          const range = document.createRange();
          range.setStart(text, 0);
          range.setEnd(text, 'Plant the tomatoes'.length);
          const selection = document.getSelection()!;
          selection.removeAllRanges();
          selection.addRange(range);
        });
        const quote = opening.getByRole('button', { name: 'Quote the selected text of alice' });
        await quote.waitFor();
        await shot(page, width, '04-quote-button');
        await quote.click();
        const value = await page.getByLabel('Reply to this topic').inputValue();
        assert.match(
          value,
          new RegExp(`@alice \\[wrote\\]\\(/p/${openingPost.post.id}\\):\\n> Plant the tomatoes\\n\\n$`),
        );
        await page.getByRole('button', { name: 'Post reply' }).click();
        await page.waitForURL(/page=last#p-/);
        const reply = page.locator('article.post').last();
        await reply.locator('img[alt="bed.png"]').waitFor();
        assert.equal(await reply.locator('blockquote').textContent(), '\nPlant the tomatoes\n');
        assert.match((await reply.locator('.body').textContent())!, /Thanks @alice for the advice\./);
        await shot(page, width, '05-posted');
        await page.goto(`${origin}/t/${topicId}`);
        assert.equal(await page.getByLabel('Reply to this topic').inputValue(), '', 'posting deleted the draft');

        // Editing the reply: the same composer, its preview live, an image uploaded into the text.
        await page.goto(`${origin}/t/${topicId}?page=last`);
        await page.locator('article.post').last().getByRole('link', { name: 'Edit' }).click();
        const message = page.getByLabel('Message');
        await message.press('End');
        await message.pressSequentially(' **Edited** too.');
        const editPane = page.locator('[data-preview]');
        await editPane.locator('strong', { hasText: 'Edited' }).waitFor();
        await page
          .getByLabel(/Attach an image or a file/)
          .setInputFiles({ name: 'row.png', mimeType: 'image/png', buffer: ONE_PIXEL_PNG });
        await editPane.locator('img[alt="row.png"]').waitFor();
        await shot(page, width, '05b-edit-preview');
        await page.getByRole('button', { name: 'Save' }).click();
        await page.waitForURL(/#p-/);
        const edited = page.locator('article.post', { hasText: 'Edited too.' });
        await edited.locator('img[alt="row.png"]').waitFor();
        assert.equal(await edited.locator('.meta', { hasText: 'edited' }).count(), 1);

        // Deep threads: the threaded view stops at a fixed depth and continues on a page of its own;
        // the classic view says whom each reply answers.
        let parentId = openingPost.post.id;
        for (let depth = 1; depth <= THREAD_DEPTH_PER_PAGE; depth++) {
          const member = depth % 2 === 1 ? alice : writers.get(width)!;
          parentId = (
            await createPost(db, site, viewerFor(site, member), topicId, {
              body: `Level ${depth} of ${width}`,
              parentId,
            })
          ).post.id;
        }
        await page.goto(`${origin}/t/${topicId}?view=threaded`);
        const more = page.getByRole('link', { name: /Continue this thread/ });
        await shot(page, width, '06-threaded-depth');
        await more.click();
        await page.getByText(`Level ${THREAD_DEPTH_PER_PAGE} of ${width}`).waitFor();
        await page.getByRole('link', { name: '← The whole topic' }).waitFor();
        await page.goto(`${origin}/t/${topicId}`);
        await page.locator('a.in-reply', { hasText: 'in reply to @alice' }).first().waitFor();
        await shot(page, width, '07-in-reply-to');
        await context.close();
      });

      it(`previews and posts a new topic without script at ${width} width`, async () => {
        const context = await browser.newContext({ viewport, javaScriptEnabled: false });
        const page = await context.newPage();
        await logIn(page, `writer-${width}`);
        await page.goto(`${origin}/f/general/new`);
        await page.getByLabel('Title').fill(`Seed swap ${width}`);
        await page.getByLabel('Message').fill('Bring **seeds** and _labels_.');
        await page.getByRole('button', { name: 'Preview' }).click();
        await page.locator('section.preview strong', { hasText: 'seeds' }).waitFor();
        assert.equal(await page.getByLabel('Message').inputValue(), 'Bring **seeds** and _labels_.');
        await shot(page, width, '08-nojs-preview');
        await page
          .getByLabel(/Attach an image or a file/)
          .setInputFiles({ name: 'list.txt', mimeType: 'text/plain', buffer: Buffer.from('beans, peas') });
        await page.getByRole('button', { name: 'Upload file' }).click();
        await page.getByText('Uploaded list.txt').waitFor();
        assert.match(
          await page.getByLabel('Message').inputValue(),
          /\[list\.txt\]\(\/uploads\/[a-z0-9]+\/list\.txt\)\n$/,
        );
        await page.getByRole('button', { name: 'Start topic' }).click();
        await page.waitForURL(/\/t\/[a-z0-9]+$/);
        await page.getByRole('heading', { name: `Seed swap ${width}` }).waitFor();
        const link = page.locator('article.post .body a', { hasText: 'list.txt' });
        const served = await page.request.get(`${origin}${await link.getAttribute('href')}`);
        assert.equal(served.headers()['content-disposition'], 'attachment; filename="list.txt"');
        await shot(page, width, '09-nojs-posted');
        await context.close();
      });
    }
  });
}
