// The README flow as an operator runs it: start the server, create the first admin with the CLI
// (handed to the running server over the control socket), log in with HTTP, create a site, mint
// and revoke credentials; then crash it with kill -9 and restart with nothing lost.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runBlume, startBlume, type RunningServer } from '../helpers/process.js';

async function request(
  server: RunningServer,
  method: string,
  url: string,
  options: { cookie?: string; body?: unknown } = {},
) {
  const response = await fetch(server.url + url, {
    method,
    headers: {
      ...(options.body ? { 'content-type': 'application/json' } : {}),
      ...(options.cookie ? { cookie: options.cookie } : {}),
    },
    body: options.body ? JSON.stringify(options.body) : undefined,
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
}

async function login(server: RunningServer, login: string, password: string): Promise<string> {
  const response = await fetch(`${server.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ login, password }),
  });
  assert.equal(response.status, 200);
  return response.headers.getSetCookie()[0]!.split(';')[0]!;
}

describe('blume CLI and server on the embedded database', () => {
  let dataDir: string;
  let env: Record<string, string>;

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'blume-cli-'));
    env = { BLUME_DATA_DIR: dataDir, BLUME_PUBLIC_URL: 'http://blume.test' };
  });
  after(() => rm(dataDir, { recursive: true, force: true }));

  it('runs the first-run flow end to end', async () => {
    const server = await startBlume([], env);
    try {
      assert.match(server.output(), /create-admin/);
      const created = await runBlume(
        ['create-admin', '-u', 'admin', '-e', 'admin@example.test', '-p', 'correct horse battery'],
        env,
      );
      assert.equal(created.status, 0, created.stderr);
      assert.match(created.stdout, /Created administrator "admin"/);
      assert.match(created.stdout, /done by the running server/);

      const again = await runBlume(
        ['create-admin', '-u', 'admin', '-e', 'other@example.test', '-p', 'correct horse battery'],
        env,
      );
      assert.equal(again.status, 1);
      assert.match(again.stderr, /username "admin" is taken/);

      const cookie = await login(server, 'admin', 'correct horse battery');
      assert.equal(
        (await request(server, 'POST', '/api/sites', { cookie, body: { id: 'hello', kind: 'static' } })).status,
        201,
      );
      const token = await request(server, 'POST', '/api/sites/hello/deploy-tokens', { cookie, body: { name: 'ci' } });
      assert.equal(token.status, 201);
      const key = await request(server, 'POST', '/api/sites/hello/api-keys', {
        cookie,
        body: { name: 'cms', scopes: ['cms-read'] },
      });
      assert.equal(key.status, 201);
      assert.equal(
        (await request(server, 'DELETE', `/api/sites/hello/deploy-tokens/${String(token.body.id)}`, { cookie })).status,
        204,
      );
      assert.equal(
        (await request(server, 'DELETE', `/api/sites/hello/api-keys/${String(key.body.id)}`, { cookie })).status,
        204,
      );
      assert.equal((await request(server, 'GET', '/up/databases')).status, 200);

      for (const command of [['seed-features'], ['install'], ['db', 'upgrade']]) {
        const result = await runBlume(command, env);
        assert.equal(result.status, 0, `${command.join(' ')}: ${result.stderr}`);
      }
      const second = await startBlume([], env).then(
        (s) => s.stop().then(() => 'started'),
        (error: Error) => error.message,
      );
      assert.match(second, /another Blume process \(pid \d+\) is using this data directory/);
    } finally {
      assert.equal(await server.stop(), 0);
    }
    assert.equal(existsSync(path.join(dataDir, 'blume.lock')), false);
    // With no server running, the command opens the database itself.
    const direct = await runBlume(
      ['create-admin', '-u', 'second', '-e', 'second@example.test', '-p', 'correct horse battery'],
      env,
    );
    assert.equal(direct.status, 0, direct.stderr);
    assert.doesNotMatch(direct.stdout, /running server/);
  });

  it('loses no acknowledged write when the server is killed mid-write', async () => {
    const server = await startBlume([], env);
    const cookie = await login(server, 'admin', 'correct horse battery');
    const acknowledged: string[] = [];
    let failures = 0;
    const writer = (async () => {
      for (let i = 0; failures === 0 && i < 500; i++) {
        try {
          const response = await request(server, 'POST', '/api/sites', {
            cookie,
            body: { id: `crash-${i}`, kind: 'static' },
          });
          if (response.status === 201) acknowledged.push(`crash-${i}`);
        } catch {
          failures++;
        }
      }
    })();
    while (acknowledged.length < 20) await new Promise((resolve) => setTimeout(resolve, 20));
    await server.stop('SIGKILL');
    await writer;
    assert.ok(existsSync(path.join(dataDir, 'blume.lock')), 'the killed process leaves its lock behind');

    const restarted = await startBlume([], env);
    try {
      const cookie2 = await login(restarted, 'admin', 'correct horse battery');
      const sites = (await fetch(`${restarted.url}/api/sites`, { headers: { cookie: cookie2 } }).then((r) =>
        r.json(),
      )) as Array<{ id: string }>;
      const ids = new Set(sites.map((site) => site.id));
      for (const id of acknowledged) assert.ok(ids.has(id), `acknowledged site ${id} survived the crash`);
    } finally {
      assert.equal(await restarted.stop(), 0);
    }
  });

  it('refuses to serve with pending migrations when auto-migrate is off', async () => {
    const fresh = await mkdtemp(path.join(tmpdir(), 'blume-cli-'));
    try {
      const freshEnv = { ...env, BLUME_DATA_DIR: fresh, BLUME_AUTO_MIGRATE: 'False' };
      const refused = await startBlume([], freshEnv).then(
        (s) => s.stop().then(() => 'started'),
        (error: Error) => error.message,
      );
      assert.match(refused, /migration\(s\) are pending and BLUME_AUTO_MIGRATE is False: run `blume db upgrade`/);
      const upgrade = await runBlume(['db', 'upgrade'], freshEnv);
      assert.equal(upgrade.status, 0, upgrade.stderr);
      assert.match(upgrade.stdout, /Applied \d+ migration/);
      const server = await startBlume([], freshEnv);
      assert.equal(await server.stop(), 0);
    } finally {
      await rm(fresh, { recursive: true, force: true });
    }
  });

  it('reports bad configuration all at once and bad usage with exit code 2', async () => {
    const bad = await runBlume(['install'], {
      ...env,
      BLUME_BIND: 'nowhere',
      BLUME_REDIS_ENABLED: 'maybe',
      BLUME_BLOBS: 'ftp',
    });
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /BLUME_BIND must be host:port/);
    assert.match(bad.stderr, /BLUME_REDIS_ENABLED must be True or False/);
    assert.match(bad.stderr, /BLUME_BLOBS must be local or s3/);
    assert.equal((await runBlume(['frobnicate'], env)).status, 2);
    assert.equal((await runBlume(['create-admin', '--bogus'], env)).status, 2);
    const help = await runBlume(['create-admin', '--help'], env);
    assert.equal(help.status, 0);
    assert.match(help.stdout, /Usage: blume create-admin/);
  });
});
