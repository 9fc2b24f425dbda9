// A test app whose mail goes to a fresh SMTP sink on loopback, with logins not throttled: what the
// tests of mailed links, notifications and help desk mail start from.
import type { Env } from '../../src/config/index.js';
import { buildTestApp, type TestApp } from './app.js';
import type { DatabaseKind } from './databases.js';
import { sinkMailEnv, startSmtpSink, type SmtpSink } from './smtp-sink.js';

export async function buildMailingApp(database: DatabaseKind, env: Env = {}): Promise<{ t: TestApp; sink: SmtpSink }> {
  const sink = await startSmtpSink();
  const t = await buildTestApp({
    database,
    env: { BLUME_RATE_LOGIN_PER_MINUTE: '1000', ...sinkMailEnv(sink), ...env },
  });
  return { t, sink };
}
