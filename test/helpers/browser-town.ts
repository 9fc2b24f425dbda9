// The start of the CMS browser tests: a listening single-instance community `town` whose first admin
// is `mayor`, and chromium to drive it.
import type { Browser, Page } from 'playwright-core';
import { runOperation } from '../../src/cli/operations.js';
import type { Env } from '../../src/config/index.js';
import { buildTownInstance, operationsOf, type TestApp } from './app.js';
import { launchChromium, logInOnForm } from './browser.js';

export interface BrowserTown {
  t: TestApp;
  /** http://127.0.0.1:<port> */
  origin: string;
  browser: Browser;
  /** Logs `mayor` in through the login form and waits for the home page. */
  logIn(page: Page): Promise<void>;
  close(): Promise<void>;
}

export async function startBrowserTown(plan: 'free' | 'pro' | 'business', env: Env = {}): Promise<BrowserTown> {
  const password = 'first-admin-password';
  const t = await buildTownInstance(plan, env);
  await runOperation(operationsOf(t.app, 'town'), 'create-admin', {
    username: 'mayor',
    email: 'mayor@town.test',
    password,
  });
  const origin = await t.app.listen({ host: '127.0.0.1', port: 0 });
  const browser = await launchChromium();
  return {
    t,
    origin,
    browser,
    logIn: (page) => logInOnForm(page, origin, 'mayor', password),
    close: async () => {
      await browser.close();
      await t.close();
    },
  };
}
