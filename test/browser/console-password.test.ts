// Password links in a real browser: a billing system provisions a workspace for a new owner, who
// follows the invitation mail's link, chooses a password and lands in the console with the site
// listed; then, logged out at phone width, the owner asks for a reset link from the login page and
// sets a new password through it. Mail goes to a real SMTP server on loopback; screenshots are kept
// in test-artifacts/browser/.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { buildTestApp, json, portal, signIn, type TestApp } from '../helpers/app.js';
import { launchChromium, screenshot, skipWithoutChromium } from '../helpers/browser.js';
import { eventually } from '../helpers/eventually.js';
import { decodedBody, startSmtpSink, type SmtpSink, sinkMailEnv } from '../helpers/smtp-sink.js';

describe('console password links in a browser', { skip: skipWithoutChromium }, () => {
  let sink: SmtpSink;
  let t: TestApp;
  let browser: Browser;
  let origin: string;

  /** The path of the password link in mail number `index` (the link names BLUME_PUBLIC_URL, the server listens elsewhere). */
  const linkPath = async (index: number) => {
    const mail = await eventually(`mail number ${index + 1}`, () => sink.received[index], 10_000);
    const match = /http:\/\/blume\.test(\/password\/set\/[0-9a-z]{16}\.[A-Za-z0-9_-]{43})/.exec(decodedBody(mail));
    assert.ok(match, decodedBody(mail));
    return match[1]!;
  };

  before(async () => {
    sink = await startSmtpSink();
    t = await buildTestApp({
      database: 'pglite',
      env: { BLUME_RATE_LOGIN_PER_MINUTE: '100', ...sinkMailEnv(sink) },
    });
    origin = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await sink?.close();
  });

  it('follows the invitation to a password and the console, then resets it from the login page', async () => {
    const root = await signIn(t.app, 'root', { admin: true });
    const key = json<{ token: string }>(
      await portal(t.app, root, { method: 'POST', url: '/api/admin/purchase-keys', payload: { name: 'billing' } }),
    ).token;
    const created = await portal(t.app, undefined, {
      method: 'POST',
      url: '/api/purchase/v1/workspaces',
      headers: { authorization: `Bearer ${key}` },
      payload: {
        site_id: 'bakery',
        kind: 'community',
        plan: 'pro',
        owner_email: 'bea@example.test',
        owner_name: 'bea',
      },
    });
    assert.equal(json(created).invitation, 'sent', created.body);

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const invitation = await linkPath(0);
    await page.goto(`${origin}${invitation}`);
    await page.getByRole('heading', { name: 'Welcome to Blume' }).waitFor();
    await screenshot(page, 'console-invitation');
    await page.getByLabel('Password').fill('password123');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('alert').getByText('one of the most common passwords').waitFor();
    await page.getByLabel('Password').fill('bea bakes bread daily');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.waitForURL(`${origin}/`);
    await page.getByRole('link', { name: 'bakery', exact: true }).waitFor();
    await screenshot(page, 'console-invited-owner-sites');

    // The link is spent: opening it again says so in words.
    const reopened = await page.goto(`${origin}${invitation}`);
    assert.equal(reopened?.status(), 410);
    await page.getByRole('heading', { name: 'This link no longer works' }).waitFor();
    await page.getByRole('button', { name: 'Log out' }).click();
    await context.close();

    const phone = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const small = await phone.newPage();
    await small.goto(`${origin}/login`);
    await small.getByRole('link', { name: 'Forgot your password?' }).click();
    await small.getByRole('heading', { name: 'Forgot your password?' }).waitFor();
    await small.getByLabel('Username or e-mail').fill('bea');
    await small.getByRole('button', { name: 'Mail me a link' }).click();
    await small.getByRole('heading', { name: 'Check your mail' }).waitFor();
    await screenshot(small, 'console-phone-forgot-sent');
    await small.goto(`${origin}${await linkPath(1)}`);
    await small.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    const overflow = await small.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px`);
    await small.getByLabel('New password').fill('bea bakes rye on mondays');
    await small.getByRole('button', { name: 'Set password' }).click();
    await small.waitForURL(`${origin}/`);
    await small.getByRole('heading', { name: 'Sites' }).waitFor();
    await phone.close();

    const login = await portal(t.app, undefined, {
      method: 'POST',
      url: '/api/auth/login',
      payload: { login: 'bea@example.test', password: 'bea bakes rye on mondays' },
    });
    assert.equal(login.statusCode, 200, login.body);
  });
});
