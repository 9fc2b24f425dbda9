// Node older than 22 is refused, in one line saying how to get a current Node, by `blume` and by
// `npm start` alike (both run bin/check-node.js). The machine's /usr/bin/node is an old Node in CI.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCommand } from '../helpers/process.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OLD_NODE = '/usr/bin/node';
const oldMajor = existsSync(OLD_NODE)
  ? Number(spawnSync(OLD_NODE, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.split('.')[0])
  : undefined;
const NO_OLD_NODE = oldMajor === undefined || oldMajor >= 22 ? `${OLD_NODE} is missing or Node 22 or newer` : false;
const REFUSAL =
  /^blume: Node v\d+\.\d+\.\d+ is too old; Blume needs Node 22 or newer: install the current LTS from https:\/\/nodejs\.org\/en\/download \(or `nvm install --lts`\)\.\n$/;

describe('an old Node', { skip: NO_OLD_NODE }, () => {
  it('is refused by blume, in one line, before anything loads', async () => {
    const result = await runCommand([OLD_NODE, 'bin/blume.js', 'serve'], {}, ROOT);
    assert.equal(result.status, 1);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, REFUSAL);
  });

  it('is refused by npm start, before it compiles', async () => {
    // npm's own script runs on the first node on PATH: the old one.
    const result = await runCommand(
      ['npm', 'start', '--silent'],
      { PATH: `${path.dirname(OLD_NODE)}:${process.env.PATH ?? ''}` },
      ROOT,
    );
    assert.notEqual(result.status, 0);
    assert.doesNotMatch(result.stdout, /Compiling Blume/);
    assert.match(result.stderr, REFUSAL);
  });
});

describe('a current Node', () => {
  it('passes the check silently', async () => {
    const result = await runCommand([process.execPath, 'bin/check-node.js'], {}, ROOT);
    assert.deepEqual(result, { status: 0, stdout: '', stderr: '' });
  });
});
