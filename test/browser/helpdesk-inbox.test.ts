// The agent inbox in a real browser (Debian chromium driven by playwright-core) against a listening
// single-instance server: an agent logs in, finds a new ticket in "unassigned", takes it with the
// keyboard (j, a), opens it (o), replies (r), adds an internal note (n), asks the local AI provider
// server for a draft that lands in the reply box unsent, puts the ticket on pending (the SLA clock
// stops) and solves it (e). Without JavaScript the same buttons work as plain forms. Every inbox
// page fits a 390 px phone. An HTML mail shows its table and its inline image, and its remote image
// is fetched only once the agent asks (decision 0128). Screenshots are kept in test-artifacts/browser/.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { applyDesiredSettings, replaceDesiredSettings } from '../../src/core/settings/service.js';
import { createSite } from '../../src/core/sites/service.js';
import { createMember } from '../../src/forum/members.js';
import { makeAgent } from '../../src/helpdesk/agents.js';
import { findTicket, listEntries, openTicket } from '../../src/helpdesk/tickets.js';
import { aiSettings, AI_PROVIDER_ENV, startAiProvider, type AiProviderServer } from '../helpers/ai-provider.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { launchChromium, screenshot, skipWithoutChromium } from '../helpers/browser.js';
import { eventually } from '../helpers/eventually.js';

describe('agent inbox in a browser', { skip: skipWithoutChromium }, () => {
  let t: TestApp;
  let ai: AiProviderServer;
  let browser: Browser;
  let origin: string;
  const password = 'agent-password-0123';

  async function logIn(page: Page, path: string): Promise<void> {
    await page.goto(`${origin}${path}`);
    await page.waitForURL(/\/login\?next=/);
    await page.getByLabel('Username or e-mail').fill('ann');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Log in' }).click();
  }

  async function fitsPhone(page: Page, path: string, name: string): Promise<void> {
    await page.goto(`${origin}${path}`);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `${path} is ${width}px wide`);
    await screenshot(page, name);
  }

  before(async () => {
    ai = await startAiProvider();
    t = await buildTestApp({
      database: 'pglite',
      mode: 'single',
      singleSite: 'town',
      env: { ...AI_PROVIDER_ENV, BLUME_RATE_LOGIN_PER_MINUTE: '100' },
    });
    const db = t.app.deps.database.db;
    await createSite(db, null, { id: 'town', kind: 'community', plan: 'business' });
    await t.app.services.epochs.announce();
    const ann = await createMember(db, 'town', { username: 'ann', email: 'ann@town.test', password });
    // Opened before ann is an agent, so nobody has them yet.
    await openTicket(db, 'town', {
      subject: 'Cannot log in',
      body: 'The password reset mail **never** arrives.',
      requester: { email: 'erin@customer.example', name: 'Erin Example' },
      channel: 'email',
      priority: 'high',
    });
    await openTicket(db, 'town', {
      subject: 'Invoice address',
      body: 'Please change the address on my last invoice to a much longer street name that wraps.',
      requester: { email: 'max.mustermann-with-a-long-address@customer.example' },
      channel: 'web',
    });
    await makeAgent(db, 'town', ann.id);
    await replaceDesiredSettings(
      db,
      'town',
      {
        ...aiSettings(ai, 'helper-1'),
        HELPDESK_INBOUND_SECRET: 'inbound-secret',
      },
      t.config.secretKey,
    );
    await applyDesiredSettings(db, 'town');
    await t.app.services.epochs.announce();
    ai.answer = 'Hi Erin, the reset mail may be in your spam folder.';
    origin = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await ai?.close();
  });

  it('takes, answers, notes, drafts with AI, pauses and solves a ticket, mostly from the keyboard', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await logIn(page, '/desk');
    await page.waitForURL(`${origin}/desk/mine`);
    await page.getByRole('link', { name: 'Unassigned' }).click();
    await page.waitForURL(`${origin}/desk/unassigned`);
    const row = page.locator('tr[data-ticket-row]').filter({ hasText: 'Cannot log in' });
    assert.match((await row.textContent()) ?? '', /Erin Example.*New.*High/s);

    // Open work comes SLA due first: j selects the high-priority login problem, j and k move and come back; a takes it.
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await page.keyboard.press('k');
    assert.match((await row.getAttribute('class')) ?? '', /selected/);
    await screenshot(page, 'helpdesk-inbox-unassigned');
    await page.keyboard.press('a');
    await page.waitForURL(`${origin}/desk/unassigned?assigned=1`);
    assert.ok(await page.getByText('Ticket #1 is assigned to you.').isVisible());
    assert.equal(await row.count(), 0);

    await page.getByRole('link', { name: 'Mine' }).click();
    await page.waitForURL(`${origin}/desk/mine`);
    await page.keyboard.press('j');
    await page.keyboard.press('o');
    await page.waitForURL(`${origin}/desk/tickets/1`);

    await page.keyboard.press('r');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'reply-body');
    await page.keyboard.type('Hello Erin, we are looking into it.');
    await page.getByRole('button', { name: 'Send reply' }).click();
    await page.waitForURL(/\/desk\/tickets\/1\?done=replied/);
    assert.ok(await page.getByText('Reply added to the thread.').isVisible());

    await page.keyboard.press('n');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'note-body');
    await page.keyboard.type('Her domain bounced our mail last week.');
    await page.getByRole('button', { name: 'Add note' }).click();
    await page.waitForURL(/\/desk\/tickets\/1\?done=noted/);
    const note = page.locator('li.post.note');
    assert.match((await note.textContent()) ?? '', /ann\s*Internal note.*Her domain bounced/s);

    await page.getByRole('button', { name: 'Draft a reply with AI' }).click();
    await page.waitForURL(/\/desk\/tickets\/1\?draft=[a-z0-9]+#reply$/);
    assert.equal(await page.getByLabel('Reply', { exact: true }).inputValue(), ai.answer);
    assert.ok(await page.getByText('is in the reply box: read and edit it').isVisible());
    const db = t.app.deps.database.db;
    const ticket = (await findTicket(db, 'town', '1'))!;
    assert.equal(
      (await listEntries(db, ticket.id, true, { pageSize: 10, offset: 0 })).total,
      3,
      'the draft is not sent',
    );
    await screenshot(page, 'helpdesk-inbox-ticket-draft');

    await page.getByLabel('Status').selectOption('pending');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.waitForURL(/\?done=saved/);
    assert.ok(await page.locator('#sla-heading + p').getByText('Paused').isVisible());
    assert.ok((await findTicket(db, 'town', '1'))!.slaPausedAt, 'the SLA clock stopped');

    // The URL already ends in ?done=saved, so wait for the next page load, not for the URL.
    const solved = page.waitForEvent('load');
    await page.keyboard.press('e');
    await solved;
    assert.equal(await page.getByLabel('Status').inputValue(), 'solved');
    assert.equal((await findTicket(db, 'town', '1'))!.status, 'solved');

    await page.keyboard.press('?');
    assert.ok(await page.getByText('Select the next / previous ticket of a list').isVisible());
    await screenshot(page, 'helpdesk-inbox-shortcuts');
    await context.close();
  });

  it('works without JavaScript', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, javaScriptEnabled: false });
    const page = await context.newPage();
    await logIn(page, '/desk/unassigned');
    await page.waitForURL(`${origin}/desk/unassigned`);
    await page.getByRole('button', { name: 'Assign to me #2' }).click();
    await page.waitForURL(`${origin}/desk/unassigned?assigned=2`);
    await page.goto(`${origin}/desk/tickets/2`);
    await page.getByLabel('Note for agents').fill('Checked the billing system.');
    await page.getByRole('button', { name: 'Add note' }).click();
    await page.waitForURL(/\?done=noted/);
    assert.ok(await page.getByText('Checked the billing system.').isVisible());
    await context.close();
  });

  it('fits every inbox page on a 390 px phone', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
    const page = await context.newPage();
    await logIn(page, '/desk/open');
    await page.waitForURL(`${origin}/desk/open`);
    await fitsPhone(page, '/desk/open', 'helpdesk-inbox-open-phone');
    await fitsPhone(page, '/desk/mine', 'helpdesk-inbox-mine-phone');
    await fitsPhone(page, '/desk/tickets/1', 'helpdesk-inbox-ticket-phone');
    await fitsPhone(page, '/desk/tickets/2', 'helpdesk-inbox-ticket2-phone');
    await context.close();
  });

  it('shows an HTML mail with its table and inline image, and loads a remote image only when asked', async () => {
    const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
    const remoteRequests: string[] = [];
    const remote: Server = createServer((request, response) => {
      remoteRequests.push(request.url ?? '');
      response.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from(PIXEL, 'base64'));
    });
    await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
    const remoteUrl = `http://127.0.0.1:${(remote.address() as AddressInfo).port}/banner.png`;
    const mail = [
      'From: Erin Example <erin@customer.example>',
      'To: support@town.test',
      'Subject: Quote with a table',
      'Message-ID: <html-browser@customer.example>',
      'MIME-Version: 1.0',
      'Content-Type: multipart/related; boundary="rel"',
      '',
      '--rel',
      'Content-Type: text/html; charset=utf-8',
      '',
      '<p>Our order:</p><table><tr><th>Item</th><th>Qty</th></tr><tr><td>K6 arm</td><td>5</td></tr></table>' +
        `<p><img src="cid:shot@customer.example" alt="Screenshot" width="20" height="20"> <img src="${remoteUrl}" alt="Banner"></p>`,
      '--rel',
      'Content-Type: image/png; name="shot.png"',
      'Content-Transfer-Encoding: base64',
      'Content-ID: <shot@customer.example>',
      '',
      PIXEL,
      '--rel--',
      '',
    ].join('\r\n');
    const created = await fetch(`${origin}/api/helpdesk/v1/inbound-email`, {
      method: 'POST',
      headers: { 'content-type': 'message/rfc822', authorization: 'Bearer inbound-secret' },
      body: mail,
    });
    assert.equal(created.status, 202, await created.clone().text());
    const { number } = (await created.json()) as { number: number };
    try {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      await logIn(page, `/desk/tickets/${number}`);
      await page.waitForURL(`${origin}/desk/tickets/${number}`);
      const body = page.locator('.mail-html');
      assert.deepEqual(await body.locator('tr').allInnerTexts(), ['Item\tQty', 'K6 arm\t5']);
      const shot = body.getByAltText('Screenshot');
      await eventually('the inline image to load', () =>
        shot.evaluate((image: HTMLImageElement) => (image.complete && image.naturalWidth === 1) || undefined),
      );
      assert.deepEqual(remoteRequests, [], 'no remote request before the agent asks');
      await screenshot(page, 'helpdesk-inbox-html-mail');

      await page.getByRole('link', { name: 'Show remote images' }).click();
      await page.waitForURL(/remote_images=/);
      await eventually('the remote image to be asked for', () => (remoteRequests.length > 0 ? true : undefined));
      assert.deepEqual(remoteRequests, ['/banner.png']);
      await context.close();
    } finally {
      await new Promise((resolve) => remote.close(resolve));
    }
  });
});
