// Single-instance mode as an operator runs it: `blume create-admin --single` makes the community's
// admin (and the instance when no server made it yet), also when handed to a running
// `blume serve --single`; the admin logs in on the forum itself and moderates.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runBlume, startBlume } from '../helpers/process.js';

async function loginOnForum(origin: string, login: string, password: string): Promise<{ status: number; cookie: string }> {
  const page = await fetch(`${origin}/login`);
  const visitor = page.headers.getSetCookie().map((c) => c.split(';')[0]!).join('; ');
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1]!;
  const response = await fetch(`${origin}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: visitor, origin },
    body: new URLSearchParams({ _csrf: csrf, login, password }).toString(),
  });
  const cookie = response.headers.getSetCookie().find((c) => c.startsWith('blume_member='))?.split(';')[0] ?? '';
  return { status: response.status, cookie };
}

describe('blume create-admin in single-instance mode', () => {
  let dataDir: string;
  let env: Record<string, string>;

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'blume-single-'));
    env = { BLUME_DATA_DIR: dataDir, BLUME_INSTANCE_ID: 'town' };
  });
  after(() => rm(dataDir, { recursive: true, force: true }));

  it('creates the instance and its admin, refuses duplicates and bad input with exit code 1', async () => {
    const created = await runBlume(['create-admin', '--single', '-u', 'mayor', '-e', 'mayor@example.test', '-p', 'correct horse battery'], env);
    assert.equal(created.status, 0, created.stderr);
    assert.match(created.stdout, /Created community instance "town"\./);
    assert.match(created.stdout, /Created administrator "mayor" <mayor@example\.test> of community instance "town"/);

    const again = await runBlume(['create-admin', '--single', '-u', 'Mayor', '-e', 'other@example.test', '-p', 'correct horse battery'], env);
    assert.equal(again.status, 1);
    assert.match(again.stderr, /^blume: The username "Mayor" is taken/);
    const badEmail = await runBlume(['create-admin', '--single', '-u', 'clerk', '-e', 'not-an-email', '-p', 'correct horse battery'], env);
    assert.equal(badEmail.status, 1);
    assert.match(badEmail.stderr, /is not an e-mail address/);
    const missing = await runBlume(['create-admin', '--single', '-u', 'clerk'], env);
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /needs -u <username>, -e <email> and -p <password>/);
  });

  it('hands create-admin to a running single server, whose admins log in on the forum as admins', async () => {
    const server = await startBlume(['--single'], env);
    try {
      assert.match(server.output(), /create-admin --single/);
      // The running server is single: the flag is not even needed.
      const created = await runBlume(['create-admin', '-u', 'clerk', '-e', 'clerk@example.test', '-p', 'another long password'], env);
      assert.equal(created.status, 0, created.stderr);
      assert.match(created.stdout, /Created administrator "clerk" <clerk@example\.test> of community instance "town"/);
      assert.match(created.stdout, /done by the running server/);

      const { status, cookie } = await loginOnForum(server.url, 'mayor', 'correct horse battery');
      assert.equal(status, 303);
      const account = await fetch(`${server.url}/account`, { headers: { cookie } });
      assert.equal(account.status, 200);
      assert.match(await account.text(), /mayor<\/strong> · mayor@example\.test · admin/);
      assert.equal((await loginOnForum(server.url, 'clerk', 'another long password')).status, 303);
      assert.equal((await loginOnForum(server.url, 'mayor', 'wrong password here')).status, 401);
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });
});
