// The stage the forum's browser tests share: the community `club` in single mode on the business
// plan, served on loopback, a Chromium, and members who log in with `memberPassword(name)`. With
// `mail`, the server sends its mail to an SMTP sink on loopback, as a real one would.
import type { Browser } from 'playwright-core';
import { createSite } from '../../src/core/sites/service.js';
import type { SiteRow } from '../../src/core/sites/tables.js';
import { buildTestApp, type TestApp } from './app.js';
import { launchChromium } from './browser.js';
import type { DatabaseKind } from './databases.js';
import { sinkMailEnv, startSmtpSink, type SmtpSink } from './smtp-sink.js';

export const WIDTHS = [
  { name: 'desktop', viewport: { width: 1280, height: 900 } },
  { name: 'phone', viewport: { width: 390, height: 844 } },
] as const;

export const memberPassword = (name: string): string => `${name}-password-123`;

export interface ForumStage {
  t: TestApp;
  site: SiteRow;
  origin: string;
  browser: Browser;
  /** The SMTP sink the server mails to, when the stage was started with `mail`. */
  sink: SmtpSink | undefined;
  close(): Promise<void>;
}

export async function startForumStage(database: DatabaseKind, options: { mail?: boolean } = {}): Promise<ForumStage> {
  const sink = options.mail ? await startSmtpSink() : undefined;
  const mailEnv = sink
    ? {
        ...sinkMailEnv(sink),
        BLUME_MAIL_DEFAULT_SENDER: 'Club <club@blume.test>',
      }
    : {};
  const t = await buildTestApp({
    database,
    mode: 'single',
    singleSite: 'club',
    env: { BLUME_RATE_LOGIN_PER_MINUTE: '100', BLUME_RATE_POSTS_PER_MINUTE: '100', ...mailEnv },
  });
  const closeServers = async () => {
    await t.close();
    await sink?.close();
  };
  try {
    const site = await createSite(t.app.deps.database.db, null, { id: 'club', kind: 'community', plan: 'business' });
    await t.app.services.epochs.announce();
    const origin = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const browser = await launchChromium();
    return {
      t,
      site,
      origin,
      browser,
      sink,
      close: async () => {
        await browser.close();
        await closeServers();
      },
    };
  } catch (error) {
    await closeServers();
    throw error;
  }
}
