// The banner `blume serve` prints: the first-administrator step until an administrator exists, and
// the CLI named as the operator runs it there (`blume` in the image, `npx blume` through npm).
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runBlume, startBlume } from '../helpers/process.js';

describe('the start banner', () => {
  let scratch: string;
  before(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'blume-banner-'));
  });
  after(() => rm(scratch, { recursive: true, force: true }));

  it('of a single instance names `blume create-admin` until an administrator exists, then stops', async () => {
    const env = { BLUME_DATA_DIR: path.join(scratch, 'single'), BLUME_MODE: 'single' };
    const first = await startBlume([], env);
    try {
      assert.match(
        first.output(),
        /^Create the first administrator: {2}blume create-admin -u admin -e you@example\.com -p "<password>"$/m,
      );
      const admin = await runBlume(
        ['create-admin', '-u', 'ada', '-e', 'ada@example.com', '-p', 'a long password'],
        env,
      );
      assert.equal(admin.status, 0, admin.stderr);
    } finally {
      assert.equal(await first.stop(), 0);
    }
    const again = await startBlume([], env);
    try {
      assert.doesNotMatch(again.output(), /Create the first administrator/);
      assert.match(again.output(), /^Administrators log in at \/login on this instance\.$/m);
    } finally {
      assert.equal(await again.stop(), 0);
    }
  });

  it('of a platform started through npm names `npx blume create-admin`', async () => {
    const server = await startBlume([], {
      BLUME_DATA_DIR: path.join(scratch, 'platform'),
      npm_execpath: '/usr/lib/node_modules/npm/bin/npm-cli.js',
    });
    try {
      assert.match(server.output(), /^ {7}npx blume create-admin -u admin -e you@example\.com/m);
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });
});
