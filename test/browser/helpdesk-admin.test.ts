// The help desk's reports and settings pages in a real browser (Debian chromium driven by
// playwright-core) at desktop and phone width: an agent who is an admin of the desk opens the
// reports from the desk's navigation, sees the charts and downloads a report as CSV; then creates a
// category, sets an agent's capacity, edits an SLA target, adds a canned reply and inserts it into
// a reply (filled in for the ticket), edits a ticket's tags in its triage panel, saves the mail
// settings (applied at once) and makes a member an agent by username. axe-core finds
// no serious or critical violation on any of these pages. Screenshots go to test-artifacts/browser/.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { loadSettings } from '../../src/core/settings/service.js';
import { createMember } from '../../src/forum/members.js';
import { findAgent, makeAgent } from '../../src/helpdesk/agents.js';
import { listCategories } from '../../src/helpdesk/categories.js';
import { listSlaPolicies } from '../../src/helpdesk/sla.js';
import { findTicket, openTicket } from '../../src/helpdesk/tickets.js';
import { buildTownInstance, type TestApp } from '../helpers/app.js';
import {
  assertNoSeriousAxeViolations,
  assertNoSidewaysScroll,
  launchChromium,
  screenshot,
  skipWithoutChromium,
} from '../helpers/browser.js';

describe('help desk reports and settings in a browser', { skip: skipWithoutChromium }, () => {
  let t: TestApp;
  let browser: Browser;
  let origin: string;
  const password = 'admin-password-0123';
  let bobId = '';
  const numbers: number[] = [];

  async function logIn(page: Page, path: string): Promise<void> {
    await page.goto(`${origin}${path}`);
    await page.waitForURL(/\/login\?next=/);
    await page.getByLabel('Username or e-mail').fill('ada');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`${origin}${path}`);
  }

  before(async () => {
    t = await buildTownInstance('pro');
    const db = t.app.deps.database.db;
    const ada = await createMember(db, 'town', { username: 'ada', email: 'ada@town.test', password, role: 'admin' });
    const bob = await createMember(db, 'town', { username: 'bob', email: 'bob@town.test', password });
    bobId = bob.id;
    await makeAgent(db, 'town', ada.id, { available: false });
    await makeAgent(db, 'town', bob.id, { available: false });
    for (let i = 1; i <= 6; i++) {
      const { ticket } = await openTicket(db, 'town', {
        subject: `Parcel ${i} is late`,
        body: 'Where is my parcel?',
        requester: { email: `customer${i}@shop.example`, name: `Customer ${i}` },
        channel: 'email',
        tags: i % 2 === 0 ? ['shipping'] : [],
      });
      numbers.push(ticket.number);
    }
    origin = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const [label, viewport] of [
    ['desktop', { width: 1280, height: 900 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    it(`reports, downloads CSV and sets up the desk at ${label} width`, async () => {
      const db = t.app.deps.database.db;
      const context = await browser.newContext({ viewport, acceptDownloads: true });
      const page = await context.newPage();
      await logIn(page, '/desk/open');

      // Reports, from the desk's navigation: a chart named for screen readers, its figures beside it.
      await page.getByRole('link', { name: 'Reports', exact: true }).click();
      await page.waitForURL(`${origin}/desk/reports/tickets`);
      const chart = page.getByRole('img', { name: /^Tickets per day, \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d$/ });
      assert.ok(await chart.isVisible());
      assert.equal(await page.locator('#chart-tickets rect.s0').count(), 1);
      assert.match((await page.locator('table.report-figures tbody').textContent()) ?? '', /6/);
      await assertNoSidewaysScroll(page);
      await assertNoSeriousAxeViolations(page);
      await screenshot(page, `helpdesk-reports-${label}`);
      await page.getByRole('link', { name: 'Trends' }).click();
      await page.waitForURL(/\/desk\/reports\/trends/);
      assert.ok(await page.getByRole('img', { name: /^Trends per day/ }).isVisible());
      assert.equal(await page.locator('#chart-trends polyline.line').count(), 1);
      await page.getByLabel('Per', { exact: true }).selectOption('week');
      await page.getByRole('button', { name: 'Show' }).click();
      await page.waitForURL(/interval=week/);
      assert.ok(await page.getByRole('img', { name: /^Trends per week/ }).isVisible());
      await assertNoSeriousAxeViolations(page);
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('link', { name: /Download CSV/ }).click(),
      ]);
      assert.match(download.suggestedFilename(), /^helpdesk-trends-\d{4}-\d\d-\d\d-\d{4}-\d\d-\d\d\.csv$/);
      const csv = await readFile((await download.path())!, 'utf8');
      assert.match(csv, /^period,created,solved,reopened,backlog_change\r\n\d{4}-\d\d-\d\d,6,0,0,6\r\n$/);

      // Settings: a category.
      await page.getByRole('link', { name: 'Settings', exact: true }).click();
      await page.waitForURL(`${origin}/desk/admin/categories`);
      await assertNoSeriousAxeViolations(page);
      await page.getByLabel('Name', { exact: true }).fill(`Returns ${label}`);
      await page.getByRole('button', { name: 'Add category' }).click();
      await page.waitForURL(/\/desk\/admin\/categories\?done=added/);
      assert.ok(await page.getByRole('rowheader', { name: `Returns ${label}` }).isVisible());
      const category = (await listCategories(db, 'town')).find((c) => c.name === `Returns ${label}`);
      assert.ok(category);
      await assertNoSidewaysScroll(page);
      await assertNoSeriousAxeViolations(page);
      await screenshot(page, `helpdesk-admin-categories-${label}`);

      // An agent's capacity, and the new category to serve.
      await page.getByRole('navigation', { name: 'Help desk settings' }).getByRole('link', { name: 'Agents' }).click();
      await page.waitForURL(`${origin}/desk/admin/agents`);
      await page.getByLabel('Capacity of bob').fill(label === 'desktop' ? '7' : '9');
      await page.getByRole('form', { name: 'bob' }).getByLabel(`Returns ${label}`).check();
      await page.getByRole('button', { name: 'Save bob' }).click();
      await page.waitForURL(/\/desk\/admin\/agents\?done=saved/);
      assert.equal((await findAgent(db, 'town', bobId))!.capacity, label === 'desktop' ? 7 : 9);
      await assertNoSidewaysScroll(page);
      await assertNoSeriousAxeViolations(page);

      // An SLA target.
      await page.getByRole('link', { name: 'SLA targets' }).click();
      await page.waitForURL(`${origin}/desk/admin/sla`);
      await page.getByLabel('First response within, Urgent (minutes)').fill(label === 'desktop' ? '15' : '20');
      await page.getByRole('button', { name: 'Save targets' }).click();
      await page.waitForURL(/\/desk\/admin\/sla\?done=saved/);
      const urgent = (await listSlaPolicies(db, 'town')).find((p) => p.priority === 'urgent')!;
      assert.equal(urgent.firstResponseMinutes, label === 'desktop' ? 15 : 20);
      await assertNoSidewaysScroll(page);
      await assertNoSeriousAxeViolations(page);

      // A canned reply with placeholders.
      await page.getByRole('link', { name: 'Canned replies' }).click();
      await page.waitForURL(`${origin}/desk/admin/canned-replies`);
      const name = `Parcel delay ${label}`;
      await page.locator('#canned-name').fill(name);
      await page
        .locator('#canned-body')
        .fill('Hello {{requester.name}}, ticket #{{ticket.number}} is with us. {{agent.name}}');
      await page.getByRole('button', { name: 'Add canned reply' }).click();
      await page.waitForURL(/\/desk\/admin\/canned-replies\?done=added/);
      assert.ok(await page.getByRole('heading', { name }).isVisible());
      await assertNoSidewaysScroll(page);
      await assertNoSeriousAxeViolations(page);
      await screenshot(page, `helpdesk-admin-canned-${label}`);

      // It goes into a reply where the cursor is, filled in for the ticket.
      const number = numbers[label === 'desktop' ? 0 : 1]!;
      await page.goto(`${origin}/desk/tickets/${number}`);
      const box = page.getByLabel('Reply', { exact: true });
      await box.fill('Thanks! ');
      await page.getByLabel('Canned reply').selectOption({ label: name });
      await page.getByRole('button', { name: 'Insert into the reply' }).click();
      await page.waitForFunction(() =>
        (document.getElementById('reply-body') as HTMLTextAreaElement).value.includes('Hello'),
      );
      assert.equal(
        await box.inputValue(),
        `Thanks! Hello Customer ${label === 'desktop' ? 1 : 2}, ticket #${number} is with us. ada`,
      );
      await assertNoSeriousAxeViolations(page);

      // Its tags, in the triage panel.
      await page.getByLabel('Tags').fill('late, Priority Customer');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.waitForURL(/\?done=saved/);
      assert.deepEqual((await findTicket(db, 'town', String(number)))!.tags, ['late', 'priority customer']);
      assert.equal(await page.getByLabel('Tags').inputValue(), 'late, priority customer');
      await assertNoSidewaysScroll(page);
      await assertNoSeriousAxeViolations(page);
      await screenshot(page, `helpdesk-ticket-tags-${label}`);

      // The tags page lists them.
      await page.goto(`${origin}/desk/admin/tags`);
      assert.ok(await page.getByRole('rowheader', { name: 'late' }).isVisible());
      await assertNoSidewaysScroll(page);
      await assertNoSeriousAxeViolations(page);

      // The mail settings, saved and applied at once.
      await page.goto(`${origin}/desk/admin/mail`);
      await page.getByLabel('Support address').fill(`help-${label}@town.test`);
      await page.getByLabel('Sender name').fill(`Town Help ${label}`);
      await page.getByLabel('Acknowledge new tickets by mail').check();
      await page.getByRole('button', { name: 'Save and apply' }).click();
      await page.waitForURL(/\/desk\/admin\/mail\?done=saved/);
      assert.ok(await page.getByText(`Town Help ${label} <help-${label}@town.test>`).isVisible());
      const applied = (await loadSettings(db, 'town')).applied;
      assert.equal(applied.HELPDESK_SENDER_NAME, `Town Help ${label}`);
      assert.equal(applied.HELPDESK_AUTO_REPLY, 'true');
      await assertNoSidewaysScroll(page);
      await assertNoSeriousAxeViolations(page);
      await screenshot(page, `helpdesk-admin-mail-${label}`);

      // A member becomes an agent by username.
      const username = `cy${label}`;
      await createMember(db, 'town', { username, email: `${username}@town.test`, password });
      await page.getByRole('link', { name: 'Agents' }).click();
      await page.getByLabel('Username of the member').fill(username);
      await page.getByRole('button', { name: 'Make agent' }).click();
      await page.waitForURL(/\/desk\/admin\/agents\?done=added/);
      assert.ok(await page.getByRole('heading', { name: username }).isVisible());
      await assertNoSidewaysScroll(page);
      await assertNoSeriousAxeViolations(page);
      await context.close();
    });
  }

  it('puts a canned reply into the reply box without script', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, javaScriptEnabled: false });
    const page = await context.newPage();
    await logIn(page, `/desk/tickets/${numbers[2]}`);
    await page.getByLabel('Canned reply').selectOption({ label: 'Parcel delay desktop' });
    await page.getByRole('button', { name: 'Insert into the reply' }).click();
    await page.waitForURL(/\?canned=/);
    assert.equal(
      await page.getByLabel('Reply', { exact: true }).inputValue(),
      `Hello Customer 3, ticket #${numbers[2]} is with us. ada`,
    );
    // axe runs on the same page in a context with JavaScript on.
    const checking = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await checking.addCookies(await context.cookies());
    const checked = await checking.newPage();
    await checked.goto(page.url());
    assert.equal(
      await checked.getByLabel('Reply', { exact: true }).inputValue(),
      `Hello Customer 3, ticket #${numbers[2]} is with us. ada`,
    );
    await assertNoSeriousAxeViolations(checked);
    await checking.close();
    await context.close();
  });
});
