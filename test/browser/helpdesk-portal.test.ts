// The customer portal and the inbox's bulk merge in a real browser (Debian chromium driven by
// playwright-core) at desktop and phone width: bob follows "Support" from the community's header,
// finds the ticket opened for his address through the API among his tickets, replies with a file
// and downloads it again; ann, an agent, ticks two tickets and merges them into the oldest. axe-core
// finds no serious or critical violation on these pages, and none scrolls sideways.
// Screenshots go to test-artifacts/browser/.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createMember } from '../../src/forum/members.js';
import { makeAgent } from '../../src/helpdesk/agents.js';
import { listEntries, openTicket } from '../../src/helpdesk/tickets.js';
import { buildTownInstance, type TestApp } from '../helpers/app.js';
import {
  assertNoSeriousAxeViolations,
  assertNoSidewaysScroll,
  launchChromium,
  screenshot,
  skipWithoutChromium,
} from '../helpers/browser.js';
import { startSmtpSink, type SmtpSink, sinkMailEnv } from '../helpers/smtp-sink.js';

const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n', 'latin1');

describe('help desk portal and bulk merge in a browser', { skip: skipWithoutChromium }, () => {
  let t: TestApp;
  let sink: SmtpSink;
  let browser: Browser;
  let origin: string;
  const password = 'portal-password-0123';

  async function logIn(page: Page, login: string, path: string): Promise<void> {
    await page.goto(`${origin}/login?next=${encodeURIComponent(path)}`);
    await page.getByLabel('Username or e-mail').fill(login);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`${origin}${path}`);
  }

  async function check(page: Page, name: string): Promise<void> {
    await screenshot(page, name);
    await assertNoSidewaysScroll(page);
    await assertNoSeriousAxeViolations(page);
  }

  before(async () => {
    // Mail goes out, so the community confirms addresses and bob's counts as his.
    sink = await startSmtpSink();
    t = await buildTownInstance('pro', {
      ...sinkMailEnv(sink),
      BLUME_MAIL_DEFAULT_SENDER: 'Town <desk@town.test>',
    });
    const db = t.app.deps.database.db;
    await createMember(db, 'town', { username: 'bob', email: 'bob@example.org', password });
    const ann = await createMember(db, 'town', { username: 'ann', email: 'ann@town.test', password });
    await makeAgent(db, 'town', ann.id, { available: false });
    origin = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await sink?.close();
  });

  for (const [label, viewport] of [
    ['desktop', { width: 1280, height: 900 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    it(`bob finds his API-opened ticket, attaches a file and downloads it at ${label} width`, async () => {
      const db = t.app.deps.database.db;
      const { ticket } = await openTicket(db, 'town', {
        subject: `Refund for order 10 (${label})`,
        body: 'Opened by the shop through the API.',
        requester: { email: 'bob@example.org' },
        channel: 'api',
      });
      const context = await browser.newContext({ viewport, acceptDownloads: true });
      const page = await context.newPage();
      await logIn(page, 'bob', '/latest');
      await page.getByRole('navigation', { name: 'Forum' }).getByRole('link', { name: 'Support' }).click();
      await page.waitForURL(`${origin}/support`);
      await check(page, `helpdesk-portal-contact-${label}`);

      await page.goto(`${origin}/support/tickets`);
      await check(page, `helpdesk-portal-tickets-${label}`);
      await page.getByRole('link', { name: `#${ticket.number} Refund for order 10 (${label})` }).click();
      await page.waitForURL(`${origin}/support/tickets/${ticket.number}`);
      await page.getByLabel('Your reply').fill('Here is the receipt.');
      await page
        .getByLabel(/Attach a file/)
        .setInputFiles({ name: 'receipt.pdf', mimeType: 'application/pdf', buffer: PDF });
      await page.getByRole('button', { name: 'Send reply' }).click();
      await page.waitForURL(`${origin}/support/tickets/${ticket.number}`);
      const link = page.getByRole('link', { name: 'receipt.pdf' });
      const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
      assert.equal(download.suggestedFilename(), 'receipt.pdf');
      const stream = await download.createReadStream();
      assert.deepEqual(Buffer.concat(await stream.toArray()), PDF);
      await check(page, `helpdesk-portal-ticket-${label}`);
      const { rows } = await listEntries(db, ticket.id, false, { pageSize: 10, offset: 0 });
      assert.deepEqual(
        rows.map((entry) => entry.attachments.map((a) => a.filename)),
        [[], ['receipt.pdf']],
      );
      await context.close();
    });

    it(`an agent merges two ticked tickets into the oldest at ${label} width`, async () => {
      const db = t.app.deps.database.db;
      const opened = [];
      for (const n of [1, 2]) {
        const { ticket } = await openTicket(db, 'town', {
          subject: `Printer jam ${n} (${label})`,
          body: `Report ${n} of the jam.`,
          requester: { email: `office${n}@customer.example` },
          channel: 'email',
        });
        opened.push(ticket);
      }
      const [older, newer] = opened as [(typeof opened)[0], (typeof opened)[0]];
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      await logIn(page, 'ann', '/desk/open');
      await page.getByLabel(`Tick #${newer.number} for a bulk change`).check();
      await page.getByLabel(`Tick #${older.number} for a bulk change`).check();
      await page.getByRole('button', { name: 'Merge ticked' }).click();
      await page.waitForURL(`${origin}/desk/tickets/${older.number}?done=merged`);
      const thread = page.locator('ol.thread');
      assert.match((await thread.textContent()) ?? '', /Report 1 of the jam\.[\s\S]*Report 2 of the jam\./);
      assert.match(
        (await page.locator('ol.history').textContent()) ?? '',
        new RegExp(`merged #${newer.number} into it`),
      );
      await check(page, `helpdesk-merge-target-${label}`);
      await page.goto(`${origin}/desk/tickets/${newer.number}`);
      assert.match(
        (await page.locator('ol.history').textContent()) ?? '',
        new RegExp(`merged it into #${older.number}`),
      );
      await context.close();
    });
  }
});
