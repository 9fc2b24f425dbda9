// Single-instance mode as an operator runs it: `blume create-admin --single` makes the community's
// admin (and the instance when no server made it yet), also when handed to a running
// `blume serve --single`; the admin logs in on the forum itself and moderates. `blume member`
// never takes the last admin away, with the server stopped or running.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loginOnForum, runBlume, startBlume } from '../helpers/process.js';

describe('blume create-admin in single-instance mode', () => {
  let dataDir: string;
  let env: Record<string, string>;

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'blume-single-'));
    env = { BLUME_DATA_DIR: dataDir, BLUME_INSTANCE_ID: 'town' };
  });
  after(() => rm(dataDir, { recursive: true, force: true }));

  it('creates the instance and its admin, refuses duplicates and bad input with exit code 1', async () => {
    const created = await runBlume(
      ['create-admin', '--single', '-u', 'mayor', '-e', 'mayor@example.test', '-p', 'correct horse battery'],
      env,
    );
    assert.equal(created.status, 0, created.stderr);
    assert.match(created.stdout, /Created community instance "town"\./);
    assert.match(created.stdout, /Created administrator "mayor" <mayor@example\.test> of community instance "town"/);

    const again = await runBlume(
      ['create-admin', '--single', '-u', 'Mayor', '-e', 'other@example.test', '-p', 'correct horse battery'],
      env,
    );
    assert.equal(again.status, 1);
    assert.match(again.stderr, /^blume: The username "Mayor" is taken/);
    const badEmail = await runBlume(
      ['create-admin', '--single', '-u', 'clerk', '-e', 'not-an-email', '-p', 'correct horse battery'],
      env,
    );
    assert.equal(badEmail.status, 1);
    assert.match(badEmail.stderr, /is not an e-mail address/);
    const missing = await runBlume(['create-admin', '--single', '-u', 'clerk'], env);
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /needs -u <username>, -e <email> and -p <password>/);

    // The only admin stays one: `blume member` goes through the member service's guard.
    const demote = await runBlume(['member', 'role', 'mayor', 'member', '--single'], env);
    assert.equal(demote.status, 1);
    assert.match(
      demote.stderr,
      /^blume: "mayor" is the last admin of this community; make another member admin first\./,
    );
    assert.equal((await runBlume(['member', 'promote', 'mayor', '--single'], env)).status, 2);
  });

  it('hands create-admin to a running single server, whose admins log in on the forum as admins', async () => {
    const server = await startBlume(['--single'], env);
    try {
      // The first test made the admin "mayor": the banner says where admins log in, not how to make one.
      assert.match(server.output(), /Administrators log in at \/login on this instance\./);
      assert.doesNotMatch(server.output(), /Create the first administrator/);
      // A command of the other mode is refused by the running server, naming the fix: no portal
      // account is ever made on a single instance by mistake.
      const refused = await runBlume(
        ['create-admin', '-u', 'clerk', '-e', 'clerk@example.test', '-p', 'another long password'],
        env,
      );
      assert.equal(refused.status, 1);
      assert.match(
        refused.stderr,
        /^blume: This installation is a single community instance \("town"\), but this command runs as a platform; set BLUME_MODE=single/,
      );
      // BLUME_MODE=single (what the image sets) needs no flag.
      const created = await runBlume(
        ['create-admin', '-u', 'clerk', '-e', 'clerk@example.test', '-p', 'another long password'],
        { ...env, BLUME_MODE: 'single' },
      );
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

      // Instance settings through the running server: saved, then applied, then obeyed.
      const guest = () =>
        fetch(`${server.url}/api/forum/v1/forums`, { headers: { origin: 'https://app.example.test' } });
      assert.equal((await guest()).status, 401);
      const saved = await runBlume(
        ['settings', 'set', 'FORUM_API_PUBLIC_READ=true', 'API_CORS_ORIGINS=https://app.example.test'],
        { ...env, BLUME_MODE: 'single' },
      );
      assert.equal(saved.status, 0, saved.stderr);
      assert.match(
        saved.stdout,
        /Saved API_CORS_ORIGINS, FORUM_API_PUBLIC_READ for "town"\. Saved settings wait for `blume settings apply`\.\n\(done by the running server/,
      );
      assert.equal((await guest()).status, 401, 'saved is not applied');
      const applied = await runBlume(['settings', 'apply', '--single'], env);
      assert.equal(applied.status, 0, applied.stderr);
      assert.match(
        applied.stdout,
        /Applied settings of "town" \(generation 1\): API_CORS_ORIGINS added, FORUM_API_PUBLIC_READ added\./,
      );
      const read = await guest();
      assert.equal(read.status, 200);
      assert.equal(read.headers.get('access-control-allow-origin'), 'https://app.example.test');
      const invalid = await runBlume(['settings', 'set', '--single', 'MAIL_PORT=seventy'], env);
      assert.equal(invalid.status, 1);
      assert.match(invalid.stderr, /^blume: MAIL_PORT must be a port number/);

      // With a second admin, the running server demotes the first when handed the command.
      const demoted = await runBlume(['member', 'role', 'mayor', 'moderator', '--single'], env);
      assert.equal(demoted.status, 0, demoted.stderr);
      assert.match(demoted.stdout, /"mayor" of community "town" is now moderator\./);
      assert.match(demoted.stdout, /done by the running server/);
      const lastOne = await runBlume(['member', 'delete', 'clerk', '--single'], env);
      assert.equal(lastOne.status, 1);
      assert.match(lastOne.stderr, /"clerk" is the last admin/);
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });
});
