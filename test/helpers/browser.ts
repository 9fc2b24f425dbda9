// Debian's chromium for the browser tests: where it is, why a test skips without it, how it starts on
// this closed network, and where screenshots go.
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = path.resolve('test-artifacts/browser');

/** The `skip` option of a browser test: false, or why it cannot run here. */
export const skipWithoutChromium = existsSync(CHROMIUM) ? false : `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium) to run browser tests`;

/** Headless chromium with nothing reaching out to the network by itself. */
export function launchChromium(): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** A full-page screenshot into test-artifacts/browser/<name>.png. */
export function screenshot(page: Page, name: string): Promise<Buffer> {
  return page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}
