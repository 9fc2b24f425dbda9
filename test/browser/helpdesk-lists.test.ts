// The inbox's lists in a real browser (Debian chromium driven by playwright-core) at desktop and
// phone width: an agent finds the breached urgent ticket leading the open work, searches the
// threads, filters by priority, ticks two tickets and assigns them to a colleague in one change,
// and saves the list as a view; axe-core finds no serious or critical violation on these pages, and
// the AI draft button that cannot work looks disabled. Screenshots go to test-artifacts/browser/.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { createMember } from '../../src/forum/members.js';
import { makeAgent } from '../../src/helpdesk/agents.js';
import { helpdeskTickets, type TicketPriority } from '../../src/helpdesk/tables.js';
import { findTicket, openTicket } from '../../src/helpdesk/tickets.js';
import { buildTownInstance, type TestApp } from '../helpers/app.js';
import {
  assertNoSeriousAxeViolations,
  assertNoSidewaysScroll,
  launchChromium,
  screenshot,
  skipWithoutChromium,
} from '../helpers/browser.js';

describe('agent inbox lists in a browser', { skip: skipWithoutChromium }, () => {
  let t: TestApp;
  let browser: Browser;
  let origin: string;
  const password = 'agent-password-0123';
  const refunds: number[] = [];
  let bobId = '';

  async function logIn(page: Page, path: string): Promise<void> {
    await page.goto(`${origin}${path}`);
    await page.waitForURL(/\/login\?next=/);
    await page.getByLabel('Username or e-mail').fill('ann');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`${origin}${path}`);
  }

  const subjects = (page: Page) => page.locator('tr[data-ticket-row] a.title').allTextContents();

  before(async () => {
    t = await buildTownInstance('pro');
    const db = t.app.deps.database.db;
    const ann = await createMember(db, 'town', { username: 'ann', email: 'ann@town.test', password });
    const bob = await createMember(db, 'town', { username: 'bob', email: 'bob@town.test', password });
    bobId = bob.id;
    await makeAgent(db, 'town', ann.id, { available: false });
    await makeAgent(db, 'town', bob.id, { available: false });
    const priorities: TicketPriority[] = ['low', 'normal', 'high', 'normal'];
    for (let i = 1; i <= 16; i++) {
      const refund = i % 4 === 2 || i % 4 === 3;
      const { ticket } = await openTicket(db, 'town', {
        subject: refund ? `Order ${1000 + i} arrived broken, a very long subject that goes on and on` : `Question ${i}`,
        body: refund ? 'I would like a refund for the broken parts.' : 'How do I change my avatar?',
        requester: { email: `customer${i}@shop.example`, name: `Customer Number ${i}` },
        channel: 'email',
        priority: priorities[i % 4],
      });
      if (refund && priorities[i % 4] === 'high') refunds.push(ticket.number);
    }
    const { ticket: fire } = await openTicket(db, 'town', {
      subject: 'Checkout is down for everyone',
      body: 'Nobody can pay.',
      requester: { email: 'ops@shop.example', name: 'Ops Team' },
      channel: 'web',
      priority: 'urgent',
    });
    await db
      .update(helpdeskTickets)
      .set({ firstResponseDueAt: new Date(Date.now() - 3 * 3_600_000) })
      .where(eq(helpdeskTickets.id, fire.id));
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
    it(`searches, filters, bulk-assigns and saves a view at ${label} width`, async () => {
      const db = t.app.deps.database.db;
      // Each walk starts from unassigned refunds.
      await db.update(helpdeskTickets).set({ assigneeId: null });
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      await logIn(page, '/desk/open');
      assert.equal((await subjects(page))[0], '#17 Checkout is down for everyone');
      const lead = page.locator('tr[data-ticket-row]').first();
      assert.match((await lead.textContent()) ?? '', /Urgent.*Breached 3 h ago/s);
      assert.match((await lead.locator('time').getAttribute('datetime')) ?? '', /^\d{4}-\d\d-\d\dT/);
      await screenshot(page, `helpdesk-lists-open-${label}`);
      await assertNoSidewaysScroll(page);
      await assertNoSeriousAxeViolations(page);

      // x ticks the selected row for a bulk change and unticks it again; / goes to the search box.
      await page.keyboard.press('j');
      await page.keyboard.press('x');
      assert.ok(await page.getByLabel('Tick #17 for a bulk change').isChecked());
      await page.keyboard.press('x');
      assert.equal(await page.getByLabel('Tick #17 for a bulk change').isChecked(), false);
      await page.keyboard.press('/');
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'filter-q');
      await page.keyboard.type('refund');
      await page.getByLabel('Search tickets').fill('refund');
      await page.getByRole('button', { name: 'Find' }).click();
      await page.waitForURL(/\/desk\/open\?q=refund/);
      assert.equal((await subjects(page)).length, 8);
      await page.getByText('Filters and order').click();
      await page.getByLabel('Priority', { exact: true }).selectOption('high');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL(/priority=high/);
      const found = await subjects(page);
      assert.deepEqual(
        found.map((s) => Number(/^#(\d+)/.exec(s)![1])).sort((a, b) => a - b),
        refunds,
      );
      await assertNoSeriousAxeViolations(page);

      for (const number of refunds) await page.getByLabel(`Tick #${number} for a bulk change`).check();
      await page.getByLabel('Assign to').selectOption({ label: 'bob' });
      await page.getByRole('button', { name: 'Apply to ticked' }).click();
      await page.waitForURL(new RegExp(`updated=${refunds.length}`));
      assert.ok(await page.getByText(`Changed ${refunds.length} tickets.`).isVisible());
      for (const number of refunds)
        assert.equal((await findTicket(db, 'town', String(number)))!.assigneeId, bobId, `#${number}`);
      assert.match((await page.locator('tr[data-ticket-row]').first().textContent()) ?? '', /bob/);
      await assertNoSidewaysScroll(page);
      await screenshot(page, `helpdesk-lists-bulk-${label}`);

      await page.getByText('Save this list as a view').click();
      await page.getByLabel('Name of the view').fill(`High refunds ${label}`);
      await page.getByRole('button', { name: 'Save view' }).click();
      await page.waitForURL(/\/desk\/views\/[A-Za-z0-9]+$/);
      assert.ok(await page.getByRole('heading', { name: `High refunds ${label}` }).isVisible());
      assert.equal((await subjects(page)).length, refunds.length);
      await assertNoSeriousAxeViolations(page);

      await page.getByRole('link', { name: 'Search', exact: true }).click();
      await page.waitForURL(`${origin}/desk/search`);
      await page.getByLabel('Search tickets').fill('checkout');
      await page.keyboard.press('Enter');
      await page.waitForURL(/\/desk\/search\?q=checkout/);
      assert.deepEqual(await subjects(page), ['#17 Checkout is down for everyone']);
      await assertNoSidewaysScroll(page);
      await assertNoSeriousAxeViolations(page);

      // No AI on this plan: the draft button is there, disabled, and looks it.
      await page.goto(`${origin}/desk/tickets/17`);
      const draft = page.getByRole('button', { name: 'Draft a reply with AI' });
      assert.ok(await draft.isDisabled());
      const look = await draft.evaluate((button) => {
        const style = getComputedStyle(button);
        return { opacity: Number(style.opacity), cursor: style.cursor };
      });
      assert.ok(look.opacity < 0.7, `opacity ${look.opacity}`);
      assert.equal(look.cursor, 'not-allowed');
      await assertNoSeriousAxeViolations(page);
      await context.close();
    });
  }
});
