// Debian's chromium for the browser tests: where it is, why a test skips without it, how it starts on
// this closed network, where screenshots go, and the checks of phone width, keyboard use and (axe-core)
// accessibility.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import axe from 'axe-core';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = path.resolve('test-artifacts/browser');

/** The `skip` option of a browser test: false, or why it cannot run here. */
export const skipWithoutChromium = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium) to run browser tests`;

/**
 * Headless chromium with nothing reaching out to the network by itself. `resolveToLocalhost` names
 * host patterns (such as `*.blume.test`) that resolve to 127.0.0.1, to open site hosts of a test server;
 * `secureOrigins` are plain-http origins the browser treats as secure.
 */
export function launchChromium(
  options: { resolveToLocalhost?: string[]; secureOrigins?: string[] } = {},
): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const rules = (options.resolveToLocalhost ?? []).map((pattern) => `MAP ${pattern} 127.0.0.1`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...(rules.length ? [`--host-resolver-rules=${rules.join(', ')}`] : []),
      // Origins to treat as https (the clipboard is only there): a site host of a test server.
      ...(options.secureOrigins?.length ? [`--unsafely-treat-insecure-origin-as-secure=${options.secureOrigins}`] : []),
    ],
  });
}

/**
 * A full-page screenshot into test-artifacts/browser/<name>.png. Chromium now and then refuses one
 * capture ("Unable to capture screenshot") and takes the same picture when asked again, so that
 * refusal, and only it, is asked again up to twice.
 */
export async function screenshot(page: Page, name: string): Promise<Buffer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
    } catch (error) {
      if (attempt === 3 || !(error instanceof Error) || !error.message.includes('Unable to capture screenshot'))
        throw error;
      await page.waitForTimeout(250);
    }
  }
}

/** Fails when the page is wider than its viewport (scrolls sideways). */
export async function assertNoSidewaysScroll(page: Page): Promise<void> {
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  if (overflow <= 0) return;
  const wide = await page.evaluate(() =>
    Array.from(document.querySelectorAll('body *'))
      .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
      .slice(0, 12)
      .map((e) => `${e.tagName.toLowerCase()}${e.className ? `.${String(e.className)}` : ''}`)
      .join(' '),
  );
  assert.fail(`${page.url()} scrolls sideways by ${overflow}px; too wide: ${wide}`);
}

/**
 * Presses Tab until the focused element's text (words for screen readers included, spaces collapsed)
 * is `name` or matches it, as a keyboard-only user would; answers that text.
 */
export async function tabTo(page: Page, name: string | RegExp, maxPresses = 20): Promise<string> {
  for (let i = 0; i < maxPresses; i++) {
    await page.keyboard.press('Tab');
    const text = ((await page.evaluate(() => document.activeElement?.textContent)) ?? '').replace(/\s+/g, ' ').trim();
    if (typeof name === 'string' ? text === name : name.test(text)) return text;
  }
  assert.fail(`Tab never reached "${String(name)}"`);
}

/** The password the console's browser tests give every account they sign up. */
export const CONSOLE_PASSWORD = 'a long enough secret';

/** Signs up on the console at `origin` as `username` (e-mail `<username>@example.test`). */
export async function signUpOnConsole(page: Page, origin: string, username: string): Promise<void> {
  await page.goto(`${origin}/signup`);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('E-mail').fill(`${username}@example.test`);
  await page.getByLabel('Password').fill(CONSOLE_PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Sites' }).waitFor();
}

/** A new browser context of this viewport logged in to the console as `login`, on `path`. */
export async function consolePage(
  browser: Browser,
  origin: string,
  login: string,
  path: string,
  viewport = { width: 1280, height: 900 },
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  await page.goto(`${origin}/login`);
  await page.getByLabel('Username or e-mail').fill(login);
  await page.getByLabel('Password').fill(CONSOLE_PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Sites' }).waitFor();
  await page.goto(`${origin}${path}`);
  return { context, page };
}

/** Logs in through the forum's (or console's) login form at `origin`, then waits for the home page. */
export async function logInOnForm(page: Page, origin: string, login: string, password: string): Promise<void> {
  await page.goto(`${origin}/login`);
  await page.getByLabel('Username or e-mail').fill(login);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL(`${origin}/`);
}

/**
 * Runs axe-core (WCAG 2 A and AA rules, and best practices) on the page as it stands and fails on
 * any serious or critical violation, naming the rule and the elements. The script goes in through
 * the DevTools protocol, which the pages' Content-Security-Policy does not govern.
 */
export async function assertNoSeriousAxeViolations(page: Page): Promise<void> {
  await page.evaluate(axe.source);
  // axe-core waits on timers, which never fire in a context with JavaScript off: without this bound
  // such a check would hang rather than fail.
  const ticking = await Promise.race([
    page.evaluate(() => new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 0))),
    new Promise<false>((resolve) => setTimeout(() => resolve(false), 5000)),
  ]);
  assert.ok(ticking, `axe-core needs JavaScript, which is off on ${page.url()}: check the page in another context`);
  const violations = await page.evaluate(async () => {
    const found = await (window as unknown as { axe: typeof axe }).axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
    });
    return found.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map(
        (violation) =>
          `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
      );
  });
  assert.deepEqual(violations, [], `axe finds serious or critical violations on ${page.url()}`);
}
