import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BuildIsolationError, checkBuildIsolation, findBubblewrap, permissionFlag } from './isolation.js';

describe('build isolation', () => {
  it('picks the permission flag the running Node accepts', () => {
    assert.equal(permissionFlag(new Set(['--permission', '--allow-fs-read'])), '--permission');
    assert.equal(
      permissionFlag(new Set(['--experimental-permission', '--allow-fs-read'])),
      '--experimental-permission',
    );
    assert.equal(permissionFlag(new Set(['--allow-fs-read'])), undefined);
    // Node 22.13+ and 24 take --permission and refuse --experimental-permission; Node 20 the reverse.
    const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
    const modern = major > 22 || (major === 22 && minor >= 13);
    assert.equal(permissionFlag(), modern ? '--permission' : '--experimental-permission');
  });

  it('says what builds run under, naming the missing bubblewrap', () => {
    const isolation = checkBuildIsolation();
    assert.equal(isolation.flag, permissionFlag());
    if (findBubblewrap() === undefined) {
      assert.equal(isolation.bubblewrap, false);
      assert.match(isolation.summary, /bubblewrap is not available, so builds run under Node's permission model only/);
    } else {
      assert.equal(isolation.bubblewrap, true);
      assert.match(isolation.summary, /^Builds: bubblewrap \(no network/);
    }
  });

  it('fails at once, saying why, when this Node cannot isolate a build', () => {
    assert.throws(
      () => checkBuildIsolation({ flags: new Set() }),
      (error: unknown) =>
        error instanceof BuildIsolationError && /has no permission model .*Node 22 or newer/.test(error.message),
    );
    // The flag of the other Node line: this Node refuses it.
    const other = permissionFlag() === '--permission' ? '--experimental-permission' : '--permission';
    assert.throws(
      () => checkBuildIsolation({ flags: new Set([other]) }),
      (error: unknown) =>
        error instanceof BuildIsolationError &&
        error.message.includes(`refuses ${other} (`) &&
        /bad option/.test(error.message),
    );
  });
});
