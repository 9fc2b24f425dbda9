// An editor's day in the CMS in a real browser (Debian chromium driven by playwright-core), at desktop
// and phone width: the admin builds a type whose enum takes its choices and whose number takes its
// bounds through fields; drafts an entry with AI through the local provider server, reviews and
// saves it; changes it, reads the change in the history and restores the first revision; makes a
// preview link that a stranger opens without signing in. axe finds no serious or critical violation
// on any of these pages. Screenshots are kept in test-artifacts/browser/.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { applyDesiredSettings, replaceDesiredSettings } from '../../src/core/settings/service.js';
import { aiSettings, AI_PROVIDER_ENV, startAiProvider, type AiProviderServer } from '../helpers/ai-provider.js';
import { assertNoSeriousAxeViolations, screenshot, skipWithoutChromium } from '../helpers/browser.js';
import { startBrowserTown, type BrowserTown } from '../helpers/browser-town.js';

describe('CMS types, AI drafting, history and preview links in a browser', { skip: skipWithoutChromium }, () => {
  let town: BrowserTown;
  let ai: AiProviderServer;

  before(async () => {
    ai = await startAiProvider();
    town = await startBrowserTown('business', AI_PROVIDER_ENV);
    const { t } = town;
    const db = t.app.deps.database.db;
    await replaceDesiredSettings(
      db,
      'town',
      {
        ...aiSettings(ai, 'writer-1'),
      },
      t.config.secretKey,
    );
    await applyDesiredSettings(db, 'town');
    await t.app.services.epochs.announce();
  });
  after(async () => {
    await town?.close();
    await ai?.close();
  });

  /** Fails unless the page fits its viewport and axe finds nothing serious; keeps a screenshot. */
  async function checked(page: Page, name: string): Promise<void> {
    const fits = await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
    assert.ok(fits, `${page.url()} scrolls sideways`);
    await assertNoSeriousAxeViolations(page);
    await screenshot(page, name);
  }

  for (const [width, height, name] of [
    [1280, 900, 'desktop'],
    [390, 844, 'phone'],
  ] as const)
    it(`builds a type, drafts with AI, restores a revision and shares a preview (${name})`, async () => {
      const { browser, origin } = town;
      const slug = `films-${name}`;
      const context = await browser.newContext({ viewport: { width, height } });
      const page = await context.newPage();
      await town.logIn(page);

      // The type builder: an enum's choices one per line, a number's bounds, each in its own field.
      await page.goto(`${origin}/admin/content`);
      await checked(page, `cms-types-${name}`);
      await page.getByLabel('Name', { exact: true }).fill(`Films ${name}`);
      await page.getByLabel('Slug', { exact: true }).fill(slug);
      await page.getByLabel('Field 1 name').fill('title');
      await page.getByLabel('Required').first().check();
      await page.getByLabel('Field 2 name').fill('genre');
      await page.getByLabel('Field 2 type').selectOption('enum');
      await page.getByText('Field 2 choices and rules').click();
      await page.getByLabel('Field 2 choices (enum), one per line').fill('drama\nsilent_comedy');
      await page.getByLabel('Field 3 name').fill('minutes');
      await page.getByLabel('Field 3 type').selectOption('number');
      await page.getByText('Field 3 choices and rules').click();
      await page.getByLabel('Field 3 smallest number').fill('1');
      await page.getByRole('button', { name: 'Create type' }).click();
      await page.waitForURL(`${origin}/admin/content/${slug}`);

      // AI fills the form through the script; nothing is saved until Save.
      ai.answer = '{"title":"The General","genre":"silent_comedy","minutes":78}';
      await page.getByRole('link', { name: 'New entry' }).click();
      await page.getByLabel('What should the entry say?').fill('A train chase film from 1926');
      await page.getByRole('button', { name: 'Draft with AI' }).click();
      await page.getByText('AI filled 3 fields. Review them, then Save: nothing is saved yet.').waitFor();
      assert.equal(await page.getByLabel('Title (required)').inputValue(), 'The General');
      assert.ok(await page.getByRole('radio', { name: 'Silent comedy' }).isChecked());
      assert.equal(await page.getByLabel('Minutes', { exact: true }).inputValue(), '78');
      assert.match(JSON.stringify(ai.calls.at(-1)!.body), /A train chase film from 1926/);
      await checked(page, `cms-ai-drafted-${name}`);
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.waitForURL(/\?saved=1$/);
      const entryUrl = page.url().replace(/\?saved=1$/, '');

      // A bound from the type builder holds in the form.
      await page.getByLabel('Minutes', { exact: true }).fill('0');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByText(/at least 1/i).waitFor();
      await page.getByLabel('Minutes', { exact: true }).fill('75');
      await page.getByLabel('Title (required)').fill('The General (restored cut)');
      await page.getByRole('radio', { name: 'Drama' }).check();
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.waitForURL(/\?saved=1$/);

      // The history names each change by its label; restoring revision 1 saves it as revision 3.
      await page.getByRole('link', { name: 'History of this entry' }).click();
      const latest = page.getByRole('listitem', { name: 'Revision 2 (current)' });
      const change = latest.getByRole('row', { name: /^Title/ });
      assert.match(await change.innerText(), /The General\s+The General \(restored cut\)/);
      assert.match(await latest.getByRole('row', { name: /^Genre/ }).innerText(), /silent_comedy\s+drama/);
      await checked(page, `cms-history-${name}`);
      await page.getByRole('button', { name: 'Restore revision 1' }).click();
      await page.waitForURL(/\?restored=1$/);
      await page.getByText('Restored revision 1 as a new revision.').waitFor();
      assert.equal(await page.getByLabel('Title (required)').inputValue(), 'The General');
      assert.ok(await page.getByRole('radio', { name: 'Silent comedy' }).isChecked());
      await page.goto(`${entryUrl}/revisions`);
      await page.getByRole('listitem', { name: 'Revision 3 (current)' }).getByText('restored revision 1').waitFor();

      // A preview link: a stranger's browser opens the entry as it is now, read-only.
      await page.goto(entryUrl);
      await page.getByLabel('Preview link valid for').selectOption('24');
      await page.getByRole('button', { name: 'Make preview link' }).click();
      const link = await page.getByLabel('Preview link').inputValue();
      assert.match(link, new RegExp(`/preview/${slug}/[^?]+\\?expires=\\d+&sig=`));
      await checked(page, `cms-share-${name}`);
      const stranger = await browser.newContext({ viewport: { width, height } });
      const preview = await stranger.newPage();
      const opened = await preview.goto(link);
      assert.equal(opened?.status(), 200);
      assert.equal(opened?.headers()['x-robots-tag'], 'noindex, nofollow');
      await preview.getByRole('heading', { name: 'The General' }).waitFor();
      assert.match(await preview.getByRole('note').innerText(), /Preview of a draft Films \w+ entry, read-only/);
      await checked(preview, `cms-preview-${name}`);
      const tampered = await preview.goto(link.replace(/sig=./, (s) => (s.endsWith('A') ? 'sig=B' : 'sig=A')));
      assert.equal(tampered?.status(), 404);
      await stranger.close();
      await context.close();
    });
});
